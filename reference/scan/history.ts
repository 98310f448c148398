/**
 * Scan's deterministic event history: transactions, reassignments (unassign/assign pairs) and mediator verdicts, with
 * traffic summaries and app activity records. An event is keyed by update id and bears a transaction, a reassignment,
 * a verdict, or a transaction and a verdict. Verdicts are de-duplicated at ingestion: the first per update id is kept,
 * later ones are rejected (the seed makes one such attempt).
 */
import type { World } from '../world.js';
import { DAY_MS, dataClock } from '../data/clock.js';
import { contractId, decimal, hashHex, isoMicros, party, updateId } from '../data/seed.js';
import { PACKAGES, TEMPLATES } from '../data/templates.js';
import { encodeRecord, encodeValue, type DamlValueEncoding } from './values.js';

export type VerdictResult = 'VERDICT_RESULT_UNSPECIFIED' | 'VERDICT_RESULT_ACCEPTED' | 'VERDICT_RESULT_REJECTED';

export interface TransactionView {
  view_id: number;
  informees: string[];
  confirming_parties: { parties: string[]; threshold: number }[];
  sub_views: number[];
  view_hash: string;
}

export interface Verdict {
  update_id: string;
  migration_id: number;
  domain_id: string;
  record_time: string;
  finalization_time: string;
  submitting_parties: string[];
  submitting_participant_uid: string;
  verdict_result: VerdictResult;
  mediator_group: number;
  transaction_views: { views: TransactionView[]; root_views: number[] };
}

export interface TrafficSummary {
  total_traffic_cost: number;
  envelope_traffic_summaries: { traffic_cost: number; view_ids: number[] }[];
}

export interface AppActivityRecords {
  round_number: number;
  records: { party: string; weight: number }[];
}

interface CreatedEventRec {
  event_type: 'created_event';
  event_id: string;
  contract_id: string;
  template_id: string;
  package_name: string;
  create_arguments: Record<string, unknown>;
  created_at: string;
  signatories: string[];
  observers: string[];
}

interface ExercisedEventRec {
  event_type: 'exercised_event';
  event_id: string;
  contract_id: string;
  template_id: string;
  package_name: string;
  choice: string;
  choice_argument: unknown;
  child_event_ids: string[];
  exercise_result: unknown;
  consuming: boolean;
  acting_parties: string[];
  interface_id?: string;
}

type TreeEventRec = CreatedEventRec | ExercisedEventRec;

interface TransactionRec {
  kind: 'transaction';
  update_id: string;
  migration_id: number;
  workflow_id: string;
  record_time: string;
  synchronizer_id: string;
  effective_at: string;
  root_event_ids: string[];
  events_by_id: Record<string, TreeEventRec>;
  external_transaction_hash: string | null;
}

interface AssignmentRec {
  submitter: string;
  source_synchronizer: string;
  target_synchronizer: string;
  migration_id: number;
  unassign_id: string;
  created_event: CreatedEventRec;
  reassignment_counter: number;
}

interface UnassignmentRec {
  submitter: string;
  source_synchronizer: string;
  migration_id: number;
  target_synchronizer: string;
  unassign_id: string;
  reassignment_counter: number;
  contract_id: string;
}

interface ReassignmentRec {
  kind: 'reassignment';
  update_id: string;
  offset: string;
  record_time: string;
  event: { assignment: AssignmentRec } | { unassignment: UnassignmentRec };
}

export interface HistoryEvent {
  updateId: string;
  migrationId: number;
  recordMicros: number;
  update: TransactionRec | ReassignmentRec | null;
  trafficSummary: TrafficSummary | null;
  appActivityRecords: AppActivityRecords | null;
}

/** Verdicts by update id; only the first ingested verdict of an update is stored. */
export class VerdictStore {
  private readonly byUpdate = new Map<string, Verdict>();
  /** later verdicts that were rejected as duplicates */
  readonly rejected: Verdict[] = [];

  get(updateId: string): Verdict | undefined {
    return this.byUpdate.get(updateId);
  }

  get size(): number {
    return this.byUpdate.size;
  }

