/**
 * Planted faults of scan listings that leave out what must be there: a listing that hides everything (every listing
 * at once), a license never listed, a prefix listing without one of its matching entries, an event history that lists
 * nothing. Each passes every "each listed X is ..." rule; only checks that know what must be listed catch them.
 */
import { registerFaults } from '../faults.js';

export const SCAN_ABSENCE_FAULTS = {
  emptyListings: 'scan-empty-listings',
  licenseHidden: 'scan-licenses-oldest-hidden',
  prefixDropsMatching: 'scan-ans-prefix-drops-matching',
  eventsEmpty: 'scan-list-events-empty',
} as const;
const F = SCAN_ABSENCE_FAULTS;

registerFaults([
  {
    name: F.emptyListings,
    requirement: 'scan.list-validator-licenses.known-listed',
    description: 'every listing is empty at once: GET /v0/ans-entries, GET /v0/admin/validator/licenses (no next_page_token), POST /v0/events and POST /v0/activities answer 200 with empty lists',
  },
  { name: F.licenseHidden, requirement: 'scan.list-validator-licenses.known-listed', description: 'the oldest license is never listed (no page holds it, and the walk ends without it)' },
  { name: F.prefixDropsMatching, requirement: 'scan.list-ans-entries.matching-listed', description: 'a listing with a non-empty name_prefix leaves out its second matching entry (every entry it lists still matches)' },
  { name: F.eventsEmpty, requirement: 'scan.list-events.known-listed', description: 'POST /v0/events lists no event, while GET /v0/events/{update_id} answers every update' },
]);
