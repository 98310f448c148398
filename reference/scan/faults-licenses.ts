/** Planted faults of scan's GET /v0/admin/validator/licenses. */
import { registerFaults, type FaultSet } from '../faults.js';

export const SCAN_LICENSE_FAULTS = {
  schema: 'scan-licenses-created-event-blob-missing',
  reversed: 'scan-licenses-page-reversed',
  template: 'scan-licenses-other-template',
  skipOne: 'scan-licenses-after-skips-one',
  tokenDropped: 'scan-licenses-token-dropped-after-second-page',
  tokenLoops: 'scan-licenses-empty-last-page-repeats-token',
  shortPageToken: 'scan-licenses-short-last-page-token',
  default100: 'scan-licenses-default-limit-100',
  plusOne: 'scan-licenses-limit-plus-one',
  zeroAccepted: 'scan-licenses-limit-zero-accepted',
  unbounded: 'scan-licenses-limit-unbounded',
} as const;
const F = SCAN_LICENSE_FAULTS;

registerFaults([
  { name: F.schema, requirement: 'scan.list-validator-licenses.response-schema', description: 'licenses come without created_event_blob' },
  { name: F.reversed, requirement: 'scan.list-validator-licenses.newest-first', description: 'each page lists its licenses oldest first' },
  { name: F.template, requirement: 'scan.list-validator-licenses.validator-license-template', description: 'every tenth license of a page carries the FeaturedAppRight template id' },
  { name: F.skipOne, requirement: 'scan.list-validator-licenses.after-continues', description: 'a page requested with after skips the license that follows the previous page' },
  { name: F.tokenDropped, requirement: 'scan.list-validator-licenses.token-present-when-more', description: 'pages requested with after carry no next_page_token even when more licenses follow' },
  {
    name: F.tokenLoops,
    requirement: 'scan.list-validator-licenses.token-absent-on-last-page',
    description: 'the last page of licenses carries a next_page_token (allowed, as real scans do), and the empty page it leads to carries the same token again: the last page always has a token, so a walk never ends',
  },
  {
    name: F.shortPageToken,
    requirement: 'scan.list-validator-licenses.short-page-no-token',
    description: 'the last page of licenses carries a next_page_token even when it holds fewer licenses than the limit; the empty page it leads to carries none (the walk ends, one page late)',
  },
  { name: F.default100, requirement: 'scan.list-validator-licenses.default-limit', description: 'a request without limit returns 100 licenses per page instead of 1000' },
  { name: F.plusOne, requirement: 'scan.list-validator-licenses.limit-respected', description: 'a page holds limit + 1 licenses' },
  { name: F.zeroAccepted, requirement: 'scan.list-validator-licenses.limit-below-min-rejected', description: 'limit 0 and negative ones answer 200 with no licenses' },
  { name: F.unbounded, requirement: 'scan.list-validator-licenses.limit-above-max-rejected', description: 'a limit above 1000 is accepted' },
]);

export interface LicenseFaults {
  min: number;
  max: number;
  defaultLimit: number;
  has(name: string): boolean;
}

export function licenseFaults(faults: FaultSet): LicenseFaults {
  return {
    min: faults.has(F.zeroAccepted) ? -(2 ** 31) : 1,
    max: faults.has(F.unbounded) ? 2 ** 31 - 1 : 1000,
    defaultLimit: faults.has(F.default100) ? 100 : 1000,
    has: (n) => faults.has(n),
  };
}
