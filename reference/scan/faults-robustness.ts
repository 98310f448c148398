/** Planted faults of scan's answers to malformed requests (no 5xx for any input). */
import { registerFaults } from '../faults.js';

/** POST /v0/events with an after_record_time that is not a date-time fails with 500 instead of 400 */
export const SCAN_EVENTS_BAD_RECORD_TIME_500 = 'scan-events-bad-after-record-time-internal-error';

registerFaults([
  {
    name: SCAN_EVENTS_BAD_RECORD_TIME_500,
    requirement: 'scan.http.no-server-error',
    description: 'POST /v0/events with an after.after_record_time that is not a date-time (e.g. "not a time") fails with 500 {error} instead of 400',
  },
]);
