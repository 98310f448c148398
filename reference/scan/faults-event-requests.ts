/**
 * Planted faults of POST /v0/events accepting requests FACTS.md's shape makes invalid: a page_size below 1, a cursor
 * without its migration id, a migration id with a fraction. Each answers 200 where a 4xx is due.
 */
import { registerFaults } from '../faults.js';

export const SCAN_EVENT_REQUEST_FAULTS = {
  pageSizeZero: 'scan-list-events-page-size-zero-accepted',
  migrationOptional: 'scan-list-events-cursor-migration-optional',
  migrationFraction: 'scan-list-events-cursor-migration-fraction',
} as const;
const F = SCAN_EVENT_REQUEST_FAULTS;

registerFaults([
  { name: F.pageSizeZero, requirement: 'scan.derived.out-of-range-rejected', description: 'POST /v0/events answers page_size 0 with 200 and no events' },
  { name: F.migrationOptional, requirement: 'scan.derived.required-removed-rejected', description: 'POST /v0/events reads an after without after_migration_id as migration 0' },
  { name: F.migrationFraction, requirement: 'scan.derived.setup-non-integer-rejected', description: 'POST /v0/events reads an after_migration_id with a fraction as its integer part' },
]);
