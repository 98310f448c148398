/**
 * 409 while a contract of a choice context is being reassigned (SPEC.md, States and transitions): the check moves an
 * instruction through the ledger API (unassign, then assign) and asks the registry in between and after. It needs a
 * ledger target next to the registry target, and a ledger user who can act as a stakeholder of the instruction
 * (registry fixtures reassignmentUser and reassignmentSubmitter).
 *
 * The allocation factory's check moves a contract its choice context discloses (the factory itself when it is
 * disclosed), whose stakeholder is the registry admin: fixtures factoryReassignmentUser and
 * factoryReassignmentSubmitter (a ledger user who can act as the admin, and the admin party). Fixture
 * factoryReassignmentChoiceArguments names an allocation whose factory no other check uses; without it the check falls
 * back to allocationFactoryChoiceArguments, as the example configuration says. The assignment asks the ledger for the
 * created event blob, which the registry must then disclose unchanged, and the synchronizer it moved to, which the
 * registry must then disclose as the contract's synchronizerId.
 *
 * The withdraw endpoints' checks move a contract a withdraw choice context discloses besides the instruction (the
 * registry's rules or mining round, which every choice context may disclose), with the same admin fixtures.
 *
 * Every check here that moves a contract holds the registry's contracts alone while it runs (shares
 * SHARED_STATE.movingContracts); every other registry check that asks for a choice context declares it reads them
 * (READS_CHOICE_CONTEXTS), so no check meets a contract another one moves: it would get the 409 SPEC.md requires
 * during the move, and fail a rule the registry keeps.
 */
import { describe } from 'vitest';
import { conformance, retriedStep, type CheckContext } from '../../../harness/conformance.js';
import { SHARED_STATE } from '../../../harness/run/shared-state.js';
import type { Exchange } from '../../../harness/transport/http.js';
import {
  KIND,
  VALID_WITHDRAW_BODY,
  disclosedContractsOf,
  isObj,
  reassignableInstructionId,
  stableInstructionIds,
  validFactory,
  validWithdraw,
  type InstructionKind,
} from '../../../harness/fixtures/registry.js';
import { pendingMoves, recordMove, type PendingMove } from '../../../harness/fixtures/target-state.js';
import { expectStatus } from '../../v0-http-checks.js';

interface Mover {
  user: string;
  submitter: string;
  synchronizers: string[];
}

/** The ledger user and party that move contracts, and the connected synchronizers; skips when either API or a fixture is missing. */
async function mover(t: CheckContext, fixtures: { user: string; submitter: string; of: string } = { user: 'reassignmentUser', submitter: 'reassignmentSubmitter', of: 'the instructions' }): Promise<Mover> {
  if (t.config.targets.ledger === undefined) t.skip('no ledger target configured: the check moves the contract through the ledger API');
  const user = t.fixture<string>(fixtures.user);
  const submitter = t.fixture<string>(fixtures.submitter);
  if (typeof user !== 'string' || typeof submitter !== 'string') {
    t.skip(`no ${fixtures.user} and ${fixtures.submitter} configured (registry fixtures: a ledger user who can act as a stakeholder of ${fixtures.of}, and that party)`);
  }
  const x = await t.clientFor('ledger').call('getConnectedSynchronizers', { auth: { user }, query: { party: submitter } });
  if (x.status !== 200) throw new Error(`setup: GET /v2/state/connected-synchronizers answered ${x.status}: ${x.text.slice(0, 200)}`);
  const list = (x.json as { connectedSynchronizers?: Array<{ synchronizerId?: unknown }> }).connectedSynchronizers ?? [];
  const synchronizers = [...new Set(list.map((s) => s.synchronizerId).filter((s): s is string => typeof s === 'string'))];
  if (synchronizers.length < 2) t.skip(`the participant is connected to ${synchronizers.length} synchronizer(s): a reassignment needs two`);
  return { user, submitter, synchronizers };
}

