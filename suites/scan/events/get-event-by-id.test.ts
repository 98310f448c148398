import fc from 'fast-check';
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { discoverScan, isObj, lookedUpEvents, sameJson, type DiscoveredEvent, type ScanDiscovery } from '../../../harness/fixtures/scan.js';
import { invalidDamlValueEncoding } from '../../../generators/scan/DamlValueEncoding.js';
import { expectStatus, judgeBadRequests, judgeRejection } from '../../v0-http-checks.js';

type Obj = Record<string, unknown>;
type Looked = DiscoveredEvent & { body: Obj };

const str = (v: unknown) => typeof v === 'string';
// int64 values above 2^53 lose precision in JavaScript but are still integers
const int = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
const strs = (v: unknown) => Array.isArray(v) && v.every(str);
const ints = (v: unknown) => Array.isArray(v) && v.every(int);
const present = (v: unknown) => v !== undefined && v !== null;
const dateTime = (v: unknown) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && Number.isFinite(Date.parse(v));

const transactionOf = (b: Obj): Obj | undefined => (isObj(b.update) && 'events_by_id' in b.update ? b.update : undefined);
const reassignmentOf = (b: Obj): Obj | undefined => (isObj(b.update) && 'event' in b.update ? b.update : undefined);
const assignmentOf = (b: Obj): Obj | undefined => {
  const ev = reassignmentOf(b)?.event;
  return isObj(ev) && 'created_event' in ev ? ev : undefined;
};
const unassignmentOf = (b: Obj): Obj | undefined => {
  const ev = reassignmentOf(b)?.event;
  return isObj(ev) && !('created_event' in ev) ? ev : undefined;
};
const verdictOf = (b: Obj): Obj | undefined => (isObj(b.verdict) ? b.verdict : undefined);
const createdEventOf = (b: Obj): Obj | undefined => {
  const c = assignmentOf(b)?.created_event;
  return isObj(c) ? c : undefined;
};

/**
 * Applies `problem` to every looked-up event; the first event with a problem fails the check. Skips when no event of
 * the kind the rule is about was found (the `none` reason).
 */
async function everyEvent(t: CheckContext, problem: (b: Obj, e: Looked) => string | undefined | null, none: string): Promise<void> {
  const events = await lookedUpEvents(t);
  let judged = 0;
  for (const e of events) {
    const p = problem(e.body, e);
    if (p === null) continue;
    judged++;
    if (p !== undefined) t.fail(`update ${e.updateId}: ${p}`, e.exchange !== undefined ? { exchange: e.exchange } : {});
  }
  if (judged === 0) t.skip(none);
}

/**
 * Update ids a lookup must answer with 200: those discovery already looked up with 200, and the target's configured
 * fixtures.updateIds. An id only POST /v0/events lists (FACTS.md) that did not resolve is judged by
 * scan.list-events.update-ids-resolvable, not here.
 */
function resolvableIds(d: ScanDiscovery): { all: string[]; transaction: string[]; reassignment: string[]; verdict: string[] } {
  const ok = d.events.filter((e) => e.status === 200 || e.listed === undefined);
  const of = (k: 'transaction' | 'reassignment' | 'verdict') => ok.filter((e) => e.kinds.includes(k)).map((e) => e.updateId);
  return { all: ok.map((e) => e.updateId), transaction: of('transaction'), reassignment: of('reassignment'), verdict: of('verdict') };
}

const noId = (d: ScanDiscovery) => `no update id found: ${d.walkProblem ?? 'the event history is empty'}, or none that the walk listed resolved, and no fixtures.updateIds configured`;

function missing(o: Obj, fields: Array<[string, (v: unknown) => boolean, string]>): string | undefined {
  const bad = fields.filter(([f, ok]) => !ok(o[f])).map(([f, , what]) => `${f} (${what}, got ${JSON.stringify(o[f]) ?? 'nothing'})`);
  return bad.length > 0 ? `missing or mistyped: ${bad.join(', ')}` : undefined;
}

/** One rule every looked-up event record is held to: a check of its own, declared by declareEventRules. */
interface EventRule {
  id: string;
  title: string;
  requirements: string[];
  /** what is wrong with one event's record, undefined if nothing, null if the rule is not about this event */
  problem: (b: Obj, e: Looked) => string | undefined | null;
  /** why the check skips when the rule was about no event found */
  none: string;
}