  /** true when stored, false when a verdict for the update id was already ingested (the newcomer is dropped) */
  ingest(v: Verdict): boolean {
    if (this.byUpdate.has(v.update_id)) {
      this.rejected.push(v);
      return false;
    }
    this.byUpdate.set(v.update_id, structuredClone(v));
    return true;
  }
}

export function ingestVerdict(store: VerdictStore, v: Verdict): boolean {
  return store.ingest(v);
}

/** Named update ids of the seed, for tests and suite writers. */
export const SCAN_FIXTURE_SEEDS = {
  /** migration 0: OpenMiningRound created; transaction without a verdict */
  transactionWithoutVerdict: 'm0-open-round',
  /** migration 0: AmuletRules_Transfer from alice to bob; transaction + ACCEPTED verdict + traffic + app activity */
  transactionWithVerdict: 'm0-transfer-1',
  /** migration 0: bob's amulet (created in m0-transfer-1) unassigned global -> private, counter 1 */
  unassignment: 'm0-unassign-1',
  /** the matching assignment, counter 1 */
  assignment: 'm0-assign-1',
  /** migration 0: a REJECTED verdict with no update (update null) and a traffic summary */
  verdictOnly: 'm0-rejected-1',
  /** migration 0: transfer with a verdict of older data (empty view_hash), no app activity */
  verdictWithEmptyViewHash: 'm0-transfer-2',
  /** migration 0: the amulet moved back private -> global, counter 2 */
  secondUnassignment: 'm0-unassign-2',
  secondAssignment: 'm0-assign-2',
  /** migration 0: ANS entry created; the seed re-ingests a REJECTED verdict for it, which is dropped (ACCEPTED stays) */
  duplicateVerdictAttempt: 'm0-ans-entry',
  /** migration 1: transfer with external_transaction_hash set */
  externalHash: 'm1-transfer-3',
  /** migration 1: a second verdict-only event */
  verdictOnly2: 'm1-rejected-2',
} as const;

export type ScanFixtureName = keyof typeof SCAN_FIXTURE_SEEDS;

export function scanFixtureIds(): Record<ScanFixtureName, string> {
  const out = {} as Record<ScanFixtureName, string>;
  for (const [k, v] of Object.entries(SCAN_FIXTURE_SEEDS)) out[k as ScanFixtureName] = updateId(v);
  return out;
}

/** number of filler tap transactions in migration 1 */
export const FILLER_COUNT = 24;

export class ScanHistory {
  readonly events: HistoryEvent[] = [];
  private readonly byId = new Map<string, HistoryEvent>();
  readonly verdicts = new VerdictStore();

  constructor(world: World) {
    new Seeder(world, this).run();
    this.events.sort((a, b) => a.migrationId - b.migrationId || a.recordMicros - b.recordMicros);
    for (const e of this.events) this.byId.set(e.updateId, e);
  }

  add(e: HistoryEvent): void {
    this.events.push(e);
  }

  get(updateId: string): HistoryEvent | undefined {
    return this.byId.get(updateId);
  }

  /** events strictly after (migrationId, recordMicros), ordered by (migration_id, record_time) */
  listAfter(after: { migrationId: number; recordMicros: number } | undefined, pageSize: number): HistoryEvent[] {
    const out: HistoryEvent[] = [];
    for (const e of this.events) {
      if (out.length >= pageSize) break;
      if (
        after !== undefined &&
        (e.migrationId < after.migrationId || (e.migrationId === after.migrationId && e.recordMicros <= after.recordMicros))
      ) {
        continue;
      }
      out.push(e);
    }
    return out;
  }

  render(e: HistoryEvent, enc: DamlValueEncoding): Record<string, unknown> {
    return {
      update: e.update === null ? null : renderUpdate(e.update, enc),
      verdict: structuredClone(this.verdicts.get(e.updateId) ?? null),
      traffic_summary: structuredClone(e.trafficSummary),
      app_activity_records: structuredClone(e.appActivityRecords),
    };
  }
}

function renderCreated(c: CreatedEventRec, enc: DamlValueEncoding): Record<string, unknown> {
  return { ...c, signatories: [...c.signatories], observers: [...c.observers], create_arguments: encodeRecord(c.create_arguments, enc) };
}