type Command = { UnassignCommand: { value: { contractId: string; source: string; target: string } } } | { AssignCommand: { value: { reassignmentId: string; source: string; target: string } } };

/** a wildcard filter that asks for created event blobs */
const WITH_BLOBS = [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }];

async function reassign(t: CheckContext, m: Mover, command: Command, conform = true, cumulative: unknown[] = []): Promise<Exchange> {
  return t.clientFor('ledger').call('submitAndWaitForReassignment', {
    auth: { user: m.user },
    conform,
    json: {
      reassignmentCommands: { commandId: t.uniqueName('cc-reassign'), submitter: m.submitter, commands: [{ command }] },
      eventFormat: { filtersByParty: { [m.submitter]: { cumulative } }, verbose: false },
    },
  });
}

/** The createdEventBlob of `cid` in the created event of an assignment's events, if the ledger reported one. */
function assignedBlobOf(x: Exchange, cid: string): string | undefined {
  const events = (x.json as { reassignment?: { events?: unknown[] } } | undefined)?.reassignment?.events ?? [];
  for (const e of events) {
    if (!isObj(e)) continue;
    const a = e.JsAssignmentEvent ?? e;
    const created = isObj(a) ? a.createdEvent : undefined;
    if (isObj(created) && created.contractId === cid && typeof created.createdEventBlob === 'string' && created.createdEventBlob !== '') return created.createdEventBlob;
  }
  return undefined;
}

function reassignmentIdOf(x: Exchange): string | undefined {
  const events = (x.json as { reassignment?: { events?: unknown[] } } | undefined)?.reassignment?.events ?? [];
  for (const e of events) {
    if (!isObj(e)) continue;
    // FACTS.md: {JsUnassignedEvent: {value: {...}}}; the fields directly under the key are read too
    const w = e.JsUnassignedEvent ?? e;
    const u = isObj(w) && isObj(w.value) ? w.value : w;
    if (isObj(u) && typeof u.reassignmentId === 'string') return u.reassignmentId;
  }
  return undefined;
}

type MoveState = Pick<PendingMove, 'state' | 'reassignmentId' | 'source' | 'target' | 'at' | 'home'>;

/**
 * Writes where a contract the check moves stands (undefined: home again) to the state file of the ledger target
 * (harness/fixtures/target-state.ts), at each step, so that a run that ends mid-move, however it ends, leaves the
 * next run what it needs to bring the contract home.
 */
function journal(t: CheckContext, m: Pick<Mover, 'user' | 'submitter'>, cid: string, state: MoveState | undefined): void {
  // the embedded reference ends with the run: nothing of it is left for a next run
  if (t.config.useReference) return;
  recordMove(t.config.run.reportsDir, t.clientFor('ledger').target.url, cid, state === undefined ? undefined : { ...state, user: m.user, submitter: m.submitter, check: t.id });
}

/** Assigns a contract unassigned by `move` to its target, and records it away from home once the ledger accepted it. */
async function assignMove(t: CheckContext, m: Mover, cid: string, move: { source: string; target: string; reassignmentId: string }, conform: boolean, cumulative: unknown[] = []): Promise<Exchange> {
  const x = await reassign(t, m, { AssignCommand: { value: { reassignmentId: move.reassignmentId, source: move.source, target: move.target } } }, conform, cumulative);
  if (x.status === 200) journal(t, m, cid, { state: 'away', at: move.target, home: move.source });
  return x;
}

/** a ledger answer other than 200 to a step of bringing a contract home (a 404 there is no success either) */
function refused(x: Exchange, what: string): Error {
  return new Error(`${what} answered ${x.status}: ${x.text.slice(0, 160)}`);
}

/**
 * One attempt to bring home a contract an earlier run left away (`p` is updated as it goes, so that a retry goes on
 * from where the last attempt stopped): assigns it when it is mid-reassignment, then moves it back to where the suite
 * found it. Throws on an answer other than 200.
 */
