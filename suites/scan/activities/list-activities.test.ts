import fc from 'fast-check';
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { isObj } from '../../../harness/fixtures/scan.js';
import { expectStatus, judgeRejection, notBusy } from '../../v0-http-checks.js';

// POST /v0/activities was removed in scan 0.6.8: the requirements below carry since/until, so the wrapper runs the
// removal check on newer scans and the listing checks on older ones only.

type Obj = Record<string, unknown>;
const KINDS = ['transfer', 'mint', 'tap', 'abort_transfer_instruction'] as const;

async function list(t: CheckContext, body: Obj): Promise<{ x: Exchange; activities: Obj[] }> {
  const x = await t.call('listActivities', { json: body });
  expectStatus(t, x, 200, { requirement: 'scan.versioning.activities-served' });
  const a = isObj(x.json) && Array.isArray(x.json.activities) ? x.json.activities.filter(isObj) : [];
  return { x, activities: a };
}

const ids = (as: Obj[]) => as.map((a) => String(a.event_id));

/** an empty listing passes every "each listed activity is ..." rule: it judges none of them, and nothing tells what is missing */
const EMPTY = 'the listing holds no activity, so no listed activity can be judged (and nothing the scan serves tells which activities must be listed)';

describe('POST /v0/activities (removed in 0.6.8)', () => {
  conformance(
    {
      id: 'scan.versioning.activities-removed',
      title: 'is not served from 0.6.8 on: a 4xx, 404 as FACTS.md gives',
      api: 'scan',
      operations: ['listActivities'],
      requirements: ['scan.versioning.activities-removed', 'scan.versioning.activities-removed-404'],
    },
    async (t) => {
      const x = await t.call('listActivities', { json: { page_size: 10 } });
      await judgeRejection(t, x, { requirement: 'scan.versioning.activities-removed', badRequest: 'scan.versioning.activities-removed-404', statuses: [404], what: 'POST /v0/activities from 0.6.8 on' });
    },
  );

  conformance(
    {
      id: 'scan.versioning.activities-served',
      title: 'answers a valid request with 200 before 0.6.8',
      api: 'scan',
      operations: ['listActivities'],
      requirements: ['scan.versioning.activities-served'],
    },
    async (t) => {
      expectStatus(t, await t.call('listActivities', { json: { page_size: 10 } }), 200);
    },
  );

  conformance(
    {
      id: 'scan.list-activities.schema',
      title: 'answers 200 with activities, a list of historical activity items, each with the fields FACTS.md says it has',
      api: 'scan',
      operations: ['listActivities'],
      requirements: ['scan.list-activities.response-schema', 'scan.list-activities.item-fields'],
    },
    async (t) => {
      const x = await t.call('listActivities', { json: { page_size: 50 } });
      expectStatus(t, x, 200);
    },
  );

  conformance(
    {
      id: 'scan.list-activities.descending',
      title: 'lists activities in descending event_id order',
      api: 'scan',
      operations: ['listActivities'],
      requirements: ['scan.list-activities.descending'],
    },
    async (t) => {
      const { x, activities } = await list(t, { page_size: 100 });
      const e = ids(activities);
      if (e.length < 2) t.skip('fewer than two activities listed');
      // SPEC.md says event ids increase monotonically but gives no order of their text: ids that are decimal numbers
      // are compared as numbers; other ids are judged through begin_after_id, which lists the activities below an id
      if (e.every((id) => /^-?\d+$/.test(id))) {
        const k = e.findIndex((id, i) => i > 0 && !(BigInt(id) < BigInt(e[i - 1]!)));
        t.expect(k < 0, `event_id ${e[k]} follows ${e[k - 1]}: the listing is not in descending order`, { exchange: x });
        return;
      }
      for (const at of new Set([1, Math.floor(e.length / 2), e.length - 1])) {
        const below = await list(t, { begin_after_id: e[at]!, page_size: 100 });
        const earlier = new Set(e.slice(0, at));
        const back = ids(below.activities).find((id) => earlier.has(id));
        t.expect(back === undefined, `begin_after_id ${e[at]} lists ${back}, which the listing without it puts before ${e[at]}: the listing is not in descending order`, { exchange: below.x });
      }
    },
  );

  conformance(
    {
      id: 'scan.list-activities.begin-after-id',
      title: 'begin_after_id continues the listing past that activity, without it',
      api: 'scan',
      operations: ['listActivities'],
      requirements: ['scan.list-activities.begin-after-id'],
    },
    async (t) => {
      const all = ids((await list(t, { page_size: 100 })).activities);
      if (all.length < 2) t.skip('fewer than two activities listed');
      await t.property(
        fc.record({ at: fc.nat({ max: all.length - 2 }), pageSize: fc.integer({ min: 1, max: 10 }) }),
        async ({ at, pageSize }) => {
          const begin = all[at]!;
          const { x, activities } = await list(t, { begin_after_id: begin, page_size: pageSize });
          const got = ids(activities);
          t.expect(!got.includes(begin), `begin_after_id ${begin} lists that activity again`, { exchange: x });
          const expected = all.slice(at + 1, at + 1 + pageSize);
          t.expect(JSON.stringify(got) === JSON.stringify(expected.slice(0, got.length)) && got.length > 0, `begin_after_id ${begin} lists ${JSON.stringify(got)}, not the continuation ${JSON.stringify(expected)}`, { exchange: x });
        },
        { runs: t.scaledRuns(10), concurrent: true },
      );
    },
  );

  conformance(
    {
      id: 'scan.list-activities.page-size-required',
      title: 'rejects a request without page_size with a 4xx status',
      api: 'scan',
      operations: ['listActivities'],
      requirements: ['scan.list-activities.page-size-required'],
    },
    async (t) => {
      const x = await t.call('listActivities', { json: {} });
      notBusy(t, x);
      t.expect(x.status >= 400 && x.status < 500, `a request without page_size answered ${x.status}`, { exchange: x });
    },
  );

  conformance(
    {
      id: 'scan.list-activities.at-most-page-size',
      title: 'holds at most page_size activities',
      api: 'scan',
      operations: ['listActivities'],
      requirements: ['scan.list-activities.at-most-page-size'],
    },
    async (t) => {
      if ((await list(t, { page_size: 100 })).activities.length === 0) t.skip(EMPTY);
      await t.property(
        fc.integer({ min: 1, max: 60 }),
        async (pageSize) => {
          const { x, activities } = await list(t, { page_size: pageSize });
          t.expect(activities.length <= pageSize, `${activities.length} activities for page_size ${pageSize}`, { exchange: x });
        },
        { runs: t.scaledRuns(10), concurrent: true },
      );
    },
  );

  conformance(
    {
      id: 'scan.list-activities.one-activity-kind',
      title: 'each activity carries exactly one of transfer, mint, tap and abort_transfer_instruction',
      api: 'scan',
      operations: ['listActivities'],
      requirements: ['scan.list-activities.one-activity-kind'],
    },
    async (t) => {
      const { x, activities } = await list(t, { page_size: 100 });
      if (activities.length === 0) t.skip(EMPTY);
      for (const a of activities) {
        const kinds = KINDS.filter((k) => a[k] !== undefined && a[k] !== null);
        t.expect(kinds.length === 1, `activity ${String(a.event_id)} carries ${kinds.length === 0 ? 'none' : kinds.join(' and ')} of ${KINDS.join(', ')}`, { exchange: x });
      }
    },
  );
});
