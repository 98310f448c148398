/**
 * Planted faults of scan's event history (GET /v0/events/{update_id}, POST /v0/events). Each one rewrites the
 * rendered event so that exactly one rule of the Scan event record breaks; `applyEventFaults` is the single hook.
 */
import { registerFaults, type FaultSet } from '../faults.js';

const F = {
  transactionShape: 'scan-events-transaction-effective-at-missing',
  reassignmentShape: 'scan-events-reassignment-record-time-missing',
  assignmentShape: 'scan-events-assignment-unassign-id-missing',
  unassignmentShape: 'scan-events-unassignment-submitter-missing',
  createdEventShape: 'scan-events-created-event-observers-missing',
  verdictShape: 'scan-events-verdict-domain-id-missing',
  verdictResult: 'scan-events-verdict-result-lowercase',
  viewsShape: 'scan-events-view-threshold-missing',
  emptyViewHash: 'scan-events-empty-view-hash-null',
  trafficShape: 'scan-events-traffic-cost-string',
  activityShape: 'scan-events-activity-weight-fraction',
  rootIds: 'scan-events-root-id-outside',
  childIds: 'scan-events-child-id-outside',
  recordTime: 'scan-events-record-time-millis',
  integers: 'scan-events-mediator-group-string',
  externalHash: 'scan-events-external-hash-null',
  nullRequired: 'scan-events-transaction-synchronizer-id-null',
  counterZero: 'scan-events-counter-starts-at-zero',
  counterPair: 'scan-events-assign-counter-off-by-one',
  counterIncreases: 'scan-events-counter-repeats',
  singleVerdict: 'scan-events-listing-serves-rejected-verdict',
  laterVerdict: 'scan-events-later-duplicate-verdict-returned',
  stableVerdict: 'scan-events-verdict-restamped',
  offset: 'scan-events-reassignment-offset-number',
  listSchema: 'scan-list-events-events-missing',
  listPageSize: 'scan-list-events-page-size-max-500',
  migrationBeyondInt64: 'scan-list-events-migration-beyond-int64-accepted',
  resolvable: 'scan-events-migration-1-not-found',
  getSchema: 'scan-get-event-tree-event-type-number',
  unknownId: 'scan-get-event-unknown-id-200',
  unknownId400: 'scan-get-event-unknown-id-400',
  encodings: 'scan-get-event-protobuf-rejected',
  defaultEncoding: 'scan-get-event-default-protobuf',
  invalidEncoding: 'scan-get-event-invalid-encoding-ignored',
  updateId: 'scan-get-event-update-id-mismatch',
  verdictUpdateId: 'scan-get-event-verdict-update-id-mismatch',
  verdictOnlyEmpty: 'scan-get-event-verdict-only-empty',
  nullPartsOmitted: 'scan-get-event-null-parts-omitted',
  assignedCreatedAt: 'scan-events-assigned-contract-created-later',
  noSignatories: 'scan-events-created-events-without-signatories',
  protobufContractIds: 'scan-get-event-protobuf-contract-ids-empty',
  treeOrphan: 'scan-events-archive-orphaned',
  viewOrphan: 'scan-events-sub-views-dropped',
  sameSynchronizer: 'scan-events-reassigned-to-same-synchronizer',
  cursorIncluded: 'scan-list-events-after-lists-cursor-update',
  pageOneShort: 'scan-list-events-page-one-short',
} as const;
export const SCAN_EVENT_FAULTS = F;