async function bringHome(t: CheckContext, p: PendingMove): Promise<void> {
  const who: Mover = { user: p.user, submitter: p.submitter, synchronizers: [] };
  if (p.state === 'unassigned') {
    const x = await reassign(t, who, { AssignCommand: { value: { reassignmentId: p.reassignmentId ?? '', source: p.source ?? '', target: p.target ?? '' } } }, false);
    if (x.status !== 200) throw refused(x, `its assignment to ${p.target}`);
    if (p.target === p.home) {
      journal(t, who, p.contractId, undefined);
      return;
    }
    Object.assign(p, { state: 'away', at: p.target });
    journal(t, who, p.contractId, p);
  }
  const u = await reassign(t, who, { UnassignCommand: { value: { contractId: p.contractId, source: p.at ?? '', target: p.home } } }, false);
  if (u.status !== 200) throw refused(u, `its unassignment from ${p.at}`);
  const back = reassignmentIdOf(u);
  if (back === undefined) throw new Error(`its unassignment from ${p.at} answered 200 without a reassignmentId`);
  Object.assign(p, { state: 'unassigned', reassignmentId: back, source: p.at, target: p.home });
  journal(t, who, p.contractId, p);
  return bringHome(t, p);
}

/**
 * Before a check moves anything: the contracts earlier runs against this participant left mid-reassignment or away
 * from home (the state file) are assigned back, each step retried. What is repaired is reported in the footprint
 * section; what still cannot be is tried once more at the end of the check and, failing, listed as not cleaned up (and
 * stays in the state file for the next run).
 */
async function repairEarlierMoves(t: CheckContext): Promise<void> {
  // read-only mode sends no reassignment: what is pending stays for a run that may write
  if (t.config.useReference || t.config.run.readOnly) return;
  for (const p of pendingMoves(t.config.run.reportsDir, t.clientFor('ledger').target.url)) {
    const left = `${p.contractId}, left ${p.state === 'unassigned' ? `mid-reassignment (unassigned from ${p.source} to ${p.target})` : `on ${p.at}`} by ${p.check} (${p.since})`;
    const problem = await retriedStep(() => bringHome(t, p));
    if (problem === '') t.repaired(`${left}: assigned back to ${p.home}`);
    else t.defer(() => bringHome(t, p), `${left}: not yet assigned back to ${p.home} (${problem}; kept in the state file for the next run)`);
  }
}

/**
 * Registers the clean-up of a move, as two steps that Check.cleanUp retries each on its own: the assignment, when the
 * check did not get to it (a contract left mid-reassignment makes every later use of it an error), then the move back
 * to where the check found it. The move back remembers its unassignment, so that a retry assigns instead of unassigning
 * again; it is not tried when the contract was never assigned.
 */
function deferRestore(t: CheckContext, m: Mover, cid: string, move: { source: string; target: string }, assignedByCheck: () => boolean, assign: () => Promise<Exchange>): void {
  let back: string | undefined;
  let home = false;
  let assignedHere = false;
  const assigned = () => assignedByCheck() || assignedHere;
  // registered first, so it runs last
  t.defer(async () => {
    if (home) return undefined;
    if (!assigned()) throw new Error(`not moved back to ${move.source}: it was never assigned to ${move.target}`);
    if (back === undefined) {
      const x = await reassign(t, m, { UnassignCommand: { value: { contractId: cid, source: move.target, target: move.source } } }, false);
      if (x.status !== 200) return x;
      back = reassignmentIdOf(x);
      if (back === undefined) throw new Error(`its unassignment from ${move.target} answered 200 without a reassignmentId`);
      journal(t, m, cid, { state: 'unassigned', reassignmentId: back, source: move.target, target: move.source, home: move.source });
    }
    const y = await reassign(t, m, { AssignCommand: { value: { reassignmentId: back, source: move.target, target: move.source } } }, false);
    if (y.status === 200) {
      home = true;
      journal(t, m, cid, undefined);
    }
    return y;
  }, `moving ${cid} back to ${move.source} (kept in the state file: the next run moves it back)`);
  t.defer(async () => {
    if (assigned()) return undefined;
    const x = await assign();
    if (x.status === 200) assignedHere = true;
    return x;
  }, `assigning ${cid} to ${move.target} (left mid-reassignment; kept in the state file: the next run assigns it)`);
}

