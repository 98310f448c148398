/**
 * POST /v2/commands/submit-and-wait-for-reassignment: moving contracts between synchronizers in two steps. An
 * unassignment takes contracts off their source synchronizer (World.contracts[cid].synchronizerId becomes null, the
 * reassignment counter goes up by one) under a fresh reassignmentId; the assignment with that id puts them on the
 * target synchronizer with the same counter.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import type { ContractRecord } from '../world.js';
import { elementObject, oneOf, optObject, optString, reqArray, reqObject, reqString, type Obj } from './body.js';
import { CantonError, err } from './errors.js';
import type { Caller } from './access.js';
import { route } from './http.js';
import { sha256hex } from './ids.js';
import { assignmentEvent, decodeEventFormat, stakeholders, traceContext, unassignedEvent, validateEventFormat, visibility, type EventFormat } from './events.js';
import { snapshotOf } from './transactions.js';
import { RF, firstTargetForAll, pendingSynchronizers, reopenCompleted, retargetUnassignments } from './faults-reassignment.js';
import { microsIso, type AssignEvent, type LedgerState, type PendingReassignment, type ReassignmentUpdate, type UnassignEvent } from './state.js';
import { variantUpdateId } from '../variant.js';

type ReassignCommand =
  | { kind: 'unassign'; contractId: string; source: string; target: string }
  | { kind: 'assign'; reassignmentId: string; source: string; target: string }
  | { kind: 'empty' };

interface ReassignmentRequest {
  commandId: string;
  workflowId: string;
  userId?: string;
  submitter: string;
  commands: ReassignCommand[];
  eventFormat?: EventFormat;
}

function decodeCommand(v: unknown, path: string): ReassignCommand {
  const cmd = reqObject(elementObject(v, path), 'command', path);
  const [name, payload] = oneOf(cmd, `${path}.command`, ['AssignCommand', 'UnassignCommand', 'Empty']);
  if (name === 'Empty') return { kind: 'empty' };
  const p = `${path}.command.${name}.value`;
  const value = reqObject(payload, 'value', `${path}.command.${name}`);
  const source = reqString(value, 'source', p);
  const target = reqString(value, 'target', p);
  return name === 'UnassignCommand'
    ? { kind: 'unassign', contractId: reqString(value, 'contractId', p), source, target }
    : { kind: 'assign', reassignmentId: reqString(value, 'reassignmentId', p), source, target };
}

type Has = (fault: string) => boolean;
const none: Has = () => false;

function decodeRequest(body: Obj, has: Has = none, authorizeFirst = false): ReassignmentRequest {
  const rc = reqObject(body, 'reassignmentCommands');
  if (has(RF.workflow)) reqString(rc, 'workflowId', 'reassignmentCommands');
  if (has(RF.userId)) reqString(rc, 'userId', 'reassignmentCommands');
  optString(rc, 'submissionId', 'reassignmentCommands');
  const ef = optObject(body, 'eventFormat');
  return {
    commandId: has(RF.missingCommandId) && (rc.commandId === undefined || rc.commandId === null) ? `generated-${Math.random().toString(36).slice(2)}` : reqString(rc, 'commandId', 'reassignmentCommands'),
    workflowId: optString(rc, 'workflowId', 'reassignmentCommands') ?? '',
    userId: optString(rc, 'userId', 'reassignmentCommands'),
    // authorizing first, a missing submitter is acting for no party (refused 403 in validate), as FACTS.md describes
    submitter: authorizeFirst ? (optString(rc, 'submitter', 'reassignmentCommands') ?? '') : reqString(rc, 'submitter', 'reassignmentCommands'),
    commands: reqArray(rc, 'commands', 'reassignmentCommands').map((c, i) => decodeCommand(c, `reassignmentCommands.commands[${i}]`)),
    eventFormat: ef === undefined ? undefined : decodeEventFormat(ef, 'eventFormat'),
  };
}

const refused = (cause: string) => new CantonError('REASSIGNMENT_VALIDATION_FAILED', 'FAILED_PRECONDITION', cause);

/** Common validation; returns the commands, which all have one kind and one source and target. */
function validate(state: LedgerState, r: ReassignmentRequest, caller: Caller, has: Has = none): Exclude<ReassignCommand, { kind: 'empty' }>[] {
  // a variant authorizes first, as a real participant does (FACTS.md): no submitter is acting for no party
  if (r.submitter === '' && state.world.variant.authorization === 'authorize-first') throw err.permissionDenied('Claims do not authorize to act as party \'\'');
  if (r.commandId === '') throw err.missingField('command_id');
  if (r.submitter === '') throw err.missingField('submitter');
  if (r.commands.length === 0) throw err.missingField('commands');
  if (r.userId !== undefined && r.userId !== '' && r.userId !== caller.id) {
    throw err.permissionDenied(`userId ${r.userId.slice(0, 200)} does not match the authenticated user`);
  }
  if (!has(RF.actAs)) caller.requireActAs(r.submitter);
  if (r.eventFormat !== undefined) validateEventFormat(r.eventFormat, caller);
  const cmds = r.commands.map((c) => {
    if (c.kind === 'empty') throw err.invalidArgument('A reassignment command must be an AssignCommand or an UnassignCommand');
    return c;
  });
  const first = cmds[0] as Exclude<ReassignCommand, { kind: 'empty' }>;
  if (cmds.some((c) => c.kind !== first.kind || c.source !== first.source || c.target !== first.target)) {
    throw err.invalidArgument('All commands of a reassignment must be of one kind and have the same source and target');
  }
  if (first.source === '') throw err.missingField('source');
  if (first.target === '') throw err.missingField('target');
  for (const s of [first.source, first.target]) {
    if (!state.world.synchronizers.includes(s)) throw err.invalidArgument(`Synchronizer ${s.slice(0, 200)} is unknown or not connected`);
  }
  if (first.source === first.target) throw err.invalidArgument('Source and target synchronizer must differ');
  return cmds;
}