registerFaults([
  { name: F.transactionShape, requirement: 'scan.events.transaction-shape', description: 'transactions come without effective_at' },
  { name: F.reassignmentShape, requirement: 'scan.events.reassignment-shape', description: 'reassignment updates come without record_time' },
  { name: F.assignmentShape, requirement: 'scan.events.assignment-shape', description: 'assignments come without unassign_id' },
  { name: F.unassignmentShape, requirement: 'scan.events.unassignment-shape', description: 'unassignments come without submitter' },
  { name: F.createdEventShape, requirement: 'scan.events.created-event-shape', description: "an assignment's created_event comes without observers" },
  { name: F.verdictShape, requirement: 'scan.events.verdict-shape', description: 'verdicts come without domain_id' },
  { name: F.verdictResult, requirement: 'scan.events.verdict-result-values', description: 'verdict_result is rendered in lower case (accepted)' },
  { name: F.viewsShape, requirement: 'scan.events.transaction-views-shape', description: 'confirming_parties entries come without threshold' },
  { name: F.emptyViewHash, requirement: 'scan.events.transaction-views-shape', description: 'the empty view_hash of older data is rendered as null instead of the empty string' },
  { name: F.trafficShape, requirement: 'scan.events.traffic-summary-shape', description: 'total_traffic_cost is rendered as a string' },
  { name: F.activityShape, requirement: 'scan.events.app-activity-records-shape', description: 'app activity record weights are fractions' },
  { name: F.rootIds, requirement: 'scan.events.root-event-ids-are-keys', description: 'root_event_ids name an event id that events_by_id lacks' },
  { name: F.childIds, requirement: 'scan.events.child-event-ids-are-keys', description: 'child_event_ids name an event id outside events_by_id' },
  { name: F.recordTime, requirement: 'scan.events.record-time-microseconds', description: "a transaction's record_time has millisecond precision" },
  { name: F.integers, requirement: 'scan.events.integer-fields', description: 'mediator_group is rendered as a string' },
  { name: F.externalHash, requirement: 'scan.events.external-hash-omitted-when-null', description: 'external_transaction_hash is sent as null when absent' },
  { name: F.nullRequired, requirement: 'scan.events.transaction-shape', description: 'every transaction carries synchronizer_id as null (a required field sent as null, where Splice sends null only for unset optional ones)' },
  { name: F.counterZero, requirement: 'scan.events.counter-zero-at-creation', description: 'reassignment counters are one lower (the first unassignment carries 0)' },
  { name: F.counterPair, requirement: 'scan.events.counter-equal-on-pair', description: 'assignments carry their unassignment counter plus one' },
  { name: F.counterIncreases, requirement: 'scan.events.counter-increases', description: 'a second unassignment (and its assignment) repeats counter 1' },
  { name: F.laterVerdict, requirement: 'scan.events.verdict-first-ingested', description: 'the later duplicate verdict of an update (REJECTED, dropped at ingestion as built) replaces the first one: GET and POST /v0/events serve it' },
  { name: F.singleVerdict, requirement: 'scan.events.verdict-single-per-update', description: 'POST /v0/events serves the rejected duplicate verdict where GET serves the stored one' },
  { name: F.stableVerdict, requirement: 'scan.events.verdict-stable', description: "a looked-up verdict's finalization_time is re-stamped on every read" },
  { name: F.offset, requirement: 'scan.events.reassignment-shape', description: 'a reassignment offset is rendered as a JSON number instead of a string' },
  { name: F.listSchema, requirement: 'scan.list-events.response-schema', description: 'POST /v0/events answers {items} instead of {events}' },
  { name: F.listPageSize, requirement: 'scan.list-events.page-size-range-accepted', description: 'POST /v0/events rejects page_size above 500 with 400' },
  { name: F.migrationBeyondInt64, requirement: 'scan.derived.out-of-range-rejected', description: 'POST /v0/events takes an after_migration_id beyond the int64 range (10^19) and lists from there instead of rejecting it with 400' },
  { name: F.resolvable, requirement: 'scan.list-events.update-ids-resolvable', description: 'GET /v0/events/{update_id} answers 404 for updates of migration 1 that POST /v0/events lists' },
  { name: F.getSchema, requirement: 'scan.events.tree-event-shape', description: 'GET /v0/events/{update_id} renders tree event_type as a number' },
  { name: F.unknownId, requirement: 'scan.get-event-by-id.unknown-id-not-found', description: 'an unknown update id is answered 200 with every part null' },
  { name: F.unknownId400, requirement: 'scan.get-event-by-id.unknown-id-404', description: 'an unknown update id is answered 400 {error} (a rejection, but not the 404 real scans answer)' },
  { name: F.encodings, requirement: 'scan.get-event-by-id.encodings-accepted', description: 'daml_value_encoding=protobuf_json is rejected with 400' },
  { name: F.defaultEncoding, requirement: 'scan.get-event-by-id.default-encoding-compact', description: 'without daml_value_encoding, values come in protobuf_json' },
  { name: F.invalidEncoding, requirement: 'scan.get-event-by-id.invalid-encoding-rejected', description: 'an unknown daml_value_encoding falls back to compact_json (200)' },
  { name: F.updateId, requirement: 'scan.get-event-by-id.update-id-matches', description: 'a looked-up transaction carries another update_id' },
  { name: F.verdictUpdateId, requirement: 'scan.get-event-by-id.verdict-update-id-matches', description: "a looked-up verdict-only event's verdict carries another update_id" },
  { name: F.verdictOnlyEmpty, requirement: 'scan.get-event-by-id.transaction-reassignment-or-verdict', description: 'a looked-up verdict-only event comes with update and verdict both null' },
  { name: F.nullPartsOmitted, requirement: 'scan.get-event-by-id.absent-parts-null', description: 'a looked-up event omits an absent traffic_summary instead of sending null' },
  { name: F.assignedCreatedAt, requirement: 'scan.events.assignment-created-event-matches', description: "an assignment's created_event carries a created_at one second later than the contract's creation" },
  { name: F.noSignatories, requirement: 'scan.events.created-event-signatories-non-empty', description: 'every created event, in transactions and assignments alike, comes with an empty signatories list' },
  { name: F.protobufContractIds, requirement: 'scan.get-event-by-id.encodings-same-event', description: 'with daml_value_encoding=protobuf_json, every contract id inside a Daml value is written as the empty string' },
  { name: F.treeOrphan, requirement: 'scan.events.tree-connected', description: "a transaction's exercised events name no children, so the events they caused hang in events_by_id under no root or parent" },
  { name: F.viewOrphan, requirement: 'scan.events.view-ids-consistent', description: "a verdict's views name no sub views, so every view but the root ones is named by nothing" },
  { name: F.sameSynchronizer, requirement: 'scan.events.reassignment-between-synchronizers', description: 'every reassignment, unassignment and assignment alike, names its source synchronizer as its target' },
  { name: F.cursorIncluded, requirement: 'scan.list-events.after-cursor', description: 'POST /v0/events after a cursor lists the update at the cursor itself again, first on the page' },
  { name: F.pageOneShort, requirement: 'scan.list-events.after-cursor', description: 'every page of POST /v0/events holds one update fewer than page_size (page_size 1: an empty page while updates remain)' },
]);