/** Unassigns `cid` from whichever connected synchronizer holds it; returns the move, or undefined when none could. */
async function unassign(t: CheckContext, m: Mover, cid: string): Promise<{ source: string; target: string; reassignmentId: string } | undefined> {
  for (const source of m.synchronizers) {
    const target = m.synchronizers.find((s) => s !== source)!;
    const x = await reassign(t, m, { UnassignCommand: { value: { contractId: cid, source, target } } });
    if (x.status !== 200) continue;
    const reassignmentId = reassignmentIdOf(x);
    if (reassignmentId === undefined) throw new Error(`setup: the unassignment of ${cid} answered 200 without an unassigned event carrying a reassignmentId`);
    journal(t, m, cid, { state: 'unassigned', reassignmentId, source, target, home: source });
    return { source, target, reassignmentId };
  }
  return undefined;
}

/**
 * `disclosed`: the rule when the moving instruction is one of the contracts the answer discloses (SPEC.md: "while it is
 * being reassigned the endpoint answers 409"); `own`: the rule when it is not (the request names the instruction, the
 * answer does not disclose it: a registry that answers 409 only for a disclosed contract is as right, so a SHOULD).
 */
function conflictCheck(kind: InstructionKind, id: string, rules: { disclosed: string; own: string }): void {
  const { operation, label } = KIND[kind];
  conformance(
    {
      id,
      title: `answers 409 with an {error} body while the ${label} is being reassigned, and 200 once it is assigned again`,
      api: 'registry',
      shares: [SHARED_STATE.movingContracts],
      operations: [operation],
      requirements: [...new Set([rules.disclosed, rules.own])],
    },
    async (t) => {
      const cid = reassignableInstructionId(t, kind) ?? t.skip(`no ${label} to move: configure ${KIND[kind].reassignFixture} or at least two ${KIND[kind].fixture}`);
      const m = await mover(t);
      await repairEarlierMoves(t);
      const before = await validWithdraw(t, kind, cid);
      if (before.status !== 200) throw new Error(`setup: the ${label} ${cid} answered ${before.status} before the move: ${before.text.slice(0, 200)}`);
      const discloses = disclosedContractsOf(before, false).some((d) => d.contractId === cid);
      const requirement = discloses ? rules.disclosed : rules.own;
      if (rules.disclosed !== rules.own) t.notObserved(discloses ? rules.own : rules.disclosed, discloses ? `the answer discloses the ${label} itself, so its move is judged as a disclosed contract's` : `the answer does not disclose the ${label} itself, so its move is judged as the instruction's own`);
      const move = await unassign(t, m, cid);
      if (move === undefined) throw new Error(`setup: ${m.user} could not unassign the ${label} ${cid} from any connected synchronizer as ${m.submitter}`);
      let assigned = false;
      const assign = () => assignMove(t, m, cid, move, !assigned);
      deferRestore(t, m, cid, move, () => assigned, assign);
      // a 400 here is no unsupported kind (the same request was answered 200 before the move): judged as it is
      const call = () => t.call(operation, { params: { [KIND[kind].param]: cid }, json: VALID_WITHDRAW_BODY });
      const during = await call();
      expectStatus(t, during, 409, { requirement, what: `${operation} for the ${label} ${cid} between its unassignment and assignment` });
      const done = await assign();
      if (done.status !== 200) throw new Error(`setup: assigning the ${label} ${cid} to ${move.target} answered ${done.status}: ${done.text.slice(0, 200)}`);
      assigned = true;
      const after = await call();
      expectStatus(t, after, 200, { requirement, what: `${operation} for the ${label} ${cid} once it is assigned to ${move.target}` });
    },
  );
}