function requireStakeholder(c: ContractRecord, submitter: string): void {
  if (!c.signatories.includes(submitter) && !c.observers.includes(submitter)) {
    throw refused(`Submitter ${submitter} is not a stakeholder of contract ${c.contractId}`);
  }
}

function contractOnSource(state: LedgerState, contractId: string, source: string, submitter: string, has: Has = none): ContractRecord {
  if (contractId === '') throw err.missingField('contract_id');
  const c = state.world.contracts.get(contractId);
  if (c === undefined && has(RF.unknownContract)) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
  if (c === undefined && has(RF.propagated)) {
    // NOT_FOUND (gRPC 5) in the body, but answered 400
    const e = new CantonError('CONTRACT_NOT_FOUND', 'NOT_FOUND', `Contract could not be found with id ${contractId.slice(0, 200)}`, {}, [['CONTRACT_ID', contractId]]);
    Object.defineProperty(e, 'status', { get: () => 400 });
    throw e;
  }
  if (c === undefined) throw err.notFound('CONTRACT_NOT_FOUND', `Contract could not be found with id ${contractId.slice(0, 200)}`, [['CONTRACT_ID', contractId]]);
  if (c.synchronizerId !== source && !(has(RF.wrongSource) && c.synchronizerId !== null)) {
    throw refused(`Contract ${contractId} is not assigned to ${source}${c.synchronizerId === null ? ': it is being reassigned' : ''}`);
  }
  requireStakeholder(c, submitter);
  return c;
}