/** Rewrites the page POST /v0/events lists (`listed`, taken from `all` after the cursor) according to the switched-on faults. */
export function listEventFaults<E extends { migrationId: number; recordMicros: number }>(
  all: readonly E[],
  listed: E[],
  after: { migrationId: number; recordMicros: number } | undefined,
  pageSize: number,
  faults: FaultSet,
): E[] {
  let out = listed;
  if (faults.has(F.cursorIncluded) && after !== undefined) {
    const at = all.filter((e) => e.migrationId === after.migrationId && e.recordMicros === after.recordMicros);
    out = [...at, ...out].slice(0, pageSize);
  }
  if (faults.has(F.pageOneShort)) out = out.slice(0, pageSize - 1);
  return out;
}

type Obj = Record<string, unknown>;
let restamps = 0;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface EventFaultContext {
  faults: FaultSet;
  /** 'get': GET /v0/events/{id}; 'list': POST /v0/events */
  mode: 'get' | 'list';
  /** the verdict rejected as a duplicate at ingestion for this update, if any */
  rejectedVerdict?: unknown;
  /** the daml_value_encoding the values were rendered in */
  encoding?: string;
}

/** a protobuf_json Daml value with every contract id in it written empty */
function blankContractIds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(blankContractIds);
  if (!isObj(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'contractId' ? '' : blankContractIds(x)]));
}