const BLOB_UNCHANGED = 'registry.choice-context.created-event-blob-unchanged';

const FACTORY_CONFLICT = 'registry.get-allocation-factory.reassignment-conflict';
const SYNCHRONIZER_CURRENT = 'registry.choice-context.synchronizer-current';

/**
 * Moves a contract the allocation factory's choice context discloses (the factory itself when disclosed: the contracts
 * shared with the withdraw contexts stay put) and back. `conflict`: asks the factory between unassignment and
 * assignment (409) and after (200). `blob`: asks the ledger for the created event blob in the assignment and compares
 * it with the one the factory discloses afterwards.
 */
function factoryMoveCheck(mode: 'conflict' | 'blob'): void {
  conformance(
    {
      id: mode === 'conflict' ? 'registry.reassignment.allocation-factory-conflict' : 'registry.reassignment.allocation-factory-created-event-blob',
      title:
        mode === 'conflict'
          ? 'answers the allocation factory with 409 while a contract its choice context discloses is being reassigned, and 200 once it is assigned again'
          : 'discloses, after a reassignment, the createdEventBlob the ledger reports for that contract in its assignment',
      api: 'registry',
      shares: [SHARED_STATE.movingContracts],
      operations: ['getAllocationFactory'],
      requirements: mode === 'conflict' ? [FACTORY_CONFLICT, SYNCHRONIZER_CURRENT] : [BLOB_UNCHANGED],
    },
    async (t) => {
      // the example configuration's fallback: the shared allocation, whose factory other factory checks may meet while
      // it moves (said in the report)
      const own = t.fixture<unknown>('factoryReassignmentChoiceArguments');
      const shared = t.fixture<unknown>('allocationFactoryChoiceArguments');
      if (!isObj(own) && !isObj(shared)) t.skip('neither factoryReassignmentChoiceArguments nor allocationFactoryChoiceArguments configured (registry fixtures: an allocation whose factory the check may move)');
      if (!isObj(own)) t.note('no factoryReassignmentChoiceArguments: the factory of allocationFactoryChoiceArguments is moved (the other registry checks wait for it)');
      const args = structuredClone(isObj(own) ? own : shared);
      const m = await mover(t, { user: 'factoryReassignmentUser', submitter: 'factoryReassignmentSubmitter', of: "the allocation factory's disclosed contracts (the registry admin)" });
      await repairEarlierMoves(t);
      const body = { choiceArguments: args, excludeDebugFields: true };
      const before = await validFactory(t, body);
      if (before.status !== 200) throw new Error(`setup: the allocation factory answered ${before.status} before the move: ${before.text.slice(0, 200)}`);
      const factoryId = (before.json as { factoryId?: unknown }).factoryId;
      const disclosed = disclosedContractsOf(before, true).filter((d) => typeof d.contractId === 'string');
      const chosen = disclosed.find((d) => d.contractId === factoryId) ?? disclosed[0] ?? t.skip('the allocation factory discloses no contract to move');
      const cid = chosen.contractId as string;
      const move = await unassign(t, m, cid);
      if (move === undefined) throw new Error(`setup: ${m.user} could not unassign the disclosed contract ${cid} from any connected synchronizer as ${m.submitter}`);
      let assigned = false;
      const assign = () => assignMove(t, m, cid, move, !assigned, WITH_BLOBS);
      deferRestore(t, m, cid, move, () => assigned, assign);
      if (mode === 'conflict') {
        const during = await t.call('getAllocationFactory', { json: body });
        // judged on its own: the synchronizer the contract is disclosed on after the move is judged whatever this says
        await t.judge(FACTORY_CONFLICT, () => expectStatus(t, during, 409, { requirement: FACTORY_CONFLICT, what: `getAllocationFactory while its disclosed contract ${cid} is between its unassignment and assignment` }));
      }
      const done = await assign();
      if (done.status !== 200) throw new Error(`setup: assigning the disclosed contract ${cid} to ${move.target} answered ${done.status}: ${done.text.slice(0, 200)}`);
      assigned = true;
      const after = await t.call('getAllocationFactory', { json: body });
      if (mode === 'conflict') {
        expectStatus(t, after, 200, { requirement: FACTORY_CONFLICT, what: `getAllocationFactory once its disclosed contract ${cid} is assigned to ${move.target}` });
        const moved = disclosedContractsOf(after, true).find((d) => d.contractId === cid);
        if (moved === undefined) t.notObserved(SYNCHRONIZER_CURRENT, `the allocation factory no longer discloses ${cid} after its reassignment`);
        else {
          t.expect(moved.synchronizerId === move.target, `the disclosed contract ${cid}, just assigned to ${move.target}, is disclosed with synchronizerId ${JSON.stringify(moved.synchronizerId)}`, {
            requirement: SYNCHRONIZER_CURRENT,
            exchange: after,
          });
        }
        return;
      }
      if (after.status !== 200) throw new Error(`setup: the allocation factory answered ${after.status} once ${cid} was assigned to ${move.target}: ${after.text.slice(0, 200)}`);
      const ledgerBlob =
        assignedBlobOf(done, cid) ?? t.skip(`the assignment of ${cid} reported no createdEventBlob although the event format asked for it: nothing to compare the disclosed blob with`);
      const again = disclosedContractsOf(after, true).find((d) => d.contractId === cid) ?? t.skip(`the allocation factory no longer discloses ${cid} after its reassignment`);
      const got = typeof again.createdEventBlob === 'string' ? again.createdEventBlob : JSON.stringify(again.createdEventBlob);
      t.expect(
        got === ledgerBlob,
        `the createdEventBlob disclosed for ${cid} (${String(got).slice(0, 60)}..., ${String(got).length} chars) differs from the one the ledger reports in its assignment (${ledgerBlob.slice(0, 60)}..., ${ledgerBlob.length} chars)`,
        { exchange: after },
      );
    },
  );
}

