/** Planted faults of scan's removed POST /v0/activities (served before 0.6.8). */
import { registerFaults } from '../faults.js';

export const SCAN_ACTIVITY_FAULTS = {
  stillServed: 'scan-activities-still-served',
  removedEarly: 'scan-activities-removed-early',
  gone410: 'scan-activities-removed-as-410',
  schema: 'scan-activities-round-string',
  ascending: 'scan-activities-ascending',
  inclusive: 'scan-activities-begin-after-inclusive',
  pageSizeDefault: 'scan-activities-page-size-default',
  plusOne: 'scan-activities-page-size-plus-one',
  twoKinds: 'scan-activities-mint-also-tap',
  emptyItem: 'scan-activities-item-without-fields',
  oldestHidden: 'scan-activities-oldest-hidden',
} as const;
const F = SCAN_ACTIVITY_FAULTS;

registerFaults([
  { name: F.stillServed, requirement: 'scan.versioning.activities-removed', description: 'POST /v0/activities still answers 200 from 0.6.8 on' },
  { name: F.gone410, requirement: 'scan.versioning.activities-removed-404', description: 'POST /v0/activities is answered 410 Gone {error} from 0.6.8 on (not served, but not the 404 real scans answer)' },
  { name: F.removedEarly, requirement: 'scan.versioning.activities-served', description: 'POST /v0/activities answers 404 before 0.6.8' },
  { name: F.schema, requirement: 'scan.list-activities.response-schema', description: 'activity round is rendered as a string' },
  { name: F.ascending, requirement: 'scan.list-activities.descending', description: 'activities are listed in ascending event_id order' },
  { name: F.inclusive, requirement: 'scan.list-activities.begin-after-id', description: 'begin_after_id is inclusive: the activity with that event_id is listed again' },
  { name: F.pageSizeDefault, requirement: 'scan.list-activities.page-size-required', description: 'a request without page_size lists 10 activities' },
  { name: F.plusOne, requirement: 'scan.list-activities.at-most-page-size', description: 'a response holds page_size + 1 activities' },
  { name: F.emptyItem, requirement: 'scan.list-activities.item-fields', description: 'the first activity of a page is an object with none of its fields' },
  { name: F.twoKinds, requirement: 'scan.list-activities.one-activity-kind', description: 'mint activities also carry a tap' },
  { name: F.oldestHidden, requirement: 'scan.list-activities.known-listed', description: 'the oldest activity is never listed (a walk of the listing ends without it)' },
]);
