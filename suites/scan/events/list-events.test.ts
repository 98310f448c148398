import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { discoverScan, isObj, microsecondBefore, sameJson, scanMaxPageSize, type DiscoveredEvent } from '../../../harness/fixtures/scan.js';
import { pageLimitBounds, pageLimitWithBounds } from '../../../generators/scan/PageLimits.js';
import { BUSY_STATUSES, expectStatus, notBusy } from '../../v0-http-checks.js';

type Obj = Record<string, unknown>;

/** the events of the discovery walk, in walk order, with the body the walk gave (else the looked-up one) */
async function walked(t: CheckContext): Promise<Array<DiscoveredEvent & { e: Obj }>> {
  const d = await discoverScan(t);
  const out = d.events.flatMap((x) => {
    const e = x.listed ?? x.body;
    return e === undefined ? [] : [{ ...x, e }];
  });
  if (out.length === 0) t.skip(`no event found: ${d.walkProblem ?? 'the event history is empty'}, and no fixtures.updateIds configured`);
  return out;
}

interface Move {
  updateId: string;
  kind: 'unassign' | 'assign';
  contractId: string;
  unassignId: unknown;
  counter: unknown;
}

function moves(events: Array<{ updateId: string; e: Obj }>): Move[] {
  const out: Move[] = [];
  for (const { updateId, e } of events) {
    const u = isObj(e.update) ? e.update : undefined;
    const ev = isObj(u?.event) ? (u!.event as Obj) : undefined;
    if (ev === undefined) continue;
    if (isObj(ev.created_event) && typeof ev.created_event.contract_id === 'string') {
      out.push({ updateId, kind: 'assign', contractId: ev.created_event.contract_id, unassignId: ev.unassign_id, counter: ev.reassignment_counter });
    } else if (typeof ev.contract_id === 'string') {
      out.push({ updateId, kind: 'unassign', contractId: ev.contract_id, unassignId: ev.unassign_id, counter: ev.reassignment_counter });
    }
  }
  return out;
}

/** contract ids created by transactions of the walk, with the walk position of their creation */
function creations(events: Array<{ e: Obj }>): Map<string, number> {
  const out = new Map<string, number>();
  events.forEach(({ e }, i) => {
    const u = isObj(e.update) ? e.update : undefined;
    if (!isObj(u?.events_by_id)) return;
    for (const ev of Object.values(u!.events_by_id as Obj)) {
      if (isObj(ev) && typeof ev.contract_id === 'string' && 'create_arguments' in ev && !out.has(ev.contract_id)) out.set(ev.contract_id, i);
    }
  });
  return out;
}

describe('POST /v0/events', () => {
  conformance(
    {
      id: 'scan.list-events.schema',
      title: 'answers 200 with events, a list of Scan event records',
      api: 'scan',
      operations: ['listEvents'],
      requirements: ['scan.list-events.response-schema'],
    },
    async (t) => {
      const x = await t.call('listEvents', { json: { page_size: 10 } });
      expectStatus(t, x, 200);
      t.expect(Array.isArray((x.json as { events?: unknown } | undefined)?.events), 'the body has no events list', { exchange: x });
    },
  );

  conformance(
    {
      id: 'scan.list-events.page-size-range',
      title: "accepts every page_size from 1 to the scan's maximum page size (1000 unless configured)",
      api: 'scan',
      operations: ['listEvents'],
      requirements: ['scan.list-events.page-size-range-accepted'],
    },
    async (t) => {
      const max = scanMaxPageSize(t);
      const judge = async (pageSize: number) => {
        const x = await t.call('listEvents', { json: { page_size: pageSize } });
        expectStatus(t, x, 200);
        const events = (x.json as { events?: unknown[] } | undefined)?.events;
        t.expect(!Array.isArray(events) || events.length <= pageSize, `${events?.length} events for page_size ${pageSize}`, { exchange: x });
      };
      // the bounds every run (1 and the maximum), then random draws between them
      for (const pageSize of pageLimitBounds(max).valid) await judge(pageSize);
      await t.property(pageLimitWithBounds(max), judge, { runs: t.scaledRuns(12), concurrent: true });
    },
  );

  conformance(
    {
      id: 'scan.list-events.update-ids-resolvable',
      title: 'every listed update id is answered 200 by GET /v0/events/{update_id}',
      api: 'scan',
      operations: ['listEvents', 'getEventById'],
      requirements: ['scan.list-events.update-ids-resolvable'],
    },
    async (t) => {
      const events = (await walked(t)).filter((x) => x.listed !== undefined);
      if (events.length === 0) t.skip('POST /v0/events listed nothing');
      for (const x of events) {
        // a busy answer during discovery says nothing: asked again once
        if (x.status !== undefined && BUSY_STATUSES.includes(x.status)) {
          const again = await t.call('getEventById', { params: { update_id: x.updateId } });
          notBusy(t, again);
          x.status = again.status;
          x.exchange = again;
        }
        t.expect(x.status === 200, `update ${x.updateId} is listed by POST /v0/events but GET /v0/events/{update_id} answered ${x.status}`, x.exchange !== undefined ? { exchange: x.exchange } : {});
      }
    },
  );
});

