/**
 * Planted faults of the seeded validator licenses (reference/data/contracts.ts), switched where the shared data are
 * built (shared.ts).
 */
import { registerFaults } from '../faults.js';
import type { LicenseStore } from './contracts.js';

export const DATA_LICENSE_FAULTS = {
  /** a page that holds exactly one license ends the listing */
  singleLicenseEnds: 'scan-licenses-single-license-page-ends-listing',
  /** every page holds one license fewer than limit: a page of limit 1 is empty and ends the listing */
  oneShort: 'scan-licenses-page-one-short',
} as const;

registerFaults([
  {
    name: DATA_LICENSE_FAULTS.singleLicenseEnds,
    requirement: 'scan.list-validator-licenses.token-present-when-more',
    description: 'a page holding exactly one license (limit 1, or a last license) carries no next_page_token, even when older licenses follow',
  },
  {
    name: DATA_LICENSE_FAULTS.oneShort,
    requirement: 'scan.list-validator-licenses.token-present-when-more',
    description: 'every page holds one license fewer than limit, so a request with limit 1 answers an empty page without next_page_token although licenses exist',
  },
]);

/** LicenseStore.page without the token of a page of one license */
export function endListingsAtSingleLicense(licenses: LicenseStore): void {
  const page = licenses.page.bind(licenses);
  licenses.page = (after, limit) => {
    const p = page(after, limit);
    return p.licenses.length === 1 ? { licenses: p.licenses } : p;
  };
}

/** LicenseStore.page filling one license fewer than asked */
export function pagesOneShort(licenses: LicenseStore): void {
  const page = licenses.page.bind(licenses);
  licenses.page = (after, limit) => page(after, limit - 1);
}