function pendingFor(state: LedgerState, cmd: { reassignmentId: string; source: string; target: string }, submitter: string, has: Has = none): PendingReassignment[] {
  if (cmd.reassignmentId === '') throw err.missingField('reassignment_id');
  const pending = state.reassignments.get(cmd.reassignmentId);
  if ((pending === undefined || pending.length === 0) && has(RF.unknownId)) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
  if (pending === undefined || pending.length === 0) {
    throw err.notFound('REASSIGNMENT_NOT_FOUND', `Unassignment ${cmd.reassignmentId.slice(0, 200)} could not be found`, [['REASSIGNMENT_ID', cmd.reassignmentId]]);
  }
  const head = pending[0] as PendingReassignment;
  if (head.source !== cmd.source || head.target !== cmd.target) {
    throw refused(`Unassignment ${cmd.reassignmentId} moves from ${head.source} to ${head.target}`);
  }
  if (head.completed) throw refused(`Reassignment ${cmd.reassignmentId} has already been completed`);
  for (const p of pending) requireStakeholder(state.world.contracts.get(p.contractId) as ContractRecord, submitter);
  return pending;
}

/** Executes validated commands as one update. */
function execute(state: LedgerState, r: ReassignmentRequest, cmds: Exclude<ReassignCommand, { kind: 'empty' }>[], has: Has = none): ReassignmentUpdate {
  const recordTime = state.nextTime();
  const first = cmds[0] as Exclude<ReassignCommand, { kind: 'empty' }>;
  const events: (UnassignEvent | AssignEvent)[] = [];
  if (first.kind === 'unassign') {
    const ids = cmds.map((c) => (c as { contractId: string }).contractId);
    if (new Set(ids).size !== ids.length) throw err.invalidArgument('A contract appears more than once');
    const contracts = ids.map((id) => contractOnSource(state, id, first.source, r.submitter, has));
    const reassignmentId = `00${sha256hex(`reassignment:${state.nextSeq()}:${recordTime}`)}`;
    const pending: PendingReassignment[] = [];
    const exclusivity = microsIso(Date.parse(recordTime) * 1000 + 60_000_000);
    for (const c of contracts) {
      c.synchronizerId = null;
      if (!has(RF.counter)) c.reassignmentCounter += 1;
      pending.push({ reassignmentId, contractId: c.contractId, source: first.source, target: first.target, reassignmentCounter: c.reassignmentCounter, completed: false });
      events.push({ kind: 'unassign', nodeId: events.length, reassignmentId, contract: snapshotOf(c), source: first.source, target: first.target, submitter: r.submitter, reassignmentCounter: c.reassignmentCounter, assignmentExclusivity: exclusivity });
    }
    state.reassignments.set(reassignmentId, pending);
  } else {
    const batches = cmds.map((c) => pendingFor(state, c as { reassignmentId: string; source: string; target: string }, r.submitter, has));
    if (new Set(batches).size !== batches.length) throw err.invalidArgument('A reassignment id appears more than once');
    for (const p of batches.flat()) {
      const c = state.world.contracts.get(p.contractId) as ContractRecord;
      c.synchronizerId = has(RF.notMoved) ? null : p.target;
      p.completed = true;
      const [source, target] = has(RF.swapped) ? [p.target, p.source] : [p.source, p.target];
      events.push({ kind: 'assign', nodeId: events.length, reassignmentId: p.reassignmentId, contract: snapshotOf(c), source, target, submitter: r.submitter, reassignmentCounter: p.reassignmentCounter });
    }
  }
  return state.append<ReassignmentUpdate>((offset) => ({
    kind: 'reassignment',
    offset,
    updateId: variantUpdateId(state.world.variant, `${offset}:${r.commandId}:${state.nextSeq()}`),
    commandId: r.commandId,
    workflowId: r.workflowId,
    submitters: [r.submitter],
    recordTime,
    // An unassignment is sequenced on the source synchronizer, an assignment on the target.
    synchronizerId: first.kind === 'unassign' ? first.source : first.target,
    traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
    events,
  }));
}

