/**
 * The replacements of the deprecated transaction endpoints (FACTS.md): POST /v2/commands/submit-and-wait-for-transaction
 * (`{commands: {...}, transactionFormat?}` answering `{transaction}`) and POST /v2/updates/update-by-offset
 * (`{offset, updateFormat}` answering `{update: {Transaction: {value}}}` or `{update: {Reassignment: {value}}}`), built
 * on the submission and projection of transactions.ts; and, from 3.6 on, the removal of transaction-by-offset.
 * GET /v2/package-vetting, also gone in 3.6, is left out in vetting.ts; its replacement is served there.
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import { isObject, optEnum, optObject, reqInt, reqObject, type Obj } from './body.js';
import { CantonError, err } from './errors.js';
import { route } from './http.js';
import { assignmentEvent, decodeEventFormat, stakeholders, unassignedEvent, validateEventFormat, visibility, wildcardFormat, type EventFormat } from './events.js';
import type { LedgerState, ReassignmentUpdate, TransactionUpdate } from './state.js';
import { commitOnce, decodeSubmission, faultyEventFormat, projectTransaction, readProjection, updateNotFound, validateSubmission } from './transactions.js';
import { SF } from './faults-setup.js';
import { QF, readsAsAnyone } from './faults-transactions.js';

type Has = (fault: string) => boolean;
type Shape = 'TRANSACTION_SHAPE_ACS_DELTA' | 'TRANSACTION_SHAPE_LEDGER_EFFECTS';
const SHAPES = ['TRANSACTION_SHAPE_UNSPECIFIED', 'TRANSACTION_SHAPE_ACS_DELTA', 'TRANSACTION_SHAPE_LEDGER_EFFECTS'] as const;

/** A TransactionFormat: an event format and a shape other than UNSPECIFIED (which a participant refuses, MISSING_FIELD). */
function decodeTransactionFormat(tf: Obj, path: string): { ef: EventFormat; shape: Shape } {
  const ef = decodeEventFormat(reqObject(tf, 'eventFormat', path), `${path}.eventFormat`);
  const shape = optEnum(tf, 'transactionShape', SHAPES, path) ?? 'TRANSACTION_SHAPE_UNSPECIFIED';
  if (shape === 'TRANSACTION_SHAPE_UNSPECIFIED') throw err.missingField('transaction_shape');
  return { ef, shape };
}

/** A transaction as a transaction-shaped answer carries it: events directly under their kind key. */
export function encodeTransaction(tx: TransactionUpdate, events: Obj[], seesCommand: boolean): Obj {
  return {
    updateId: tx.updateId,
    commandId: seesCommand ? tx.commandId : '',
    workflowId: tx.workflowId,
    effectiveAt: tx.effectiveAt,
    events,
    offset: tx.offset,
    synchronizerId: tx.synchronizerId,
    traceContext: { traceparent: tx.traceparent },
    recordTime: tx.recordTime,
    paidTrafficCost: 0,
  };
}

function encodeReassignment(u: ReassignmentUpdate, ef: EventFormat): Obj | undefined {
  const events: Obj[] = [];
  for (const e of u.events) {
    const v = visibility(ef, stakeholders(e.contract), e.contract);
    if (v !== undefined) events.push(e.kind === 'unassign' ? unassignedEvent(e, u.offset, v) : assignmentEvent(e, u.offset, v));
  }
  if (events.length === 0) return undefined;
  return {
    updateId: u.updateId,
    commandId: u.commandId,
    workflowId: u.workflowId,
    offset: u.offset,
    events,
    traceContext: { traceparent: u.traceparent },
    recordTime: u.recordTime,
    synchronizerId: u.synchronizerId,
    paidTrafficCost: 0,
  };
}

/** A planted fault of update-by-offset's created events: createdAt left out. */
function withoutCreatedAt(e: Obj): Obj {
  if (!isObject(e.CreatedEvent)) return e;
  const { createdAt: _, ...rest } = e.CreatedEvent;
  return { CreatedEvent: rest };
}