/** Rewrites one rendered event according to the switched-on faults (a no-op without them). */
export function applyEventFaults(body: Obj, c: EventFaultContext): Obj {
  const has = (n: string) => c.faults.has(n);
  const update = isObj(body.update) ? body.update : undefined;
  const verdict = isObj(body.verdict) ? body.verdict : undefined;
  if (update !== undefined && 'events_by_id' in update) {
    const events = update.events_by_id as Record<string, Obj>;
    if (has(F.transactionShape)) delete update.effective_at;
    if (has(F.rootIds)) update.root_event_ids = [...(update.root_event_ids as string[]), `${String(update.update_id)}:missing-root`];
    if (has(F.childIds)) {
      const ex = Object.values(events).find((e) => Array.isArray(e.child_event_ids));
      if (ex !== undefined) ex.child_event_ids = [...(ex.child_event_ids as string[]), '#elsewhere:99'];
    }
    if (has(F.recordTime) && typeof update.record_time === 'string') update.record_time = update.record_time.replace(/\.(\d{3})\d{3}Z$/, '.$1Z');
    if (has(F.externalHash) && !('external_transaction_hash' in update)) update.external_transaction_hash = null;
    if (has(F.nullRequired)) update.synchronizer_id = null;
    if (c.mode === 'get' && has(F.getSchema)) for (const e of Object.values(events)) e.event_type = 7;
    if (has(F.noSignatories)) for (const e of Object.values(events)) if (e.event_type === 'created_event') e.signatories = [];
    if (has(F.treeOrphan)) for (const e of Object.values(events)) if (Array.isArray(e.child_event_ids)) e.child_event_ids = [];
    if (c.encoding === 'protobuf_json' && has(F.protobufContractIds)) {
      for (const e of Object.values(events)) for (const k of ['create_arguments', 'choice_argument', 'exercise_result']) if (k in e) e[k] = blankContractIds(e[k]);
    }
    if (c.mode === 'get' && has(F.updateId)) update.update_id = `${String(update.update_id)}-other`;
  }
  if (update !== undefined && isObj(update.event)) {
    const ev = update.event;
    if (has(F.reassignmentShape)) delete update.record_time;
    if (has(F.offset) && typeof update.offset === 'string') update.offset = Number(update.offset);
    if (has(F.sameSynchronizer)) ev.target_synchronizer = ev.source_synchronizer;
    const counter = ev.reassignment_counter as number;
    if (has(F.counterZero)) ev.reassignment_counter = counter - 1;
    if (has(F.counterIncreases) && counter === 2) ev.reassignment_counter = 1;
    if ('created_event' in ev) {
      if (has(F.assignmentShape)) delete ev.unassign_id;
      if (has(F.counterPair)) ev.reassignment_counter = (ev.reassignment_counter as number) + 1;
      if (has(F.createdEventShape) && isObj(ev.created_event)) delete ev.created_event.observers;
      if (has(F.noSignatories) && isObj(ev.created_event)) ev.created_event.signatories = [];
      if (has(F.assignedCreatedAt) && isObj(ev.created_event) && typeof ev.created_event.created_at === 'string') {
        ev.created_event.created_at = ev.created_event.created_at.replace(/:(\d{2})\./, (_m, sec: string) => `:${String((Number(sec) + 1) % 60).padStart(2, '0')}.`);
      }
    } else if (has(F.unassignmentShape)) delete ev.submitter;
  }
  if (verdict !== undefined) {
    if (has(F.verdictShape)) delete verdict.domain_id;
    if (has(F.verdictResult) && typeof verdict.verdict_result === 'string') verdict.verdict_result = verdict.verdict_result.replace('VERDICT_RESULT_', '').toLowerCase();
    if (has(F.integers)) verdict.mediator_group = String(verdict.mediator_group);
    const views = (isObj(verdict.transaction_views) ? verdict.transaction_views.views : undefined) as Obj[] | undefined;
    for (const v of views ?? []) {
      if (has(F.viewsShape)) for (const cp of (v.confirming_parties as Obj[] | undefined) ?? []) delete cp.threshold;
      if (has(F.emptyViewHash) && v.view_hash === '') v.view_hash = null;
      if (has(F.viewOrphan)) v.sub_views = [];
    }
    if (c.mode === 'get' && has(F.stableVerdict)) verdict.finalization_time = new Date(Date.now() + restamps++).toISOString().replace('Z', '000Z');
    if (c.mode === 'get' && body.update === null && has(F.verdictUpdateId)) verdict.update_id = `${String(verdict.update_id)}-other`;
    if (c.mode === 'get' && body.update === null && has(F.verdictOnlyEmpty)) body.verdict = null;
  }
  if (c.mode === 'list' && has(F.singleVerdict) && c.rejectedVerdict !== undefined) body.verdict = structuredClone(c.rejectedVerdict);
  if (has(F.laterVerdict) && c.rejectedVerdict !== undefined) body.verdict = structuredClone(c.rejectedVerdict);
  if (isObj(body.traffic_summary) && has(F.trafficShape)) body.traffic_summary.total_traffic_cost = String(body.traffic_summary.total_traffic_cost);
  if (isObj(body.app_activity_records) && has(F.activityShape)) {
    for (const r of (body.app_activity_records.records as Obj[] | undefined) ?? []) r.weight = (r.weight as number) + 0.5;
  }
  if (c.mode === 'get' && has(F.nullPartsOmitted) && body.traffic_summary === null) delete body.traffic_summary;
  return body;
}