describe('POST /v0/events: int64 bounds', () => {
  conformance(
    {
      id: 'scan.list-events.after-int64-bounds',
      title: 'rejects an after_migration_id beyond the int64 range with a 4xx',
      api: 'scan',
      operations: ['listEvents'],
      requirements: ['scan.derived.out-of-range-rejected'],
    },
    async (t) => {
      // after_migration_id is an int64 (FACTS.md's cursor; SPEC.md's migration_id int64): 10^19 and -10^19 lie beyond
      // it, written exactly in JSON (the bounds themselves cannot be: JSON numbers are sent as doubles)
      for (const migration of [1e19, -1e19]) {
        const x = await t.call('listEvents', { json: { page_size: 1, after: { after_migration_id: migration, after_record_time: '2020-01-01T00:00:00.000000Z' } } });
        notBusy(t, x);
        t.expect(x.status >= 400 && x.status < 500, `after_migration_id ${JSON.stringify(migration)}, beyond the int64 range, answered ${x.status}, not a 4xx`, { exchange: x });
      }
    },
  );
});

const KNOWN_LISTED = 'scan.list-events.known-listed';
/** the page size of each look-up by cursor: updates of one record time rarely number more */
const CURSOR_PAGE = 10;

describe('POST /v0/events: what must be listed', () => {
  conformance(
    {
      id: 'scan.list-events.known-listed',
      title: 'lists every update GET /v0/events/{update_id} answers, on the page that starts just before its record time',
      api: 'scan',
      operations: ['listEvents', 'getEventById'],
      requirements: [KNOWN_LISTED],
    },
    async (t) => {
      // the updates GET answers (discovered or fixtures.updateIds): each has a migration and a record time, and a
      // listing that starts one microsecond before it must hold it, whatever the walk from the start reached
      const d = await discoverScan(t);
      const known = d.events.filter((e) => e.status === 200 && e.body !== undefined).slice(0, 40);
      if (known.length === 0) t.skip(`no update is answered by GET /v0/events/{update_id}: ${d.walkProblem ?? 'the event history is empty'}, and no fixtures.updateIds configured`);
      let judged = 0;
      for (const e of known) {
        const u = isObj(e.body!.update) ? e.body!.update : undefined;
        const v = isObj(e.body!.verdict) ? e.body!.verdict : undefined;
        const ev = isObj(u?.event) ? (u!.event as Obj) : undefined;
        const migration = [u?.migration_id, ev?.migration_id, v?.migration_id].find((m) => typeof m === 'number');
        const time = [u?.record_time, v?.record_time].find((x) => typeof x === 'string') as string | undefined;
        const before = time !== undefined ? microsecondBefore(time) : undefined;
        if (typeof migration !== 'number' || before === undefined) continue;
        const x = await t.call('listEvents', { json: { page_size: CURSOR_PAGE, after: { after_migration_id: migration, after_record_time: before } } });
        notBusy(t, x);
        expectStatus(t, x, 200, { requirement: KNOWN_LISTED });
        const events = ((x.json as { events?: unknown } | undefined)?.events ?? []) as unknown[];
        const ids = events.filter(isObj).map((l) => (isObj(l.update) ? l.update.update_id : isObj(l.verdict) ? l.verdict.update_id : undefined));
        if (ids.includes(e.updateId)) {
          judged++;
          continue;
        }
        // a full page of updates of that same record time may hold it further on: nothing to judge then
        const times = events.filter(isObj).map((l) => (isObj(l.update) ? l.update.record_time : isObj(l.verdict) ? l.verdict.record_time : undefined));
        if (events.length >= CURSOR_PAGE && times.every((x) => x === time)) continue;
        judged++;
        t.fail(
          `update ${e.updateId} (migration ${migration}, record time ${time}) is answered by GET /v0/events/{update_id}, but POST /v0/events after ${before} lists ${events.length === 0 ? 'nothing' : `${events.length} other updates`}`,
          { exchange: x },
        );
      }
      if (judged === 0) t.skip('no known update carries a migration id and a record time to list it by');
    },
  );
});

