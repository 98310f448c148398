/** Planted faults of scan's GET /v0/ans-entries beyond the thin slice (faults-thin.ts). */
import { registerFaults, type FaultSet } from '../faults.js';
import type { ListAnsEntriesFaults } from '../data/ans-routes.js';

const F = {
  pageSizeOptional: 'scan-list-ans-entries-page-size-optional',
  zeroAccepted: 'scan-list-ans-entries-page-size-zero-accepted',
  unbounded: 'scan-list-ans-entries-page-size-unbounded',
  maxRejected: 'scan-list-ans-entries-page-size-1000-rejected',
  emptyPrefix: 'scan-list-ans-entries-empty-prefix-matches-nothing',
  newestPage: 'scan-list-ans-entries-newest-page',
  newestFirst: 'scan-list-ans-entries-newest-first',
  expired: 'scan-list-ans-entries-expired-included',
  dsoFirst: 'scan-list-ans-entries-dso-entries-first',
  noContractId: 'scan-ans-regular-entry-without-contract-id',
  noExpiry: 'scan-ans-regular-entry-without-expiry',
  ftp: 'scan-ans-url-ftp',
  anyNumber: 'scan-list-ans-entries-page-size-any-number-form',
} as const;

registerFaults([
  { name: F.pageSizeOptional, requirement: 'scan.list-ans-entries.page-size-required', description: 'a request without page_size lists 100 entries instead of 400' },
  { name: F.zeroAccepted, requirement: 'scan.list-ans-entries.page-size-below-min-rejected', description: 'page_size 0 and negative ones answer 200 with no entries' },
  { name: F.unbounded, requirement: 'scan.list-ans-entries.page-size-above-max-rejected', description: 'page_size above 1000 is accepted' },
  { name: F.maxRejected, requirement: 'scan.list-ans-entries.page-size-bounds-accepted', description: 'page_size 1000 is rejected with 400 (maximum off by one)' },
  { name: F.emptyPrefix, requirement: 'scan.list-ans-entries.empty-prefix-lists-all', description: 'an explicitly empty name_prefix lists only DSO-provided entries' },
  { name: F.newestPage, requirement: 'scan.list-ans-entries.older-first', description: 'the newest page_size matching entries are listed (the tail of the listing instead of its head)' },
  { name: F.newestFirst, requirement: 'scan.list-ans-entries.older-first', description: 'entries are listed newest first (a consistent order: a smaller page is still the head of a larger one)' },
  { name: F.expired, requirement: 'scan.list-ans-entries.non-expired-only', description: 'expired entries are listed' },
  { name: F.dsoFirst, requirement: 'scan.list-ans-entries.dso-entries-may-fill', description: 'DSO-provided entries come first and push matching entries out of a full page' },
  { name: F.noContractId, requirement: 'scan.ans.contract-id-absent-only-dso', description: "the first user-owned entry of a page lacks its contract_id" },
  { name: F.noExpiry, requirement: 'scan.ans.expires-at-absent-only-dso', description: 'the first user-owned entry of a page has expires_at null' },
  { name: F.ftp, requirement: 'scan.ans.url-empty-or-http', description: 'non-empty entry urls are ftp:// urls' },
  { name: F.anyNumber, requirement: 'scan.errors.integer-query-decimal-only', description: 'page_size written as 1e3 or 0x10 is read as the number it spells (1000, 16) and answered 200 instead of refused as malformed' },
]);

/** the listing faults of scan's ANS route that are switched on */
export function scanAnsFaults(faults: FaultSet): ListAnsEntriesFaults {
  return {
    pageSizeOptional: faults.has(F.pageSizeOptional),
    ...(faults.has(F.zeroAccepted) ? { minPageSize: -(2 ** 31) } : {}),
    ...(faults.has(F.unbounded) ? { maxPageSize: 2 ** 31 - 1 } : {}),
    ...(faults.has(F.maxRejected) ? { maxPageSize: 999 } : {}),
    emptyPrefixMatchesNothing: faults.has(F.emptyPrefix),
    newestPage: faults.has(F.newestPage),
    newestFirst: faults.has(F.newestFirst),
    expiredIncluded: faults.has(F.expired),
    dsoFirst: faults.has(F.dsoFirst),
    dropContractId: faults.has(F.noContractId),
    dropExpiry: faults.has(F.noExpiry),
    ftpUrls: faults.has(F.ftp),
    pageSizeAnyNumber: faults.has(F.anyNumber),
  };
}