function renderUpdate(u: TransactionRec | ReassignmentRec, enc: DamlValueEncoding): Record<string, unknown> {
  if (u.kind === 'transaction') {
    const events: Record<string, unknown> = {};
    for (const [id, ev] of Object.entries(u.events_by_id)) {
      if (ev.event_type === 'created_event') events[id] = renderCreated(ev, enc);
      else {
        events[id] = {
          ...ev,
          child_event_ids: [...ev.child_event_ids],
          acting_parties: [...ev.acting_parties],
          // a choice not exercised through an interface: null, as Splice writes unset optional fields
          interface_id: ev.interface_id ?? null,
          choice_argument: encodeValue(ev.choice_argument, enc),
          exercise_result: encodeValue(ev.exercise_result, enc),
        };
      }
    }
    const out: Record<string, unknown> = {
      update_id: u.update_id,
      migration_id: u.migration_id,
      workflow_id: u.workflow_id,
      record_time: u.record_time,
      synchronizer_id: u.synchronizer_id,
      effective_at: u.effective_at,
      root_event_ids: [...u.root_event_ids],
      events_by_id: events,
    };
    if (u.external_transaction_hash !== null) out.external_transaction_hash = u.external_transaction_hash;
    return out;
  }
  // The event is the assignment or the unassignment itself (as in Splice's scan API: event is oneOf the two, told
  // apart by created_event or contract_id), not an object wrapping it.
  const event =
    'assignment' in u.event
      ? { ...u.event.assignment, created_event: renderCreated(u.event.assignment.created_event, enc) }
      : { ...u.event.unassignment };
  return { update_id: u.update_id, offset: u.offset, record_time: u.record_time, event };
}

/** Builds the seeded history in record-time order. */
class Seeder {
  private clock: number;
  /** midnight UTC of the server's start day (data/clock.ts): migration 0 began two days before, migration 1 one */
  private readonly dayMs: number;
  private step = 0;
  private offset = 100;
  private readonly alice: string;
  private readonly bob: string;
  private readonly dso: string;
  private readonly validator: string;
  private readonly featured: string;
  private readonly sync0: string;
  private readonly sync1: string;
  private readonly participantUid: string;
  private readonly sv1: string;

  constructor(
    world: World,
    private readonly h: ScanHistory,
  ) {
    this.dayMs = dataClock(world).dayMs;
    this.clock = (this.dayMs - 2 * DAY_MS) * 1000 + 123_456;
    this.alice = party(world, 'alice');
    this.bob = party(world, 'bob');
    this.dso = party(world, 'dso');
    this.validator = party(world, 'validator');
    this.featured = party(world, 'featured-app-1');
    this.sv1 = party(world, 'sv-1');
    this.sync0 = world.synchronizers[0]!;
    this.sync1 = world.synchronizers[1] ?? world.synchronizers[0]!;
    this.participantUid = world.participantId.replace(/^PAR::/, '');
  }

  private tick(): number {
    this.step++;
    this.clock += 1_000_000 + ((this.step * 7919) % 400_000) + 1;
    return this.clock;
  }

  private amuletArgs(owner: string, amount: number, round: number): Record<string, unknown> {
    return {
      dso: this.dso,
      owner,
      amount: { initialAmount: decimal(amount), createdAt: { number: String(round) }, ratePerRound: { rate: decimal(0.0000190259) } },
    };
  }

  private created(
    uid: string,
    node: number,
    seed: string,
    templateId: string,
    packageName: string,
    args: Record<string, unknown>,
    createdAt: string,
    signatories: string[],
    observers: string[],
  ): CreatedEventRec {
    return {
      event_type: 'created_event',
      event_id: `#${uid}:${node}`,
      contract_id: contractId(seed),
      template_id: templateId,
      package_name: packageName,
      create_arguments: args,
      created_at: createdAt,
      signatories,
      observers,
    };
  }

  private views(uid: string, informees: string[][], confirmers: string[][], emptyHash: boolean): Verdict['transaction_views'] {
    const views: TransactionView[] = informees.map((inf, v) => ({
      view_id: v,
      informees: inf,
      confirming_parties: (confirmers[v] ?? []).map((p) => ({ parties: [p], threshold: 1 })),
      sub_views: v + 1 < informees.length ? [v + 1] : [],
      view_hash: emptyHash ? '' : hashHex(`view:${uid}:${v}`),
    }));
    return { views, root_views: views.length > 0 ? [0] : [] };
  }