/** the admin fixtures: a ledger user who can act as the party the disclosed contracts of a choice context belong to */
const ADMIN_MOVER = { user: 'factoryReassignmentUser', submitter: 'factoryReassignmentSubmitter', of: 'the contracts the choice contexts disclose (the registry admin)' };

/**
 * Moves a contract the withdraw choice context of a configured instruction discloses, other than the instruction
 * itself, and asks for the context between the unassignment and the assignment (409, SPEC.md: "while it is being
 * reassigned the endpoint answers 409") and after it (200).
 */
function disclosedMoveCheck(kind: InstructionKind, id: string, requirement: string): void {
  const { operation, label } = KIND[kind];
  conformance(
    {
      id,
      title: `answers 409 with an {error} body while a contract the ${label}'s withdraw choice context discloses is being reassigned, and 200 once it is assigned again`,
      api: 'registry',
      shares: [SHARED_STATE.movingContracts],
      operations: [operation],
      requirements: [requirement],
    },
    async (t) => {
      const [instruction] = stableInstructionIds(t, kind, 1) as [string];
      const m = await mover(t, ADMIN_MOVER);
      await repairEarlierMoves(t);
      const call = () => t.call(operation, { params: { [KIND[kind].param]: instruction }, json: { excludeDebugFields: true } });
      const before = await validWithdraw(t, kind, instruction, { excludeDebugFields: true });
      if (before.status !== 200) throw new Error(`setup: the ${label} ${instruction} answered ${before.status} before the move: ${before.text.slice(0, 200)}`);
      const candidates = disclosedContractsOf(before).map((d) => d.contractId).filter((c): c is string => typeof c === 'string' && c !== '' && c !== instruction);
      if (candidates.length === 0) t.skip(`the withdraw choice context of the ${label} ${instruction} discloses no contract besides the instruction: none to move`);
      let found: { cid: string; move: { source: string; target: string; reassignmentId: string } } | undefined;
      for (const cid of candidates) {
        const move = await unassign(t, m, cid);
        if (move !== undefined) {
          found = { cid, move };
          break;
        }
      }
      if (found === undefined) throw new Error(`setup: ${m.user} could not unassign any of the disclosed contracts ${candidates.join(', ')} as ${m.submitter}`);
      const { cid, move } = found;
      let assigned = false;
      const assign = () => assignMove(t, m, cid, move, !assigned);
      deferRestore(t, m, cid, move, () => assigned, assign);
      const during = await call();
      expectStatus(t, during, 409, { requirement, what: `${operation} for the ${label} ${instruction} while its disclosed contract ${cid} is between its unassignment and assignment` });
      const done = await assign();
      if (done.status !== 200) throw new Error(`setup: assigning the disclosed contract ${cid} to ${move.target} answered ${done.status}: ${done.text.slice(0, 200)}`);
      assigned = true;
      const after = await call();
      expectStatus(t, after, 200, { requirement, what: `${operation} for the ${label} ${instruction} once its disclosed contract ${cid} is assigned to ${move.target}` });
    },
  );
}

