/** Planted faults of scan's GET /v0/admin/validator/licenses. */
import { registerFaults, type FaultSet } from '../faults.js';

export const SCAN_LICENSE_FAULTS = {
  schema: 'scan-licenses-created-event-blob-missing',
  reversed: 'scan-licenses-page-reversed',
  template: 'scan-licenses-other-template',
  skipOne: 'scan-licenses-after-skips-one',
  tokenDropped: 'scan-licenses-token-dropped-after-second-page',
  tokenLoops: 'scan-licenses-empty-last-page-repeats-token',
  default100: 'scan-licenses-default-limit-100',
  plusOne: 'scan-licenses-limit-plus-one',
  zeroAccepted: 'scan-licenses-limit-zero-accepted',
  unbounded: 'scan-licenses-limit-unbounded',
  afterBeyondInt64: 'scan-licenses-after-beyond-int64-accepted',
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
  { name: F.default100, requirement: 'scan.list-validator-licenses.default-limit', description: 'a request without limit returns 100 licenses per page instead of 1000' },
  { name: F.plusOne, requirement: 'scan.list-validator-licenses.limit-respected', description: 'a page holds limit + 1 licenses' },
  { name: F.zeroAccepted, requirement: 'scan.list-validator-licenses.limit-below-min-rejected', description: 'limit 0 and negative ones answer 200 with no licenses' },
  { name: F.unbounded, requirement: 'scan.list-validator-licenses.limit-above-max-rejected', description: 'a limit above 1000 is accepted' },
  { name: F.afterBeyondInt64, requirement: 'scan.derived.out-of-range-rejected', description: 'an after beyond the int64 range is read as the largest one (all licenses listed) instead of rejected with 400' },
]);

export interface LicenseFaults {
  min: number;
  max: number;
  defaultLimit: number;
  has(name: string): boolean;
}

/** the license route's limits and faults; `maxPageSize` is the scan's maximum page size (the variant's, default 1000) */
export function licenseFaults(faults: FaultSet, maxPageSize = 1000): LicenseFaults {
  return {
    min: faults.has(F.zeroAccepted) ? -(2 ** 31) : 1,
    max: faults.has(F.unbounded) ? 2 ** 31 - 1 : maxPageSize,
    // SPEC.md's default of 1000, within the operator's maximum
    defaultLimit: faults.has(F.default100) ? 100 : Math.min(1000, maxPageSize),
    has: (n) => faults.has(n),
  };
}