  private verdict(
    uid: string,
    migrationId: number,
    recordMicros: number,
    submitters: string[],
    result: VerdictResult,
    views: Verdict['transaction_views'],
  ): Verdict {
    return {
      update_id: uid,
      migration_id: migrationId,
      domain_id: this.sync0,
      record_time: isoMicros(recordMicros),
      finalization_time: isoMicros(recordMicros + 250_137),
      submitting_parties: submitters,
      submitting_participant_uid: this.participantUid,
      verdict_result: result,
      mediator_group: 0,
      transaction_views: views,
    };
  }

  private traffic(views: Verdict['transaction_views']): TrafficSummary {
    const env = views.views.map((v) => ({ traffic_cost: 1_200 + 317 * v.view_id + 11 * v.informees.length, view_ids: [v.view_id] }));
    return { total_traffic_cost: env.reduce((s, e) => s + e.traffic_cost, 0), envelope_traffic_summaries: env };
  }

  private transfer(seed: string, migrationId: number, opts: { activity: boolean; emptyHash: boolean; external: boolean; verdict: boolean }): string {
    const uid = updateId(seed);
    const t = this.tick();
    const at = isoMicros(t);
    const rulesCid = contractId('amulet-rules');
    const inputCid = contractId(`${seed}:input`);
    const out = this.created(uid, 2, `${seed}:out`, TEMPLATES.amulet, PACKAGES.amulet.name, this.amuletArgs(this.bob, 10, 100), at, [this.dso, this.bob], []);
    const change = this.created(uid, 3, `${seed}:change`, TEMPLATES.amulet, PACKAGES.amulet.name, this.amuletArgs(this.alice, 89.5, 100), at, [this.dso, this.alice], []);
    const root: ExercisedEventRec = {
      event_type: 'exercised_event',
      event_id: `#${uid}:0`,
      contract_id: rulesCid,
      template_id: TEMPLATES.amuletRules,
      package_name: PACKAGES.amulet.name,
      choice: 'AmuletRules_Transfer',
      choice_argument: {
        transfer: {
          sender: this.alice,
          provider: this.featured,
          inputs: [{ tag: 'InputAmulet', value: inputCid }],
          outputs: [{ receiver: this.bob, amount: decimal(10), receiverFeeRatio: decimal(0), lock: null }],
          beneficiaries: null,
        },
        context: { openMiningRound: contractId('open-mining-round:100'), featuredAppRight: contractId('featured-app-right:featured-app-1') },
        expectedDso: this.dso,
      },
      child_event_ids: [`#${uid}:1`, out.event_id, change.event_id],
      exercise_result: {
        round: { number: '100' },
        createdAmulets: [{ tag: 'TransferResultAmulet', value: out.contract_id }],
        senderChangeAmulet: change.contract_id,
        meta: null,
      },
      consuming: false,
      acting_parties: [this.alice],
    };
    const archive: ExercisedEventRec = {
      event_type: 'exercised_event',
      event_id: `#${uid}:1`,
      contract_id: inputCid,
      template_id: TEMPLATES.amulet,
      package_name: PACKAGES.amulet.name,
      choice: 'Archive',
      choice_argument: {},
      child_event_ids: [],
      exercise_result: {},
      consuming: true,
      acting_parties: [this.dso, this.alice],
    };
    this.addTransaction(uid, migrationId, t, {
      workflowId: '',
      effectiveMicros: t - 4_321,
      roots: [root.event_id],
      byId: { [root.event_id]: root, [archive.event_id]: archive, [out.event_id]: out, [change.event_id]: change },
      externalHash: opts.external ? hashHex(`external:${seed}`) : null,
      activity: opts.activity ? { round_number: 100, records: [{ party: this.featured, weight: 3 }, { party: this.validator, weight: 1 }] } : null,
    });
    if (opts.verdict) {
      const views = this.views(uid, [[this.alice, this.bob, this.dso], [this.alice, this.dso]], [[this.dso, this.alice], [this.alice]], opts.emptyHash);
      this.withVerdict(uid, this.verdict(uid, migrationId, t, [this.alice], 'VERDICT_RESULT_ACCEPTED', views));
    }
    return out.contract_id;
  }