describe('registry choice contexts during a reassignment', () => {
  disclosedMoveCheck('allocation', 'registry.reassignment.allocation-instruction-disclosed-conflict', 'registry.get-allocation-instruction-withdraw-context.reassignment-conflict');
  disclosedMoveCheck('transfer', 'registry.reassignment.transfer-instruction-disclosed-conflict', 'registry.get-transfer-instruction-withdraw-context.reassignment-conflict');
  factoryMoveCheck('conflict');
  factoryMoveCheck('blob');
  conflictCheck('allocation', 'registry.reassignment.allocation-instruction-conflict', {
    disclosed: 'registry.get-allocation-instruction-withdraw-context.reassignment-conflict',
    own: 'registry.get-allocation-instruction-withdraw-context.instruction-reassignment-conflict',
  });
  // SPEC.md lists no 409 for the transfer-instruction endpoint: one SHOULD covers both moves
  const transferConflict = 'registry.get-transfer-instruction-withdraw-context.reassignment-conflict';
  conflictCheck('transfer', 'registry.reassignment.transfer-instruction-conflict', { disclosed: transferConflict, own: transferConflict });

  conformance(
    {
      id: 'registry.reassignment.synchronizer-connected',
      title: 'names a synchronizer the participant is connected to as every disclosed contract\'s synchronizerId',
      api: 'registry',
      reads: [SHARED_STATE.movingContracts],
      operations: ['getTransferInstructionWithdrawContext', 'getAllocationInstructionWithdrawContext'],
      requirements: ['registry.choice-context.synchronizer-current'],
    },
    async (t) => {
      const m = await mover(t);
      let judged = 0;
      for (const kind of ['transfer', 'allocation'] as const) {
        if (t.fixture(KIND[kind].fixture) === undefined) continue;
        const [id] = stableInstructionIds(t, kind, 1) as [string];
        const x = await t.call(KIND[kind].operation, { params: { [KIND[kind].param]: id }, json: { excludeDebugFields: true } });
        if (x.status !== 200) continue;
        for (const [i, d] of disclosedContractsOf(x).entries()) {
          judged++;
          t.expect(m.synchronizers.includes(d.synchronizerId as string), `disclosedContracts[${i}].synchronizerId ${JSON.stringify(d.synchronizerId)} is not among the participant's connected synchronizers (${m.synchronizers.join(', ')})`, { exchange: x });
        }
      }
      if (judged === 0) t.skip('no withdraw choice context with disclosed contracts to judge (no instruction ids configured, or none answered 200)');
    },
  );
});
