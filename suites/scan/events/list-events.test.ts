import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { discoverScan, isObj, sameJson, type DiscoveredEvent } from '../../../harness/fixtures/scan.js';
import { pageLimitWithBounds } from '../../../generators/scan/PageLimits.js';
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
      title: 'accepts every page_size from 1 to 1000',
      api: 'scan',
      operations: ['listEvents'],
      requirements: ['scan.list-events.page-size-range-accepted'],
    },
    async (t) => {
      await t.property(
        pageLimitWithBounds(),
        async (pageSize) => {
          const x = await t.call('listEvents', { json: { page_size: pageSize } });
          expectStatus(t, x, 200);
          const events = (x.json as { events?: unknown[] } | undefined)?.events;
          t.expect(!Array.isArray(events) || events.length <= pageSize, `${events?.length} events for page_size ${pageSize}`, { exchange: x });
        },
        { runs: t.scaledRuns(12), concurrent: true },
      );
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