  /** Adds a transaction on the first synchronizer, recorded at `t` (microseconds). */
  private addTransaction(
    uid: string,
    migrationId: number,
    t: number,
    o: { workflowId: string; effectiveMicros: number; roots: string[]; byId: Record<string, TreeEventRec>; externalHash: string | null; activity: AppActivityRecords | null },
  ): void {
    this.h.add({
      updateId: uid,
      migrationId,
      recordMicros: t,
      update: {
        kind: 'transaction',
        update_id: uid,
        migration_id: migrationId,
        workflow_id: o.workflowId,
        record_time: isoMicros(t),
        synchronizer_id: this.sync0,
        effective_at: isoMicros(o.effectiveMicros),
        root_event_ids: o.roots,
        events_by_id: o.byId,
        external_transaction_hash: o.externalHash,
      },
      trafficSummary: null,
      appActivityRecords: o.activity,
    });
  }

  private withVerdict(uid: string, v: Verdict): void {
    this.h.verdicts.ingest(v);
    const e = this.h.events[this.h.events.length - 1]!;
    if (e.updateId === uid) e.trafficSummary = this.traffic(v.transaction_views);
  }

  private simpleCreate(seed: string, migrationId: number, templateId: string, packageName: string, args: Record<string, unknown>, signatories: string[], choice: string | null, verdict: boolean, workflowId = ''): void {
    const uid = updateId(seed);
    const t = this.tick();
    const at = isoMicros(t);
    const byId: Record<string, TreeEventRec> = {};
    let root: string;
    if (choice === null) {
      const c = this.created(uid, 0, `${seed}:c`, templateId, packageName, args, at, signatories, []);
      byId[c.event_id] = c;
      root = c.event_id;
    } else {
      const c = this.created(uid, 1, `${seed}:c`, templateId, packageName, args, at, signatories, []);
      const ex: ExercisedEventRec = {
        event_type: 'exercised_event',
        event_id: `#${uid}:0`,
        contract_id: contractId('amulet-rules'),
        template_id: TEMPLATES.amuletRules,
        package_name: PACKAGES.amulet.name,
        choice,
        choice_argument: { receiver: signatories[signatories.length - 1]!, amount: decimal(25) },
        child_event_ids: [c.event_id],
        exercise_result: { amuletSum: { amulet: c.contract_id, round: { number: '101' } } },
        consuming: false,
        acting_parties: [signatories[signatories.length - 1]!],
      };
      byId[ex.event_id] = ex;
      byId[c.event_id] = c;
      root = ex.event_id;
    }
    this.addTransaction(uid, migrationId, t, { workflowId, effectiveMicros: t - 1_000, roots: [root], byId, externalHash: null, activity: null });
    if (verdict) {
      const submitter = signatories[signatories.length - 1]!;
      const views = this.views(uid, [[...new Set([submitter, this.dso])]], [[this.dso]], false);
      this.withVerdict(uid, this.verdict(uid, migrationId, t, [submitter], 'VERDICT_RESULT_ACCEPTED', views));
    }
  }

  private reassign(seedUn: string, seedAs: string, migrationId: number, cid: string, from: string, to: string, counter: number, createdAt: string, args: Record<string, unknown>): void {
    const unassignId = hashHex(`unassign:${seedUn}`);
    const tu = this.tick();
    const uidU = updateId(seedUn);
    this.h.add({
      updateId: uidU,
      migrationId,
      recordMicros: tu,
      update: {
        kind: 'reassignment',
        update_id: uidU,
        offset: String(this.offset++).padStart(18, '0'),
        record_time: isoMicros(tu),
        event: {
          unassignment: {
            submitter: this.bob,
            source_synchronizer: from,
            migration_id: migrationId,
            target_synchronizer: to,
            unassign_id: unassignId,
            reassignment_counter: counter,
            contract_id: cid,
          },
        },
      },
      trafficSummary: null,
      appActivityRecords: null,
    });
    const ta = this.tick();
    const uidA = updateId(seedAs);
    this.h.add({
      updateId: uidA,
      migrationId,
      recordMicros: ta,
      update: {
        kind: 'reassignment',
        update_id: uidA,
        offset: String(this.offset++).padStart(18, '0'),
        record_time: isoMicros(ta),
        event: {
          assignment: {
            submitter: this.bob,
            source_synchronizer: from,
            target_synchronizer: to,
            migration_id: migrationId,
            unassign_id: unassignId,
            created_event: {
              event_type: 'created_event',
              event_id: `#${uidA}:0`,
              contract_id: cid,
              template_id: TEMPLATES.amulet,
              package_name: PACKAGES.amulet.name,
              create_arguments: args,
              created_at: createdAt,
              signatories: [this.dso, this.bob],
              observers: [],
            },
            reassignment_counter: counter,
          },
        },
      },
      trafficSummary: null,
      appActivityRecords: null,
    });
  }

