/** Planted faults of the scan thin slice (GET /v0/ans-entries). */
import { registerFaults } from '../faults.js';

export const SCAN_LIST_ANS_ENTRIES_PAGE_SIZE_EXCEEDED = 'scan-list-ans-entries-page-size-exceeded';
export const SCAN_LIST_ANS_ENTRIES_PREFIX_IGNORED = 'scan-list-ans-entries-prefix-ignored';
export const SCAN_LIST_ANS_ENTRIES_USER_MISSING = 'scan-list-ans-entries-user-missing';

registerFaults([
  {
    name: SCAN_LIST_ANS_ENTRIES_PAGE_SIZE_EXCEEDED,
    requirement: 'scan.list-ans-entries.at-most-page-size',
    description: 'GET /v0/ans-entries returns up to page_size + 1 entries',
  },
  {
    name: SCAN_LIST_ANS_ENTRIES_PREFIX_IGNORED,
    requirement: 'scan.list-ans-entries.name-prefix-match',
    description: 'GET /v0/ans-entries ignores name_prefix and lists entries of any name',
  },
  {
    name: SCAN_LIST_ANS_ENTRIES_USER_MISSING,
    requirement: 'scan.list-ans-entries.response-schema',
    description: 'GET /v0/ans-entries leaves the required user field out of every entry',
  },
]);