export function replacementRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  const has: Has = (f) => ctx.faults.has(f);

  route(app, ctx, 'POST', '/v2/commands/submit-and-wait-for-transaction', async (c) => {
    const body = await c.json();
    const s = decodeSubmission(reqObject(body, 'commands'));
    const tf = optObject(body, 'transactionFormat');
    if (has(SF.submitFormatRequired) && tf === undefined) throw err.missingField('transaction_format');
    const format = tf === undefined ? undefined : decodeTransactionFormat(tf, 'transactionFormat');
    const caller = await c.caller();
    validateSubmission(s, caller, state);
    if (format !== undefined) validateEventFormat(format.ef, caller);
    const tx = commitOnce(state, caller, s, has);
    // without a transactionFormat: the ACS delta as the submitting parties see it
    const { ef, shape } = format ?? { ef: wildcardFormat(s.actAs), shape: 'TRANSACTION_SHAPE_ACS_DELTA' as const };
    const transaction = encodeTransaction(tx, projectTransaction(tx, ef, shape), true);
    return has(SF.submitSchema) ? { transactionTree: transaction } : { transaction };
  });

  route(app, ctx, 'POST', '/v2/updates/update-by-offset', async (c) => {
    const body = await c.json();
    const offset = reqInt(body, 'offset', '', 64);
    const uf = reqObject(body, 'updateFormat');
    const txFormat = optObject(uf, 'includeTransactions');
    if (has(QF.updateUnspecified) && txFormat?.transactionShape === 'TRANSACTION_SHAPE_UNSPECIFIED') txFormat.transactionShape = 'TRANSACTION_SHAPE_ACS_DELTA';
    const tx = txFormat === undefined ? undefined : decodeTransactionFormat(txFormat, 'updateFormat.includeTransactions');
    // the event format is applied as transaction-by-offset applies it, planted faults included (transactions.ts)
    if (txFormat !== undefined) faultyEventFormat(txFormat.eventFormat, tx?.ef, has);
    optObject(uf, 'includeTopologyEvents', 'updateFormat');
    const rf = optObject(uf, 'includeReassignments');
    const reassignments = rf === undefined ? undefined : decodeEventFormat(rf, 'updateFormat.includeReassignments');
    const caller = has(QF.updateRightsUnchecked) ? readsAsAnyone(await c.caller()) : await c.caller();
    if (tx !== undefined) validateEventFormat(tx.ef, caller);
    if (reassignments !== undefined) validateEventFormat(reassignments, has(QF.updateReassignmentRightsUnchecked) ? readsAsAnyone(caller) : caller);
    if (offset <= 0) throw new CantonError('NON_POSITIVE_OFFSET', 'INVALID_ARGUMENT', `Offset ${offset} in offset is not a positive integer`);
    if (tx === undefined && reassignments === undefined && !isObject(uf.includeTopologyEvents)) throw err.invalidArgument('update_format selects no updates');
    const u = state.update(offset);
    if (u?.kind === 'transaction' && tx !== undefined) {
      const events = readProjection(u, tx.ef, tx.shape, has);
      if (events.length > 0) {
        const seesCommand = u.submitters.some((p) => tx.ef.byParty.has(p)) || tx.ef.anyParty !== undefined;
        const transaction = encodeTransaction(u, has(QF.updateCreatedFields) ? events.map(withoutCreatedAt) : events, seesCommand);
        return has(SF.updateSchema) ? { update: transaction } : { update: { Transaction: { value: transaction } } };
      }
    }
    if (has(QF.updateReassignmentNotFound) && u?.kind === 'reassignment') throw updateNotFound(offset);
    if (u?.kind === 'reassignment' && reassignments !== undefined) {
      const value = encodeReassignment(u, reassignments);
      if (value !== undefined) return { update: { Reassignment: { value } } };
      // planted fault: the reassignment answered without the events the format does not see, instead of 404
      if (has(QF.updateInvisibleReassignmentEmpty)) return { update: { Reassignment: { value: { ...encodeReassignment(u, wildcardFormat(u.submitters)), events: [] } } } };
    }
    throw updateNotFound(offset);
  });
}