  private verdictOnly(seed: string, migrationId: number): void {
    const uid = updateId(seed);
    const t = this.tick();
    const views = this.views(uid, [[this.alice, this.dso]], [[this.dso, this.alice]], false);
    const v = this.verdict(uid, migrationId, t, [this.alice], 'VERDICT_RESULT_REJECTED', views);
    this.h.add({ updateId: uid, migrationId, recordMicros: t, update: null, trafficSummary: this.traffic(views), appActivityRecords: null });
    this.h.verdicts.ingest(v);
  }

  run(): void {
    const S = SCAN_FIXTURE_SEEDS;
    // migration 0
    this.simpleCreate(S.transactionWithoutVerdict, 0, TEMPLATES.openMiningRound, PACKAGES.amulet.name, { dso: this.dso, round: { number: '100' }, amuletPrice: decimal(0.005) }, [this.dso], null, false, 'dso-automation');
    const moved = this.transfer(S.transactionWithVerdict, 0, { activity: true, emptyHash: false, external: false, verdict: true });
    const movedTx = this.h.events[this.h.events.length - 1]!;
    const movedCreatedAt = movedTx.update !== null && movedTx.update.kind === 'transaction' ? movedTx.update.record_time : isoMicros(this.clock);
    const movedArgs = this.amuletArgs(this.bob, 10, 100);
    this.reassign(S.unassignment, S.assignment, 0, moved, this.sync0, this.sync1, 1, movedCreatedAt, movedArgs);
    this.verdictOnly(S.verdictOnly, 0);
    this.transfer(S.verdictWithEmptyViewHash, 0, { activity: false, emptyHash: true, external: false, verdict: true });
    this.reassign(S.secondUnassignment, S.secondAssignment, 0, moved, this.sync1, this.sync0, 2, movedCreatedAt, movedArgs);
    this.simpleCreate(
      S.duplicateVerdictAttempt,
      0,
      TEMPLATES.ansEntry,
      PACKAGES.ans.name,
      { user: this.alice, dso: this.dso, name: 'alice-history.unverified.cns', url: '', description: '', expiresAt: isoMicros((this.dayMs + 365 * DAY_MS) * 1000) },
      [this.dso, this.alice],
      'AnsRules_CollectInitialEntryPayment',
      true,
    );
    // a second verdict for the same update arrives (e.g. from another mediator feed): it must be dropped
    const dupId = updateId(S.duplicateVerdictAttempt);
    const first = this.h.verdicts.get(dupId)!;
    this.h.verdicts.ingest({ ...structuredClone(first), verdict_result: 'VERDICT_RESULT_REJECTED', finalization_time: isoMicros(this.clock + 9_000_000) });
    // migration 1 starts a day later
    this.clock = (this.dayMs - DAY_MS) * 1000 + 654_321;
    this.transfer(S.externalHash, 1, { activity: true, emptyHash: false, external: true, verdict: true });
    this.simpleCreate('m1-license', 1, TEMPLATES.validatorLicense, PACKAGES.amulet.name, { validator: this.validator, sponsor: this.sv1, dso: this.dso }, [this.dso], null, true);
    this.verdictOnly(S.verdictOnly2, 1);
    for (let k = 0; k < FILLER_COUNT; k++) {
      this.simpleCreate(`m1-filler-${k}`, 1, TEMPLATES.amulet, PACKAGES.amulet.name, this.amuletArgs(this.alice, 25, 101), [this.dso, this.alice], 'AmuletRules_DevNet_Tap', k % 4 !== 3);
    }
  }

}
