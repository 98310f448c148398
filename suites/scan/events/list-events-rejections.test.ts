/**
 * POST /v0/events requests that FACTS.md's shape makes invalid, sent every run (the derived checks draw their
 * mutations at random, a few per kind, and their valid request carries no cursor): the page_size bounds and one past
 * each, and a cursor (`after`) missing one of its two fields or carrying a migration id of the wrong type or with a
 * fraction. Each is answered with a 4xx.
 */
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { scanMaxPageSize } from '../../../harness/fixtures/scan.js';
import { pageLimitBounds } from '../../../generators/scan/PageLimits.js';
import { notBusy } from '../../v0-http-checks.js';

/** a cursor before any event: the migration ids of a network start at 0, its record times long after 2020 */
const CURSOR = { after_migration_id: 0, after_record_time: '2020-01-01T00:00:00.000000Z' };

/** sends the body and expects a 4xx, judged under the requirement given */
async function refused(t: CheckContext, json: Record<string, unknown>, what: string, requirement: string): Promise<void> {
  const x = await t.call('listEvents', { json });
  notBusy(t, x);
  t.expect(x.status >= 400 && x.status < 500, `POST /v0/events with ${what} answered ${x.status}, not a 4xx`, { requirement, exchange: x });
}

describe('POST /v0/events: invalid requests', () => {
  conformance(
    {
      id: 'scan.list-events.page-size-bounds-rejected',
      title: "rejects a page_size below 1 or above the scan's maximum page size with a 4xx",
      api: 'scan',
      operations: ['listEvents'],
      requirements: ['scan.derived.out-of-range-rejected'],
    },
    async (t) => {
      const { invalidBelow, invalidAbove } = pageLimitBounds(scanMaxPageSize(t));
      for (const pageSize of [...invalidBelow, ...invalidAbove]) await refused(t, { page_size: pageSize }, `page_size ${pageSize}`, 'scan.derived.out-of-range-rejected');
    },
  );

  conformance(
    {
      id: 'scan.list-events.cursor-fields-rejected',
      title: 'rejects a cursor without after_migration_id or after_record_time, or with a migration id that is not an integer, with a 4xx',
      api: 'scan',
      operations: ['listEvents'],
      requirements: ['scan.derived.required-removed-rejected', 'scan.derived.setup-non-integer-rejected', 'scan.derived.setup-wrong-type-rejected'],
    },
    async (t) => {
      // the control: the cursor itself is accepted, so that a rejection below can only be about the field changed
      const control = await t.call('listEvents', { json: { page_size: 1, after: CURSOR } });
      notBusy(t, control);
      if (control.status < 200 || control.status >= 300) t.skip(`the cursor ${JSON.stringify(CURSOR)} itself answered ${control.status}, so no rejection could be laid to one of its fields`);
      const { after_migration_id: _m, ...withoutMigration } = CURSOR;
      const { after_record_time: _t, ...withoutTime } = CURSOR;
      await refused(t, { page_size: 1, after: withoutMigration }, 'a cursor without after_migration_id', 'scan.derived.required-removed-rejected');
      await refused(t, { page_size: 1, after: withoutTime }, 'a cursor without after_record_time', 'scan.derived.required-removed-rejected');
      await refused(t, { page_size: 1, after: { ...CURSOR, after_migration_id: 0.5 } }, 'after_migration_id 0.5', 'scan.derived.setup-non-integer-rejected');
      await refused(t, { page_size: 1, after: { ...CURSOR, after_migration_id: '0' } }, 'after_migration_id "0" (a string)', 'scan.derived.setup-wrong-type-rejected');
      await refused(t, { page_size: 1, after: { ...CURSOR, after_record_time: 0 } }, 'after_record_time 0 (a number)', 'scan.derived.setup-wrong-type-rejected');
    },
  );
});