/** a record time (scan writes six fractional digits and Z) in microseconds since the epoch; undefined if it does not parse */
function recordMicros(time: string): bigint | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(time);
  if (m === null) return undefined;
  const seconds = Date.parse(`${m[1]}Z`);
  return Number.isFinite(seconds) ? (BigInt(seconds) / 1000n) * 1_000_000n + BigInt(`${m[2] ?? ''}000000`.slice(0, 6)) : undefined;
}

interface Position {
  updateId: string;
  migration: number;
  time: string;
  micros: bigint;
}

/** where a Scan event record stands in the order POST /v0/events pages by: its migration id and record time */
function positionOf(e: Obj): Position | undefined {
  const u = isObj(e.update) ? e.update : undefined;
  const v = isObj(e.verdict) ? e.verdict : undefined;
  const ev = isObj(u?.event) ? (u!.event as Obj) : undefined;
  const updateId = [u?.update_id, v?.update_id].find((x) => typeof x === 'string') as string | undefined;
  const migration = [u?.migration_id, ev?.migration_id, v?.migration_id].find((m) => typeof m === 'number') as number | undefined;
  const time = [u?.record_time, v?.record_time].find((x) => typeof x === 'string') as string | undefined;
  const micros = time !== undefined ? recordMicros(time) : undefined;
  return updateId !== undefined && migration !== undefined && time !== undefined && micros !== undefined ? { updateId, migration, time, micros } : undefined;
}

/** -1, 0 or 1 as `a` stands before, with or after `b` */
const comparePositions = (a: Position, b: Position): number => (a.migration !== b.migration ? Math.sign(a.migration - b.migration) : a.micros < b.micros ? -1 : a.micros > b.micros ? 1 : 0);

const AFTER_CURSOR = 'scan.list-events.after-cursor';

