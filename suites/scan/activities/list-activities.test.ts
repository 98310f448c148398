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

const KNOWN_LISTED = 'scan.list-activities.known-listed';
/** the page size of a walk of the whole listing, and the most pages it reads */
const WALK_PAGE_SIZE = 100;
const MAX_WALK_PAGES = 50;

/**
 * The event ids of activities the target says it holds (fixtures.activityIds), or undefined when it names none: then
 * nothing tells which activities must be listed.
 */
function knownActivities(t: CheckContext): string[] | undefined {
  const f = t.fixture<unknown>('activityIds');
  const known = Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string' && x !== '') : [];
  return known.length > 0 ? known : undefined;
}

/**
 * An empty listing passes every "each listed activity is ..." rule: it judges none of them. Whether activities are
 * missing is judged by scan.list-activities.known-listed, against fixtures.activityIds.
 */
function skipEmpty(t: CheckContext): never {
  const known = knownActivities(t);
  return t.skip(
    `the listing holds no activity, so no listed activity can be judged; ${known !== undefined ? `that the ${known.length} activities of fixtures.activityIds are missing is judged by ${KNOWN_LISTED}` : 'no fixtures.activityIds names activities the target holds, so nothing tells whether activities are missing'}`,
  );
}

interface Walk {
  /** the event ids met, page after page */
  ids: string[];
  pages: Exchange[];
  /** the walk reached an empty page (the end of the listing) within its bound */
  complete: boolean;
}

/**
 * Reads the listing from its newest activity, each page continuing below the last event id of the page before
 * (begin_after_id), until an empty page: a short page does not end it (a scan may page without looking ahead). Stops,
 * incomplete, after maxPages pages or when a page ends on an id already met (begin_after_id not followed).
 */
async function walk(t: CheckContext, maxPages = MAX_WALK_PAGES): Promise<Walk> {
  const out: Walk = { ids: [], pages: [], complete: false };
  const met = new Set<string>();
  let begin: string | undefined;
  for (let p = 0; p < maxPages; p++) {
    const { x, activities } = await list(t, begin === undefined ? { page_size: WALK_PAGE_SIZE } : { begin_after_id: begin, page_size: WALK_PAGE_SIZE });
    out.pages.push(x);
    if (activities.length === 0) return { ...out, complete: true };
    const page = ids(activities);
    const last = page[page.length - 1]!;
    if (met.has(last)) return out;
    for (const id of page) met.add(id);
    out.ids.push(...page);
    begin = last;
  }
  return out;
}

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
      const { x, activities } = await list(t, { page_size: WALK_PAGE_SIZE });
      const e = ids(activities);
      if (e.length === 0) skipEmpty(t);
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
      // the listing as a short walk reads it: whole when the walk reached its end, else what lies past its last id is unknown
      const w = await walk(t, 3);
      const all = w.ids;
      if (all.length < 2) t.skip('fewer than two activities listed');
      const judge = async ({ at, pageSize }: { at: number; pageSize: number }) => {
        const begin = all[at]!;
        const { x, activities } = await list(t, { begin_after_id: begin, page_size: pageSize });
        const got = ids(activities);
        t.expect(!got.includes(begin), `begin_after_id ${begin} lists that activity again`, { exchange: x });
        const expected = all.slice(at + 1, at + 1 + pageSize);
        const known = w.complete ? got.length : Math.min(got.length, expected.length);
        t.expect(got.length > 0 && JSON.stringify(got.slice(0, known)) === JSON.stringify(expected.slice(0, known)), `begin_after_id ${begin} lists ${JSON.stringify(got)}, not the continuation ${JSON.stringify(expected)}`, { exchange: x });
      };
      // the smallest page after the newest activity and the page that holds only the oldest one, every run
      await judge({ at: 0, pageSize: 1 });
      await judge({ at: all.length - 2, pageSize: 1 });
      await t.property(fc.record({ at: fc.nat({ max: all.length - 2 }), pageSize: fc.integer({ min: 1, max: 10 }) }), judge, { runs: t.scaledRuns(10), concurrent: true });
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
      const whole = (await list(t, { page_size: WALK_PAGE_SIZE })).activities.length;
      if (whole === 0) skipEmpty(t);
      const judge = async (pageSize: number) => {
        const { x, activities } = await list(t, { page_size: pageSize });
        t.expect(activities.length <= pageSize, `${activities.length} activities for page_size ${pageSize}`, { exchange: x });
      };
      // the smallest page size, and one below the count the wide page held (a page one short of it), every run
      await judge(1);
      if (whole > 1) await judge(whole - 1);
      await t.property(fc.integer({ min: 1, max: 60 }), judge, { runs: t.scaledRuns(10), concurrent: true });
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
      const { x, activities } = await list(t, { page_size: WALK_PAGE_SIZE });
      if (activities.length === 0) skipEmpty(t);
      for (const a of activities) {
        const kinds = KINDS.filter((k) => a[k] !== undefined && a[k] !== null);
        t.expect(kinds.length === 1, `activity ${String(a.event_id)} carries ${kinds.length === 0 ? 'none' : kinds.join(' and ')} of ${KINDS.join(', ')}`, { exchange: x });
      }
    },
  );

  conformance(
    {
      id: KNOWN_LISTED,
      title: 'lists every activity the target names (fixtures.activityIds) on a walk from the newest one',
      api: 'scan',
      operations: ['listActivities'],
      requirements: [KNOWN_LISTED],
    },
    async (t) => {
      const known = knownActivities(t) ?? t.skip('no fixtures.activityIds (event ids of activities the scan holds) is configured: nothing tells which activities the listing must hold');
      const w = await walk(t);
      const met = new Set(w.ids);
      const missing = known.filter((id) => !met.has(id));
      if (missing.length === 0) return;
      const last = w.pages[w.pages.length - 1]!;
      if (!w.complete && w.ids.length > 0) {
        t.skip(`${missing.length} of the ${known.length} activities of fixtures.activityIds (${missing.slice(0, 3).join(', ')}) are not among the ${w.ids.length} activities of ${w.pages.length} pages, where the walk stopped before an empty page`);
      }
      t.fail(`the listing${w.ids.length === 0 ? ' is empty: it' : `, walked to its end (${w.ids.length} activities),`} does not hold ${missing.length} of the ${known.length} activities of fixtures.activityIds: ${missing.slice(0, 5).join(', ')}`, { exchange: last });
    },
  );
});