function encodeEvents(u: ReassignmentUpdate, ef: EventFormat | undefined, has: Has = none, submitter = ''): Obj[] {
  if (ef === undefined) return [];
  const out: Obj[] = [];
  for (const e of u.events) {
    if (e.kind === 'unassign' && has(RF.noUnassignEvent)) continue;
    const v = has(RF.formatIgnored) ? { witnesses: [submitter], includeBlob: false } : visibility(ef, stakeholders(e.contract), e.contract);
    if (v === undefined) continue;
    const enc = e.kind === 'unassign' ? unassignedEvent(e, u.offset, v) : assignmentEvent(e, u.offset, v);
    if (e.kind === 'assign' && has(RF.noCreated)) delete (enc.JsAssignmentEvent as Obj).createdEvent;
    if (e.kind === 'assign' && has(RF.createdOffset)) ((enc.JsAssignmentEvent as Obj).createdEvent as Obj).offset = u.offset - 1;
    if (e.kind === 'unassign' && has(RF.emptyUnassign)) (enc.JsUnassignedEvent as Obj).value = {};
    out.push(e.kind === 'unassign' && has(RF.flatUnassign) ? { JsUnassignedEvent: (enc.JsUnassignedEvent as Obj).value } : enc);
  }
  return out;
}

export function reassignmentRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  route(app, ctx, 'POST', '/v2/commands/submit-and-wait-for-reassignment', async (c) => {
    const has: Has = (f) => ctx.faults.has(f);
    const r = decodeRequest(await c.json(), has, state.world.variant.authorization === 'authorize-first');
    const caller = await c.caller();
    if (r.commands.length === 0 && has(RF.empty)) {
      return { reassignment: { updateId: `1220${'00'.repeat(32)}`, commandId: r.commandId, workflowId: r.workflowId, offset: state.ledgerEnd, events: [], recordTime: state.nextTime(), synchronizerId: state.world.synchronizers[0], paidTrafficCost: 0 } };
    }
    if (has(RF.mixedServerError) && new Set(r.commands.map((x) => x.kind)).size > 1) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    if (has(RF.emptyCommandServerError) && r.commands.some((x) => x.kind === 'empty')) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    if (has(RF.emptyCommandId) && r.commandId === '') r.commandId = `generated-${Math.random().toString(36).slice(2)}`;
    if (has(RF.unknownTarget) || has(RF.sameSynchronizer)) retargetUnassignments(r.commands, state.world.synchronizers, has);
    if (has(RF.assignTwice)) reopenCompleted(r.commands, state.reassignments);
    if (has(RF.batchFirstTarget)) firstTargetForAll(r.commands);
    if (has(RF.assignSynchronizersUnchecked)) pendingSynchronizers(r.commands, state.reassignments);
    const cmds = validate(state, r, caller, has);
    const changeId = JSON.stringify([has(RF.changeIdNoUser) ? '' : caller.id, [r.submitter], r.commandId]);
    if (state.changeIds.has(changeId)) {
      throw err.alreadyExists('DUPLICATE_COMMAND', 'A command with the given command id has already been successfully processed', [['COMMAND_ID', r.commandId]]);
    }
    if (has(RF.changeIdNoSubmitter) && state.changeIds.has(JSON.stringify([caller.id, r.commandId]))) {
      throw err.alreadyExists('DUPLICATE_COMMAND', 'A command with the given command id has already been successfully processed', [['COMMAND_ID', r.commandId]]);
    }
    const u = execute(state, r, cmds, has);
    state.changeIds.add(changeId);
    if (has(RF.changeIdNoSubmitter)) state.changeIds.add(JSON.stringify([caller.id, r.commandId]));
    return {
      reassignment: {
        ...(has(RF.schema) ? {} : { updateId: u.updateId }),
        commandId: has(RF.commandId) ? u.updateId : u.commandId,
        workflowId: u.workflowId,
        offset: u.offset,
        events: encodeEvents(u, r.eventFormat, has, r.submitter),
        traceContext: traceContext(u.traceparent),
        recordTime: u.recordTime,
        synchronizerId: has(RF.nullField) ? null : u.synchronizerId,
        paidTrafficCost: 0,
      },
    };
  });
}