describe('POST /v0/events: the page after a cursor', () => {
  conformance(
    {
      id: 'scan.list-events.after-cursor',
      title: 'lists, after a known update\'s migration and record time, the updates past it in order, neither the cursor\'s own nor earlier ones, and skips none',
      api: 'scan',
      operations: ['listEvents', 'getEventById'],
      requirements: [AFTER_CURSOR],
    },
    async (t) => {
      // the updates GET answers, in (migration id, record time) order: each is a cursor whose page is known in part
      const d = await discoverScan(t);
      const known = d.events
        .flatMap((e) => (e.status === 200 && e.body !== undefined ? [positionOf(e.body)] : []))
        .filter((p): p is Position => p !== undefined)
        .sort(comparePositions);
      if (known.length === 0) t.skip(`no update answered by GET /v0/events/{update_id} carries a migration id and a record time: ${d.walkProblem ?? 'the event history is empty'}, and no fixtures.updateIds configured`);
      const picks = [...new Set([0, known.length - 1, ...[1, 2, 3, 4, 5, 6].map((k) => Math.floor((known.length * k) / 7))])].sort((a, b) => a - b).map((i) => known[i]!);
      for (const cursor of picks) {
        // page_size 1 every run: a page one short of page_size is empty there
        for (const pageSize of [1, CURSOR_PAGE]) {
          const what = `POST /v0/events with page_size ${pageSize} after migration ${cursor.migration}, record time ${cursor.time} (update ${cursor.updateId})`;
          const x = await t.call('listEvents', { json: { page_size: pageSize, after: { after_migration_id: cursor.migration, after_record_time: cursor.time } } });
          notBusy(t, x);
          expectStatus(t, x, 200, { requirement: AFTER_CURSOR });
          const events = ((x.json as { events?: unknown } | undefined)?.events ?? []) as unknown[];
          const listed = events.filter(isObj).map(positionOf).filter((p): p is Position => p !== undefined);
          const again = listed.find((p) => p.updateId === cursor.updateId);
          t.expect(again === undefined, `${what} lists that update again: a page after a cursor holds only updates past it`, { exchange: x });
          const earlier = listed.find((p) => comparePositions(p, cursor) < 0);
          t.expect(earlier === undefined, `${what} lists update ${earlier?.updateId} of migration ${earlier?.migration}, record time ${earlier?.time}, which lies before the cursor`, { exchange: x });
          const back = listed.findIndex((p, i) => i > 0 && comparePositions(p, listed[i - 1]!) < 0);
          t.expect(back < 0, `${what} lists update ${listed[back]?.updateId} (${listed[back]?.time}) after ${listed[back - 1]?.updateId} (${listed[back - 1]?.time}): not in (migration id, record time) order`, { exchange: x });
          const past = known.filter((p) => comparePositions(p, cursor) > 0);
          t.expect(past.length === 0 || events.length > 0, `${what} lists nothing, though GET /v0/events/{update_id} answers update ${past[0]?.updateId} of migration ${past[0]?.migration}, record time ${past[0]?.time}, past the cursor`, { exchange: x });
          const last = listed[listed.length - 1];
          const ids = new Set(listed.map((p) => p.updateId));
          const skipped = last === undefined ? undefined : past.find((p) => comparePositions(p, last) < 0 && !ids.has(p.updateId));
          t.expect(skipped === undefined, `${what} skips update ${skipped?.updateId} of migration ${skipped?.migration}, record time ${skipped?.time}, which lies between the cursor and the page's last update ${last?.updateId}`, { exchange: x });
        }
      }
    },
  );
});