/** Declares one scan check per rule, each applying its rule to every looked-up event (everyEvent). */
function declareEventRules(operations: string[], rules: EventRule[]): void {
  for (const rule of rules) {
    conformance({ id: rule.id, title: rule.title, api: 'scan', operations, requirements: rule.requirements }, (t) => everyEvent(t, rule.problem, rule.none));
  }
}

/** A rule's problem: the part of the record `partOf` picks (not about the event without one) lacks or mistypes a field. */
const fieldsOf = (partOf: (b: Obj) => Obj | undefined, fields: Array<[string, (v: unknown) => boolean, string]>) => (b: Obj): string | undefined | null => {
  const part = partOf(b);
  return part === undefined ? null : missing(part, fields);
};

const SAME_EVENT = 'scan.get-event-by-id.encodings-same-event';
/** the fields of a Scan event record that hold Daml values, the ones daml_value_encoding is about */
const VALUE_FIELDS = ['create_arguments', 'choice_argument', 'exercise_result'];

/** A record split into its Daml values (by where they sit) and the rest, the values taken out. */
function damlValues(body: Obj): { values: Map<string, unknown>; rest: unknown } {
  const values = new Map<string, unknown>();
  const walk = (v: unknown, path: string): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}[${i}]`));
    if (!isObj(v)) return v;
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      if (VALUE_FIELDS.includes(k)) values.set(`${path}.${k}`, x);
      else out[k] = walk(x, `${path}.${k}`);
    }
    return out;
  };
  return { values, rest: walk(body, 'body') };
}

/** every string inside a JSON value */
function stringsIn(v: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (depth > 64) return out;
  if (typeof v === 'string') out.add(v);
  else if (Array.isArray(v)) for (const x of v) stringsIn(x, out, depth + 1);
  else if (isObj(v)) for (const x of Object.values(v)) stringsIn(x, out, depth + 1);
  return out;
}

/** the party ids (name::fingerprint) and contract ids (00 and hex) a JSON value holds as strings */
const idsIn = (v: unknown): Set<string> => new Set([...stringsIn(v)].filter((s) => /^[^\s:]+::(1220)?[0-9a-f]{40,}$/.test(s) || /^00[0-9a-f]{64,}$/.test(s)));

/** where two JSON values first differ, for a failure message */
function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (sameJson(a, b)) return '';
  if (isObj(a) && isObj(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], `${path}.${k}`);
      if (d !== '') return d;
    }
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d !== '') return d;
    }
  }
  return `: at ${path || 'the top'}, ${JSON.stringify(a)?.slice(0, 120)} and ${JSON.stringify(b)?.slice(0, 120)}`;
}

describe('GET /v0/events/{update_id}', () => {
  conformance(
    {
      id: 'scan.get-event-by-id.schema',
      title: 'answers 200 with a Scan event record for every update id it holds (discovered and resolved, or configured)',
      api: 'scan',
      operations: ['getEventById'],
      requirements: ['scan.get-event-by-id.response-schema', 'scan.events.tree-event-shape'],
    },
    async (t) => {
      const d = await discoverScan(t);
      const ids = resolvableIds(d).all.slice(0, 100);
      if (ids.length === 0) t.skip(noId(d));
      for (let i = 0; i < ids.length; i += 16) {
        const xs = await Promise.all(ids.slice(i, i + 16).map((id) => t.call('getEventById', { params: { update_id: id } })));
        for (const x of xs) expectStatus(t, x, 200);
      }
    },
  );

  conformance(
    {
      id: 'scan.get-event-by-id.unknown-id',
      title: 'answers a 4xx with an error body for an update id it does not hold, 404 as FACTS.md gives',
      api: 'scan',
      operations: ['getEventById'],
      requirements: ['scan.get-event-by-id.unknown-id-not-found', 'scan.get-event-by-id.unknown-id-404'],
    },
    async (t) => {
      const hex = [...t.uniqueName('unknown-update')].map((c) => c.charCodeAt(0).toString(16)).join('').padEnd(64, '0').slice(0, 64);
      const x = await t.call('getEventById', { params: { update_id: `1220${hex}` } });
      // the error body is judged by the generic checks (scan.errors.error-body) on every 4xx
      await judgeRejection(t, x, { requirement: 'scan.get-event-by-id.unknown-id-not-found', badRequest: 'scan.get-event-by-id.unknown-id-404', statuses: [404], what: 'an update id scan does not hold' });
    },
  );

  conformance(
    {
      id: 'scan.get-event-by-id.encodings',
      title: 'accepts daml_value_encoding compact_json and protobuf_json',
      api: 'scan',
      operations: ['getEventById'],
      requirements: ['scan.get-event-by-id.encodings-accepted'],
    },
    async (t) => {
      const d = await discoverScan(t);
      const r = resolvableIds(d);
      const ids = [r.transaction[0], r.reassignment[0], r.verdict[0], r.all[0]].filter((x): x is string => x !== undefined);
      if (ids.length === 0) t.skip(noId(d));
      for (const id of new Set(ids)) {
        for (const enc of ['compact_json', 'protobuf_json']) {
          const x = await t.call('getEventById', { params: { update_id: id }, query: { daml_value_encoding: enc } });
          expectStatus(t, x, 200);
        }
      }
    },
  );

  conformance(
    {
      id: 'scan.get-event-by-id.default-encoding',
      title: 'answers without daml_value_encoding exactly as with compact_json',
      api: 'scan',
      operations: ['getEventById'],
      requirements: ['scan.get-event-by-id.default-encoding-compact'],
    },
    async (t) => {
      const r = resolvableIds(await discoverScan(t));
      const ids = [...new Set([...r.transaction.slice(0, 2), ...r.reassignment.slice(0, 2)])];
      if (ids.length === 0) t.skip('no transaction or reassignment found to compare encodings on');
      for (const id of ids) {
        const plain = await t.call('getEventById', { params: { update_id: id } });
        const compact = await t.call('getEventById', { params: { update_id: id }, query: { daml_value_encoding: 'compact_json' } });
        expectStatus(t, plain, 200, { requirement: 'scan.get-event-by-id.default-encoding-compact' });
        expectStatus(t, compact, 200);
        t.expect(sameJson(plain.json, compact.json), `update ${id}: the body without daml_value_encoding differs from the compact_json one`, { exchange: plain });
      }
    },
  );

  conformance(
    {
      id: 'scan.get-event-by-id.protobuf-same-event',
      title: 'answers with protobuf_json the event it answers with compact_json: the same fields outside the Daml values, and values naming the same parties and contracts',
      api: 'scan',
      operations: ['getEventById'],
      requirements: [SAME_EVENT],
    },
    async (t) => {
      const r = resolvableIds(await discoverScan(t));
      const ids = [...new Set([...r.transaction.slice(0, 6), ...r.reassignment.slice(0, 2)])];
      if (ids.length === 0) t.skip('no transaction or reassignment found to compare encodings on');
      let judged = 0;
      for (const id of ids) {
        const compact = await t.call('getEventById', { params: { update_id: id }, query: { daml_value_encoding: 'compact_json' } });
        const proto = await t.call('getEventById', { params: { update_id: id }, query: { daml_value_encoding: 'protobuf_json' } });
        expectStatus(t, compact, 200, { requirement: SAME_EVENT });
        expectStatus(t, proto, 200, { requirement: SAME_EVENT });
        if (!isObj(compact.json) || !isObj(proto.json)) continue;
        judged++;
        const a = damlValues(compact.json);
        const b = damlValues(proto.json);
        t.expect(sameJson(a.rest, b.rest), `update ${id}: outside its Daml values the protobuf_json answer differs from the compact_json one${firstDifference(a.rest, b.rest)}`, { exchange: proto });
        for (const [where, value] of a.values) {
          const other = b.values.get(where);
          const named = idsIn(value);
          const written = stringsIn(other);
          const lost = [...named].filter((x) => !written.has(x));
          const added = [...idsIn(other)].filter((x) => !stringsIn(value).has(x));
          t.expect(
            lost.length === 0 && added.length === 0,
            `update ${id}: ${where} names ${lost.length > 0 ? `${lost.slice(0, 3).join(', ')} in compact_json but not in protobuf_json` : `${added.slice(0, 3).join(', ')} in protobuf_json but not in compact_json`}`,
            { exchange: proto },
          );
        }
      }
      if (judged === 0) t.skip('no lookup answered a JSON object in both encodings');
    },
  );

  conformance(
    {
      id: 'scan.get-event-by-id.invalid-encoding',
      title: 'rejects any other daml_value_encoding with a 4xx status, 400 as Splice answers',
      api: 'scan',
      operations: ['getEventById'],
      requirements: ['scan.get-event-by-id.invalid-encoding-rejected', 'scan.errors.bad-request-400'],
    },
    async (t) => {
      const d = await discoverScan(t);
      const id = resolvableIds(d).all[0];
      if (id === undefined) t.skip(noId(d));
      const updateId: string = id ?? '';
      const rejected: Parameters<typeof judgeBadRequests>[2] = [];
      await t.property(invalidDamlValueEncoding(), async (enc) => {
        const x = await t.call('getEventById', { params: { update_id: updateId }, query: { daml_value_encoding: enc } });
        await judgeRejection(t, x, { requirement: 'scan.get-event-by-id.invalid-encoding-rejected', badRequest: 'scan.errors.bad-request-400', what: `GET /v0/events/{update_id} with daml_value_encoding ${JSON.stringify(enc)}`, deferBadRequest: rejected });
      }, { concurrent: true });
      await judgeBadRequests(t, 'scan.errors.bad-request-400', rejected);
    },
  );

  declareEventRules(['getEventById'], [
    {
      id: 'scan.get-event-by-id.update-id',
      title: 'returns an update whose update_id is the requested one',
      requirements: ['scan.get-event-by-id.update-id-matches'],
      problem: (b, e) => (isObj(b.update) ? (b.update.update_id === e.updateId ? undefined : `update.update_id is ${JSON.stringify(b.update.update_id)}`) : null),
      none: 'no event with an update found',
    },
    {
      id: 'scan.get-event-by-id.verdict-update-id',
      title: 'returns a verdict whose update_id is the requested one',
      requirements: ['scan.get-event-by-id.verdict-update-id-matches'],
      problem: (b, e) => {
        const v = verdictOf(b);
        if (v === undefined) return null;
        return v.update_id === e.updateId ? undefined : `verdict.update_id is ${JSON.stringify(v.update_id)}`;
      },
      none: 'no event with a verdict found',
    },
    {
      id: 'scan.get-event-by-id.update-or-verdict',
      title: 'returns a transaction, a reassignment or a verdict for every event',
      requirements: ['scan.get-event-by-id.transaction-reassignment-or-verdict'],
      problem: (b) => {
        if (transactionOf(b) !== undefined || reassignmentOf(b) !== undefined || verdictOf(b) !== undefined) return undefined;
        return isObj(b.update) ? 'update is neither a transaction nor a reassignment, and there is no verdict' : 'update and verdict are both null';
      },
      none: 'no event found',
    },
    {
      id: 'scan.get-event-by-id.absent-parts-null',
      title: 'sends verdict, traffic_summary and app_activity_records as null when the event lacks them',
      requirements: ['scan.get-event-by-id.absent-parts-null'],
      problem: (b) => {
        const omitted = ['verdict', 'traffic_summary', 'app_activity_records'].filter((k) => !(k in b));
        return omitted.length > 0 ? `${omitted.join(', ')} omitted instead of null` : undefined;
      },
      none: 'no event found',
    },
  ]);

  conformance(
    {
      id: 'scan.events.verdict-stable',
      title: 'returns the identical verdict on repeated lookups of an update id',
      api: 'scan',
      operations: ['getEventById'],
      requirements: ['scan.events.verdict-stable'],
    },
    async (t) => {
      const events = (await lookedUpEvents(t)).filter((e) => verdictOf(e.body) !== undefined).slice(0, 12);
      if (events.length === 0) t.skip('no event with a verdict found');
      for (const e of events) {
        for (let k = 0; k < 2; k++) {
          const x = await t.call('getEventById', { params: { update_id: e.updateId } });
          expectStatus(t, x, 200, { requirement: 'scan.get-event-by-id.response-schema' });
          const again = isObj(x.json) ? x.json.verdict : undefined;
          t.expect(sameJson(again, e.body.verdict), `update ${e.updateId}: a repeated lookup returned another verdict: ${JSON.stringify(again)} after ${JSON.stringify(e.body.verdict)}`, { exchange: x });
        }
      }
    },
  );

  conformance(
    {
      id: 'scan.events.verdict-first-ingested',
      title: 'returns the first ingested verdict of an update the target names (fixtures.firstVerdict), not a later duplicate',
      api: 'scan',
      operations: ['getEventById'],
      requirements: ['scan.events.verdict-first-ingested'],
    },
    async (t) => {
      // De-duplication happens at ingestion, inside scan: only a target that knows which verdict came first for an
      // update (fixtures.firstVerdict: { updateId, verdict: { field: value } }) makes it observable.
      const f = t.fixture<unknown>('firstVerdict');
      const fixture = isObj(f) && typeof f.updateId === 'string' && isObj(f.verdict) && Object.keys(f.verdict).length > 0 ? { updateId: f.updateId, verdict: f.verdict } : undefined;
      if (fixture === undefined) {
        t.notObserved('scan.events.verdict-first-ingested', f === undefined
          ? 'no fixtures.firstVerdict ({ updateId, verdict: fields of the first verdict ingested for it }) is configured: which verdict came first is known only inside scan'
          : 'fixtures.firstVerdict is not { updateId: string, verdict: { field: value, ... } }');
        return;
      }
      const x = await t.call('getEventById', { params: { update_id: fixture.updateId } });
      expectStatus(t, x, 200, { requirement: 'scan.get-event-by-id.response-schema' });
      const verdict = isObj(x.json) ? x.json.verdict : undefined;
      t.expect(isObj(verdict), `update ${fixture.updateId}, whose first verdict fixtures.firstVerdict names, is answered without a verdict`, { exchange: x });
      // finalization_time may differ between scans (SPEC.md): compared only when the fixture gives it, for this scan
      const differing = Object.entries(fixture.verdict).filter(([k, v]) => !sameJson((verdict as Obj)[k], v));
      t.expect(
        differing.length === 0,
        `update ${fixture.updateId}: the verdict returned is not the first one ingested (fixtures.firstVerdict): ${differing.map(([k, v]) => `${k} ${JSON.stringify((verdict as Obj)[k])}, not ${JSON.stringify(v)}`).join('; ')}`,
        { exchange: x },
      );
    },
  );
});

describe('Scan event record (GET /v0/events/{update_id})', () => {
  declareEventRules(['getEventById', 'listEvents'], [
    {
      id: 'scan.events.transaction-shape',
      title: 'transactions carry every field of UpdateHistoryTransactionV2',
      requirements: ['scan.events.transaction-shape'],
      problem: fieldsOf(transactionOf, [
        ['update_id', str, 'string'],
        ['migration_id', int, 'integer'],
        ['workflow_id', str, 'string'],
        ['record_time', str, 'string'],
        ['synchronizer_id', str, 'string'],
        ['effective_at', str, 'string'],
        ['root_event_ids', strs, 'list of strings'],
        ['events_by_id', isObj, 'object'],
      ]),
      none: 'no transaction found',
    },
    {
      id: 'scan.events.reassignment-shape',
      title: 'reassignments carry update_id, a string offset (which may differ between nodes), record_time and an assignment or unassignment',
      requirements: ['scan.events.reassignment-shape'],
      problem: (b) => {
        const u = reassignmentOf(b);
        if (u === undefined) return null;
        const m = missing(u, [
          ['update_id', str, 'string'],
          ['offset', str, 'string'],
          ['record_time', str, 'string'],
        ]);
        if (m !== undefined) return m;
        const ev = u.event as Obj;
        return 'created_event' in ev || 'contract_id' in ev ? undefined : 'event is neither an assignment (created_event) nor an unassignment (contract_id)';
      },
      none: 'no reassignment found',
    },
    {
      id: 'scan.events.assignment-shape',
      title: 'assignments carry every field of an assignment',
      requirements: ['scan.events.assignment-shape'],
      problem: fieldsOf(assignmentOf, [
        ['submitter', str, 'string'],
        ['source_synchronizer', str, 'string'],
        ['target_synchronizer', str, 'string'],
        ['migration_id', int, 'integer'],
        ['unassign_id', str, 'string'],
        ['created_event', isObj, 'object'],
        ['reassignment_counter', int, 'integer'],
      ]),
      none: 'no assignment found',
    },
    {
      id: 'scan.events.unassignment-shape',
      title: 'unassignments carry every field of an unassignment',
      requirements: ['scan.events.unassignment-shape'],
      problem: fieldsOf(unassignmentOf, [
        ['submitter', str, 'string'],
        ['source_synchronizer', str, 'string'],
        ['migration_id', int, 'integer'],
        ['target_synchronizer', str, 'string'],
        ['unassign_id', str, 'string'],
        ['reassignment_counter', int, 'integer'],
        ['contract_id', str, 'string'],
      ]),
      none: 'no unassignment found',
    },
    {
      id: 'scan.events.created-event-shape',
      title: "an assignment's created_event carries every field of a created event",
      requirements: ['scan.events.created-event-shape'],
      problem: fieldsOf(createdEventOf, [
        ['event_type', str, 'string'],
        ['event_id', str, 'string'],
        ['contract_id', str, 'string'],
        ['template_id', str, 'string'],
        ['package_name', str, 'string'],
        ['create_arguments', isObj, 'object'],
        ['created_at', dateTime, 'date-time'],
        ['signatories', strs, 'list of strings'],
        ['observers', strs, 'list of strings'],
      ]),
      none: 'no assignment with a created_event found',
    },
    {
      id: 'scan.events.verdict-shape',
      title: 'verdicts carry every field of EventHistoryVerdict',
      requirements: ['scan.events.verdict-shape'],
      problem: fieldsOf(verdictOf, [
        ['update_id', str, 'string'],
        ['migration_id', int, 'integer'],
        ['domain_id', str, 'string'],
        ['record_time', str, 'string'],
        ['finalization_time', present, 'present'],
        ['submitting_parties', strs, 'list of strings'],
        ['submitting_participant_uid', str, 'string'],
        ['verdict_result', present, 'present'],
        ['mediator_group', int, 'integer'],
        ['transaction_views', isObj, 'object'],
      ]),
      none: 'no verdict found',
    },
    {
      id: 'scan.events.verdict-result-values',
      title: 'verdict_result is one of the three VERDICT_RESULT values',
      requirements: ['scan.events.verdict-result-values'],
      problem: (b) => {
        const v = verdictOf(b);
        if (v === undefined) return null;
        return ['VERDICT_RESULT_UNSPECIFIED', 'VERDICT_RESULT_ACCEPTED', 'VERDICT_RESULT_REJECTED'].includes(v.verdict_result as string) ? undefined : `verdict_result is ${JSON.stringify(v.verdict_result)}`;
      },
      none: 'no verdict found',
    },
    {
      id: 'scan.events.transaction-views-shape',
      title: 'transaction_views holds well-formed views, each with a string view_hash (empty for older data), and integer root_views',
      requirements: ['scan.events.transaction-views-shape'],
      problem: (b) => {
        const tv = verdictOf(b)?.transaction_views;
        if (!isObj(tv)) return null;
        if (!Array.isArray(tv.views)) return 'transaction_views.views is not a list';
        if (!ints(tv.root_views)) return `root_views is ${JSON.stringify(tv.root_views)}, not a list of integers`;
        for (const v of tv.views) {
          if (!isObj(v)) return 'a view is not an object';
          const m = missing(v, [
            ['view_id', int, 'integer'],
            ['informees', strs, 'list of strings'],
            ['confirming_parties', Array.isArray, 'list'],
            ['sub_views', ints, 'list of integers'],
            ['view_hash', str, 'string'],
          ]);
          if (m !== undefined) return `view ${JSON.stringify(v.view_id)}: ${m}`;
          for (const cp of v.confirming_parties as unknown[]) {
            if (!isObj(cp) || !strs(cp.parties) || !int(cp.threshold)) return `view ${String(v.view_id)}: confirming_parties entry ${JSON.stringify(cp)} lacks parties or an integer threshold`;
          }
        }
        return undefined;
      },
      none: 'no verdict with transaction_views found',
    },
    {
      id: 'scan.events.traffic-summary-shape',
      title: 'traffic_summary carries an integer total and envelope summaries',
      requirements: ['scan.events.traffic-summary-shape'],
      problem: (b) => {
        const s = b.traffic_summary;
        if (s === null || s === undefined) return null;
        if (!isObj(s) || !int(s.total_traffic_cost) || !Array.isArray(s.envelope_traffic_summaries)) return `traffic_summary ${JSON.stringify(s)} lacks an integer total_traffic_cost or envelope_traffic_summaries`;
        const bad = s.envelope_traffic_summaries.find((x) => !isObj(x) || !int(x.traffic_cost) || !ints(x.view_ids));
        return bad === undefined ? undefined : `envelope summary ${JSON.stringify(bad)} lacks an integer traffic_cost or integer view_ids`;
      },
      none: 'no event with a traffic_summary found',
    },
    {
      id: 'scan.events.app-activity-records-shape',
      title: 'app_activity_records carries an integer round_number and party/weight records',
      requirements: ['scan.events.app-activity-records-shape'],
      problem: (b) => {
        const a = b.app_activity_records;
        if (a === null || a === undefined) return null;
        if (!isObj(a) || !int(a.round_number) || !Array.isArray(a.records)) return `app_activity_records ${JSON.stringify(a)} lacks an integer round_number or records`;
        const bad = a.records.find((r) => !isObj(r) || !str(r.party) || !int(r.weight));
        return bad === undefined ? undefined : `record ${JSON.stringify(bad)} lacks a party or an integer weight`;
      },
      none: 'no event with app_activity_records found',
    },
    {
      id: 'scan.events.root-event-ids',
      title: 'every root_event_ids entry is a key of events_by_id',
      requirements: ['scan.events.root-event-ids-are-keys'],
      problem: (b) => {
        const u = transactionOf(b);
        if (u === undefined || !Array.isArray(u.root_event_ids) || !isObj(u.events_by_id)) return null;
        const stray = (u.root_event_ids as unknown[]).find((id) => typeof id !== 'string' || !(id in (u.events_by_id as Obj)));
        return stray === undefined ? undefined : `root event id ${JSON.stringify(stray)} is not a key of events_by_id`;
      },
      none: 'no transaction found',
    },
    {
      id: 'scan.events.child-event-ids',
      title: 'every child_event_ids entry is a key of the same events_by_id',
      requirements: ['scan.events.child-event-ids-are-keys'],
      problem: (b) => {
        const u = transactionOf(b);
        if (u === undefined || !isObj(u.events_by_id)) return null;
        const byId = u.events_by_id;
        for (const [id, ev] of Object.entries(byId)) {
          const children = isObj(ev) ? ev.child_event_ids : undefined;
          if (!Array.isArray(children)) continue;
          const stray = children.find((c) => typeof c !== 'string' || !(c in byId));
          if (stray !== undefined) return `event ${id} names child ${JSON.stringify(stray)}, which is not a key of events_by_id`;
        }
        return undefined;
      },
      none: 'no transaction found',
    },
    {
      id: 'scan.events.tree-connected',
      title: 'every event of events_by_id is a root or the child of another event, and a transaction with events has a root',
      requirements: ['scan.events.tree-connected'],
      problem: (b) => {
        const u = transactionOf(b);
        if (u === undefined || !isObj(u.events_by_id) || !Array.isArray(u.root_event_ids)) return null;
        const byId = u.events_by_id;
        const ids = Object.keys(byId);
        if (ids.length > 0 && u.root_event_ids.length === 0) return `root_event_ids is empty, though events_by_id holds ${ids.length} events`;
        const named = new Set<unknown>(u.root_event_ids);
        for (const ev of Object.values(byId)) if (isObj(ev) && Array.isArray(ev.child_event_ids)) for (const c of ev.child_event_ids) named.add(c);
        const orphan = ids.find((id) => !named.has(id));
        return orphan === undefined ? undefined : `event ${orphan} of events_by_id is neither in root_event_ids nor in any event's child_event_ids`;
      },
      none: 'no transaction found',
    },
    {
      id: 'scan.events.view-ids',
      title: "a verdict's root_views and sub_views name views it lists, none its own sub view, and every view is a root or a sub view",
      requirements: ['scan.events.view-ids-consistent'],
      problem: (b) => {
        const tv = verdictOf(b)?.transaction_views;
        if (!isObj(tv) || !Array.isArray(tv.views) || !Array.isArray(tv.root_views)) return null;
        const views = tv.views.filter(isObj);
        const ids = new Set(views.map((v) => v.view_id));
        const strayRoot = tv.root_views.find((r) => !ids.has(r));
        if (strayRoot !== undefined) return `root_views names view ${JSON.stringify(strayRoot)}, which transaction_views.views does not list`;
        if (views.length > 0 && tv.root_views.length === 0) return `root_views is empty, though ${views.length} views are listed`;
        const named = new Set<unknown>(tv.root_views);
        for (const v of views) {
          const subs = Array.isArray(v.sub_views) ? v.sub_views : [];
          const stray = subs.find((s) => !ids.has(s));
          if (stray !== undefined) return `view ${JSON.stringify(v.view_id)} names sub view ${JSON.stringify(stray)}, which transaction_views.views does not list`;
          if (subs.includes(v.view_id)) return `view ${JSON.stringify(v.view_id)} names itself as its sub view`;
          for (const s of subs) named.add(s);
        }
        const orphan = views.find((v) => !named.has(v.view_id));
        return orphan === undefined ? undefined : `view ${JSON.stringify(orphan.view_id)} is neither in root_views nor a sub view of another view`;
      },
      none: 'no verdict with transaction_views found',
    },
    {
      id: 'scan.events.record-time-microseconds',
      title: "a transaction's record_time is ISO-8601 with microsecond precision",
      requirements: ['scan.events.record-time-microseconds'],
      problem: (b) => {
        const u = transactionOf(b);
        if (u === undefined) return null;
        const ok = typeof u.record_time === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/.test(u.record_time) && Number.isFinite(Date.parse(u.record_time));
        return ok ? undefined : `record_time ${JSON.stringify(u.record_time)} is not an ISO-8601 timestamp with six fractional digits`;
      },
      none: 'no transaction found',
    },
    {
      id: 'scan.events.integer-fields',
      title: 'int64 and int32 fields are JSON integers',
      requirements: ['scan.events.integer-fields'],
      problem: (b) => {
        const bad: string[] = [];
        const need = (where: string, v: unknown) => {
          if (v !== undefined && !int(v)) bad.push(`${where} = ${JSON.stringify(v)}`);
        };
        need('update.migration_id', transactionOf(b)?.migration_id);
        for (const ev of [assignmentOf(b), unassignmentOf(b)]) {
          need('event.migration_id', ev?.migration_id);
          need('event.reassignment_counter', ev?.reassignment_counter);
        }
        const v = verdictOf(b);
        need('verdict.migration_id', v?.migration_id);
        need('verdict.mediator_group', v?.mediator_group);
        const tv = isObj(v?.transaction_views) ? (v!.transaction_views as Obj) : undefined;
        for (const r of Array.isArray(tv?.root_views) ? tv!.root_views : []) need('root_views[]', r);
        for (const view of Array.isArray(tv?.views) ? tv!.views : []) {
          if (!isObj(view)) continue;
          need('view_id', view.view_id);
          for (const s of Array.isArray(view.sub_views) ? view.sub_views : []) need('sub_views[]', s);
          for (const cp of Array.isArray(view.confirming_parties) ? view.confirming_parties : []) if (isObj(cp)) need('threshold', cp.threshold);
        }
        return bad.length > 0 ? `not JSON integers: ${bad.join(', ')}` : undefined;
      },
      none: 'no event found',
    },
    {
      id: 'scan.events.external-hash-omitted',
      title: 'a transaction without an external hash omits external_transaction_hash',
      requirements: ['scan.events.external-hash-omitted-when-null'],
      problem: (b) => {
        const u = transactionOf(b);
        if (u === undefined) return null;
        return u.external_transaction_hash === null ? 'external_transaction_hash is sent as null instead of being omitted' : undefined;
      },
      none: 'no transaction found',
    },
  ]);
});