describe('Reassignment counters and verdicts across the event history', () => {
  const ops = ['getEventById', 'listEvents'];
  conformance(
    {
      id: 'scan.events.counter-equal-on-pair',
      title: 'an assignment carries the reassignment_counter of its unassignment',
      api: 'scan',
      operations: ops,
      requirements: ['scan.events.counter-equal-on-pair'],
    },
    async (t) => {
      const ms = moves(await walked(t));
      const unassigns = new Map(ms.filter((m) => m.kind === 'unassign').map((m) => [String(m.unassignId), m]));
      let pairs = 0;
      for (const a of ms.filter((m) => m.kind === 'assign')) {
        const u = unassigns.get(String(a.unassignId));
        if (u === undefined) continue;
        pairs++;
        t.expect(a.counter === u.counter, `assignment ${a.updateId} carries reassignment_counter ${JSON.stringify(a.counter)}, its unassignment ${u.updateId} ${JSON.stringify(u.counter)} (contract ${a.contractId})`);
      }
      if (pairs === 0) t.skip('no matching unassignment and assignment found in the event history');
    },
  );

  conformance(
    {
      id: 'scan.events.counter-increases',
      title: 'successive unassignments of a contract carry strictly increasing counters',
      api: 'scan',
      operations: ops,
      requirements: ['scan.events.counter-increases'],
    },
    async (t) => {
      const last = new Map<string, Move>();
      let successive = 0;
      for (const u of moves(await walked(t)).filter((m) => m.kind === 'unassign')) {
        const prev = last.get(u.contractId);
        if (prev !== undefined) {
          successive++;
          t.expect(
            typeof u.counter === 'number' && typeof prev.counter === 'number' && u.counter > prev.counter,
            `contract ${u.contractId}: unassignment ${u.updateId} carries reassignment_counter ${JSON.stringify(u.counter)} after ${JSON.stringify(prev.counter)} in ${prev.updateId}`,
          );
        }
        last.set(u.contractId, u);
      }
      if (successive === 0) t.skip('no contract unassigned twice found in the event history');
    },
  );

  conformance(
    {
      id: 'scan.events.counter-zero-at-creation',
      title: "a contract's first unassignment after its creation carries reassignment_counter 1",
      api: 'scan',
      operations: ops,
      requirements: ['scan.events.counter-zero-at-creation'],
    },
    async (t) => {
      const events = await walked(t);
      const created = creations(events);
      const seen = new Set<string>();
      let judged = 0;
      for (const u of moves(events).filter((m) => m.kind === 'unassign')) {
        if (seen.has(u.contractId)) continue;
        seen.add(u.contractId);
        if (!created.has(u.contractId)) continue;
        judged++;
        t.expect(u.counter === 1, `contract ${u.contractId}, created in the history, is first unassigned by ${u.updateId} with reassignment_counter ${JSON.stringify(u.counter)}`);
      }
      if (judged === 0) t.skip('no unassignment of a contract whose creation is in the event history found');
    },
  );

  conformance(
    {
      id: 'scan.events.assignment-created-event',
      title: "an assignment's created_event is the moved contract's: its unassignment's contract, with the created_at, signatories and observers of the contract's creation",
      api: 'scan',
      operations: ops,
      requirements: ['scan.events.assignment-created-event-matches'],
    },
    async (t) => {
      const events = await walked(t);
      // the created event of each contract created by a transaction of the walk (its first creation)
      const createdBy = new Map<string, { updateId: string; ev: Obj }>();
      for (const { updateId, e } of events) {
        const u = isObj(e.update) ? e.update : undefined;
        if (!isObj(u?.events_by_id)) continue;
        for (const ev of Object.values(u!.events_by_id as Obj)) {
          if (isObj(ev) && ev.event_type === 'created_event' && typeof ev.contract_id === 'string' && !createdBy.has(ev.contract_id)) createdBy.set(ev.contract_id, { updateId, ev });
        }
      }
      const ms = moves(events);
      const unassigns = new Map(ms.filter((m) => m.kind === 'unassign').map((m) => [String(m.unassignId), m]));
      // lists of parties are compared as sets: their order carries no meaning
      const same = (a: unknown, b: unknown) => (Array.isArray(a) && Array.isArray(b) ? sameJson([...new Set(a.map(String))].sort(), [...new Set(b.map(String))].sort()) : sameJson(a, b));
      let judged = 0;
      for (const { updateId, e } of events) {
        const ev = isObj(e.update) && isObj(e.update.event) ? (e.update.event as Obj) : undefined;
        const c = isObj(ev?.created_event) ? (ev!.created_event as Obj) : undefined;
        if (c === undefined || typeof c.contract_id !== 'string') continue;
        const u = unassigns.get(String(ev!.unassign_id));
        if (u !== undefined) {
          judged++;
          t.expect(c.contract_id === u.contractId, `assignment ${updateId} names unassign_id ${String(ev!.unassign_id)} of unassignment ${u.updateId}, which unassigned contract ${u.contractId}, but assigns contract ${c.contract_id}`);
        }
        const origin = createdBy.get(c.contract_id);
        if (origin === undefined) continue;
        judged++;
        const differing = ['created_at', 'signatories', 'observers'].filter((k) => !same(c[k], origin.ev[k]));
        t.expect(
          differing.length === 0,
          `assignment ${updateId} carries contract ${c.contract_id} with ${differing.map((k) => `${k} ${JSON.stringify(c[k])}`).join(', ')}, where its creation in update ${origin.updateId} has ${differing.map((k) => `${k} ${JSON.stringify(origin.ev[k])}`).join(', ')}`,
        );
      }
      if (judged === 0) t.skip('no assignment found whose unassignment or whose contract\'s creation is in the event history');
    },
  );

  conformance(
    {
      id: 'scan.events.reassignment-moves',
      title: 'a reassignment moves its contract to another synchronizer, and an assignment names the synchronizers of its unassignment',
      api: 'scan',
      operations: ops,
      requirements: ['scan.events.reassignment-between-synchronizers'],
    },
    async (t) => {
      const events = await walked(t);
      const unassigns = new Map<string, { updateId: string; ev: Obj }>();
      const reassignments: Array<{ updateId: string; ev: Obj }> = [];
      for (const { updateId, e } of events) {
        const ev = isObj(e.update) && isObj(e.update.event) ? (e.update.event as Obj) : undefined;
        if (ev === undefined || typeof ev.source_synchronizer !== 'string' || typeof ev.target_synchronizer !== 'string') continue;
        reassignments.push({ updateId, ev });
        if (!('created_event' in ev)) unassigns.set(String(ev.unassign_id), { updateId, ev });
      }
      if (reassignments.length === 0) t.skip('no reassignment with a source and a target synchronizer found in the event history');
      for (const { updateId, ev } of reassignments) {
        const kind = 'created_event' in ev ? 'assignment' : 'unassignment';
        t.expect(ev.source_synchronizer !== ev.target_synchronizer, `${kind} ${updateId} moves its contract from synchronizer ${String(ev.source_synchronizer)} to the same synchronizer`);
        const u = kind === 'assignment' ? unassigns.get(String(ev.unassign_id)) : undefined;
        if (u === undefined) continue;
        t.expect(
          u.ev.source_synchronizer === ev.source_synchronizer && u.ev.target_synchronizer === ev.target_synchronizer,
          `assignment ${updateId} moves from ${String(ev.source_synchronizer)} to ${String(ev.target_synchronizer)}, its unassignment ${u.updateId} from ${String(u.ev.source_synchronizer)} to ${String(u.ev.target_synchronizer)}`,
        );
      }
    },
  );

  conformance(
    {
      id: 'scan.events.created-event-signatories',
      title: 'every created event, in a transaction or an assignment, names at least one signatory',
      api: 'scan',
      operations: ops,
      requirements: ['scan.events.created-event-signatories-non-empty'],
    },
    async (t) => {
      const events = await walked(t);
      let judged = 0;
      for (const { updateId, e } of events) {
        const u = isObj(e.update) ? e.update : undefined;
        const created = [
          ...(isObj(u?.events_by_id) ? Object.values(u!.events_by_id as Obj).filter((ev): ev is Obj => isObj(ev) && ev.event_type === 'created_event') : []),
          ...(isObj(u?.event) && isObj((u!.event as Obj).created_event) ? [(u!.event as Obj).created_event as Obj] : []),
        ];
        for (const c of created) {
          if (!Array.isArray(c.signatories)) continue;
          judged++;
          t.expect(c.signatories.length > 0, `update ${updateId}: created event ${String(c.event_id)} of contract ${String(c.contract_id)} has no signatory`);
        }
      }
      if (judged === 0) t.skip('no created event with a signatories list found in the event history');
    },
  );

  conformance(
    {
      id: 'scan.events.verdict-single-per-update',
      title: 'POST /v0/events and GET /v0/events/{update_id} return the same single verdict per update',
      api: 'scan',
      operations: ops,
      requirements: ['scan.events.verdict-single-per-update'],
    },
    async (t) => {
      const events = await walked(t);
      // finalization_time is left out: re-stamping it is judged by scan.events.verdict-stable; this rule is about which verdict
      const core = (v: Obj): Obj => {
        const { finalization_time: _f, ...rest } = v;
        return rest;
      };
      const byUpdate = new Map<string, Obj>();
      let judged = 0;
      for (const x of events) {
        const seen = [x.listed?.verdict, x.body?.verdict].filter(isObj);
        for (const v of seen) {
          const id = String(v.update_id);
          const c = core(v);
          const before = byUpdate.get(id);
          judged++;
          t.expect(before === undefined || sameJson(before, c), `update ${id}: two different verdicts: ${JSON.stringify(before)} and ${JSON.stringify(c)}`, x.exchange !== undefined ? { exchange: x.exchange } : {});
          byUpdate.set(id, c);
        }
      }
      if (judged === 0) t.skip('no verdict found in the event history');
    },
  );
});
