/**
 * Transactions: command submission (submit-and-wait-for-transaction-tree), lookup by offset, the ledger end and the
 * connected synchronizers. Templates have no Daml semantics here: signatories are the acting parties, observers the
 * party ids found among the create arguments, and only the `Archive` choice consumes a contract.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import type { ContractRecord } from '../world.js';
import { elementObject, oneOf, optArray, optInt, optObject, optString, optStringArray, reqArray, reqInt, reqObject, reqString, optEnum, type Obj, isObject } from './body.js';
import { CantonError, err } from './errors.js';
import type { Caller } from './access.js';
import { route } from './http.js';
import { comparePackageVersions, isParty, sha256hex } from './ids.js';
import {
  archivedEvent,
  createdEvent,
  decodeEventFormat,
  exercisedEvent,
  exerciseInformees,
  isIdentifier,
  stakeholders,
  traceContext,
  validateEventFormat,
  visibility,
  wildcardFormat,
  type EventFormat,
} from './events.js';
import type { ContractSnapshot, LedgerState, TransactionUpdate, TxNode } from './state.js';
import { QF } from './faults-transactions.js';
import { CF, withStatus } from './faults-cross.js';
import { DEFAULT_VARIANT, variantContractId, variantUpdateId, type Variant } from '../variant.js';

type Has = (fault: string) => boolean;

/** Planted faults that rewrite a request body before it is decoded. */
function faultyCommands(body: Obj, has: Has): Obj {
  if (!has(QF.createArgs) && !has(QF.choice)) return body;
  const commands = Array.isArray(body.commands) ? body.commands : [];
  return {
    ...body,
    commands: commands.map((c: unknown) => {
      const o = c as Record<string, Obj | undefined>;
      if (has(QF.createArgs) && o.CreateCommand !== undefined && o.CreateCommand.createArguments === undefined) return { CreateCommand: { ...o.CreateCommand, createArguments: {} } };
      if (has(QF.choice) && o.CreateAndExerciseCommand !== undefined && o.CreateAndExerciseCommand.choice === undefined) {
        return { CreateAndExerciseCommand: { ...o.CreateAndExerciseCommand, choice: 'Archive' } };
      }
      return c;
    }),
  };
}

/**
 * Planted faults on the encoded events of a transaction read by offset, about the events themselves (the ledger.events
 * and event-format rules): applied by transaction-by-offset and update-by-offset alike (see readProjection).
 */
function faultyEvents(events: Obj[], has: Has): Obj[] {
  return events.map((e) => {
    const [kind, v] = Object.entries(e)[0] as [string, Obj];
    const ev: Obj = { ...v };
    if (has(QF.eventOffset)) ev.offset = 0;
    if (kind === 'CreatedEvent' || kind === 'ExercisedEvent') {
      if (has(QF.acsDelta)) ev.acsDelta = String(ev.acsDelta);
    }
    if (kind === 'CreatedEvent') {
      if (has(QF.createdFields)) delete ev.createdAt;
      if (has(QF.witnesses)) ev.witnessParties = [];
      if (has(QF.signatories)) ev.signatories = [];
      if (has(QF.blob)) ev.createdEventBlob = '';
      if (has(QF.interfaceView)) ev.interfaceViews = [];
    }
    if (kind === 'ArchivedEvent' && has(QF.archivedFields)) delete ev.packageName;
    return { [kind]: ev };
  });
}

/** Planted faults on how transaction-by-offset wraps its events (its own event-wrappers and event-single-key rules). */
function faultyWrappers(events: Obj[], has: Has): Obj[] {
  if (!has(QF.txUnderValue) && !has(QF.singleKey)) return events;
  return events.map((e) => {
    const [kind, ev] = Object.entries(e)[0] as [string, Obj];
    return { [kind]: has(QF.txUnderValue) ? { value: ev } : ev, ...(has(QF.singleKey) ? { eventKind: kind } : {}) };
  });
}

/**
 * Planted faults of event formats, applied to the decoded format `ef` of a transaction read by offset (`raw` is the
 * request's eventFormat object): transaction-by-offset and update-by-offset apply an event format through the same code.
 */
export function faultyEventFormat(raw: unknown, ef: EventFormat | undefined, has: Has): void {
  const rawFormat = raw as { filtersByParty?: Record<string, { cumulative?: unknown[] } | null> } | undefined;
  if (has(QF.emptyByParty) && rawFormat?.filtersByParty !== undefined && Object.keys(rawFormat.filtersByParty ?? {}).length === 0) {
    throw err.invalidArgument('filters_by_party must not be empty');
  }
  if (ef === undefined) return;
  for (const [party, filters] of ef.byParty) {
    const rawParty = rawFormat?.filtersByParty?.[party];
    if (has(QF.noCumulative) && (rawParty?.cumulative === undefined || rawParty.cumulative.length === 0)) ef.byParty.set(party, []);
    if (has(QF.packageName)) for (const f of filters) if (f.id?.startsWith('#')) f.id = `#cc-nothing${f.id.slice(f.id.indexOf(':'))}`;
    if (has(QF.packageId)) for (const f of filters) if (f.id !== undefined && !f.id.startsWith('#')) f.id = `0000${f.id.slice(4)}`;
    if (has(QF.accumulate)) filters.forEach((f, i) => i > 0 && (f.includeCreatedEventBlob = false));
    if (has(QF.anyTemplate)) ef.byParty.set(party, filters.map((f) => (f.kind === 'template' ? { kind: 'wildcard', includeCreatedEventBlob: f.includeCreatedEventBlob } : f)));
    if (has(QF.widen) && filters.length > 1 && filters.some((f) => f.kind === 'template')) ef.byParty.set(party, filters.filter((f) => f.kind === 'template').map((f) => ({ ...f, id: `#cc-nothing${(f.id ?? ':x:y').slice((f.id ?? ':x:y').indexOf(':'))}` })));
  }
}

/**
 * The events of a transaction read by offset under an event format and shape, with the planted faults of shapes and
 * events: transaction-by-offset and update-by-offset read a transaction through the same code.
 */
export function readProjection(u: TransactionUpdate, ef: EventFormat, shape: Shape, has: Has): Obj[] {
  let projected = projectTransaction(u, ef, shape);
  if (shape === 'TRANSACTION_SHAPE_ACS_DELTA' && has(QF.acsExercise)) projected = [...projected, ...projectTransaction(u, ef, 'TRANSACTION_SHAPE_LEDGER_EFFECTS').filter((e) => e.ExercisedEvent !== undefined)];
  if (shape === 'TRANSACTION_SHAPE_LEDGER_EFFECTS' && has(QF.effectsNoExercise)) projected = projected.filter((e) => e.ExercisedEvent === undefined);
  return faultyEvents(projected, has);
}

type Command =
  | { kind: 'create'; templateId: string; createArguments: Obj }
  | { kind: 'exercise'; templateId: string; contractId: string; choice: string; choiceArgument: unknown }
  | { kind: 'createAndExercise'; templateId: string; createArguments: Obj; choice: string; choiceArgument: unknown };

export interface Submission {
  commands: Command[];
  commandId: string;
  workflowId: string;
  userId?: string;
  actAs: string[];
  readAs: string[];
  synchronizerId: string;
}

function decodeCommand(v: unknown, path: string): Command | 'byKey' {
  const [name, c] = oneOf(elementObject(v, path), path, ['CreateCommand', 'ExerciseCommand', 'CreateAndExerciseCommand', 'ExerciseByKeyCommand']);
  const p = `${path}.${name}`;
  const required = (key: string) => {
    if (c[key] === undefined || c[key] === null) reqString(c, key, p); // raises the missing-field failure
    return c[key];
  };
  switch (name) {
    case 'CreateCommand':
      return { kind: 'create', templateId: reqString(c, 'templateId', p), createArguments: reqObject(c, 'createArguments', p) };
    case 'ExerciseCommand':
      return {
        kind: 'exercise',
        templateId: reqString(c, 'templateId', p),
        contractId: reqString(c, 'contractId', p),
        choice: reqString(c, 'choice', p),
        choiceArgument: required('choiceArgument'),
      };
    case 'CreateAndExerciseCommand':
      return {
        kind: 'createAndExercise',
        templateId: reqString(c, 'templateId', p),
        createArguments: reqObject(c, 'createArguments', p),
        choice: reqString(c, 'choice', p),
        choiceArgument: required('choiceArgument'),
      };
    default:
      reqString(c, 'templateId', p);
      return 'byKey';
  }
}

export function decodeSubmission(body: Obj): Submission {
  const decoded = reqArray(body, 'commands').map((c, i) => decodeCommand(c, `commands[${i}]`));
  // fields the reference does not act on are still decoded, as the JSON API's codecs do: a wrong type does not decode
  optString(body, 'submissionId');
  optString(body, 'minLedgerTimeAbs');
  optObject(body, 'minLedgerTimeRel');
  optObject(body, 'deduplicationPeriod');
  optStringArray(body, 'packageIdSelectionPreference');
  optInt(body, 'tapsMaxPasses');
  for (const key of ['disclosedContracts', 'prefetchContractKeys']) (optArray(body, key) ?? []).forEach((e, i) => elementObject(e, `${key}[${i}]`));
  if (decoded.includes('byKey')) throw err.invalidArgument('Contract keys are not supported: ExerciseByKeyCommand cannot be submitted');
  return {
    commands: decoded as Command[],
    commandId: optString(body, 'commandId') ?? '',
    workflowId: optString(body, 'workflowId') ?? '',
    userId: optString(body, 'userId'),
    actAs: optStringArray(body, 'actAs') ?? [],
    readAs: optStringArray(body, 'readAs') ?? [],
    synchronizerId: optString(body, 'synchronizerId') ?? '',
  };
}

export function validateSubmission(s: Submission, caller: Caller, state: LedgerState, has: Has = () => false): void {
  // a variant authorizes first, as a real participant does (FACTS.md): an empty actAs is acting for no party
  if (s.actAs.length === 0 && state.world.variant.authorization === 'authorize-first' && !has(QF.emptyActAsAccepted)) throw err.permissionDenied('Claims do not authorize to act as no party');
  if (s.commands.length === 0 && !has(QF.treeEmpty)) throw err.missingField('commands');
  if (s.commandId === '') throw err.missingField('command_id');
  if (s.actAs.length === 0 && !has(QF.emptyActAsAccepted)) throw err.missingField('act_as');
  for (const p of [...s.actAs, ...s.readAs]) if (!isParty(p)) throw err.invalidField('party', `Invalid party ${JSON.stringify(p.slice(0, 200))}`);
  if (s.userId !== undefined && s.userId !== '' && s.userId !== caller.id) {
    throw err.permissionDenied(`userId ${s.userId.slice(0, 200)} does not match the authenticated user`);
  }
  if (!has(QF.actAs)) for (const p of s.actAs) caller.requireActAs(p);
  if (!has(QF.actAs)) for (const p of s.readAs) caller.requireReadAs(p);
  if (s.synchronizerId !== '' && !state.world.synchronizers.includes(s.synchronizerId)) {
    throw err.invalidArgument(`Synchronizer ${s.synchronizerId.slice(0, 200)} is unknown or not connected`);
  }
}

/** Resolves `#name:M:E` or `pkgId:M:E` to a package-id qualified template id of a package on this participant. */
export function resolveTemplate(state: LedgerState, ref: string): { templateId: string; packageName: string } {
  if (!isIdentifier(ref)) throw err.invalidField('template_id', `Invalid template id ${JSON.stringify(ref.slice(0, 200))}`);
  const i = ref.indexOf(':');
  const pkg = ref.slice(0, i);
  const rest = ref.slice(i);
  if (pkg.startsWith('#')) {
    const name = pkg.slice(1);
    // The package-name reference picks the highest version uploaded.
    const candidates = [...state.localPackages.values()].filter((p) => p.name === name);
    const best = candidates.sort((a, b) => comparePackageVersions(b.version, a.version))[0];
    if (best === undefined) throw err.notFound('PACKAGE_NAMES_NOT_FOUND', `The following package names do not match upgradable packages uploaded on this participant: [${name}]`);
    return { templateId: `${best.packageId}${rest}`, packageName: name };
  }
  const info = state.localPackages.get(pkg);
  if (info === undefined) throw err.notFound('PACKAGE_NOT_FOUND', `Couldn't find package ${pkg}`, [['PACKAGE', pkg]]);
  return { templateId: ref, packageName: info.name };
}

/** Party ids mentioned in the create arguments become observers. */
function partiesIn(v: unknown, out: Set<string>, depth = 0): Set<string> {
  if (depth > 8) return out;
  if (typeof v === 'string' && v.includes('::') && isParty(v)) out.add(v);
  else if (Array.isArray(v)) for (const x of v) partiesIn(x, out, depth + 1);
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) partiesIn(x, out, depth + 1);
  return out;
}

export function newContract(
  tmpl: { templateId: string; packageName: string },
  createArgument: Obj,
  signatories: string[],
  createdAt: string,
  seed: string,
  variant: Variant = DEFAULT_VARIANT,
): ContractSnapshot {
  const contractId = variantContractId(variant, seed);
  const observers = [...partiesIn(createArgument, new Set())].filter((p) => !signatories.includes(p));
  const blob = Buffer.from(JSON.stringify({ contractId, templateId: tmpl.templateId, createArgument, signatories, observers, createdAt })).toString('base64');
  return { contractId, ...tmpl, createArgument, signatories: [...signatories], observers, createdAt, createdEventBlob: blob };
}

export function snapshotOf(c: ContractRecord): ContractSnapshot {
  return {
    contractId: c.contractId,
    templateId: c.templateId,
    packageName: c.packageName,
    createArgument: c.createArgument,
    signatories: c.signatories,
    observers: c.observers,
    createdAt: c.createdAt,
    createdEventBlob: c.createdEventBlob,
  };
}

/** The active, assigned contract an exercise targets, checked against the command's template. */
function exercisedContract(state: LedgerState, contractId: string, tmpl: { templateId: string; packageName: string }, actAs: string[]): ContractRecord {
  const c = state.world.contracts.get(contractId);
  if (c === undefined || c.synchronizerId === null) {
    throw err.notFound('CONTRACT_NOT_FOUND', `Contract could not be found with id ${contractId.slice(0, 200)}`, [['CONTRACT_ID', contractId]]);
  }
  const sameName = (a: string, b: string) => a.slice(a.indexOf(':')) === b.slice(b.indexOf(':'));
  if (c.packageName !== tmpl.packageName || !sameName(c.templateId, tmpl.templateId)) {
    throw err.failedPrecondition('WRONGLY_TYPED_CONTRACT', `Contract ${contractId} is of template ${c.templateId}, not ${tmpl.templateId}`);
  }
  if (!actAs.some((p) => c.signatories.includes(p) || c.observers.includes(p))) {
    throw new CantonError('DAML_AUTHORIZATION_ERROR', 'INVALID_ARGUMENT', `Interpretation error: none of the acting parties is a stakeholder of ${contractId}`);
  }
  return c;
}

interface Plan {
  nodes: TxNode[];
  created: ContractSnapshot[];
  archived: string[];
  synchronizerId: string;
}

/** Interprets the commands without touching the ledger, so that a failing command changes nothing. */
function plan(state: LedgerState, s: Submission, updateSeed: string, effectiveAt: string): Plan {
  const nodes: TxNode[] = [];
  const created = new Map<string, ContractSnapshot>();
  const archived = new Set<string>();
  let synchronizerId = s.synchronizerId;
  const exercise = (contract: ContractSnapshot, choice: string, choiceArgument: unknown) => {
    const nodeId = nodes.length;
    const consuming = choice === 'Archive';
    if (consuming) {
      if (archived.has(contract.contractId)) throw err.notFound('CONTRACT_NOT_FOUND', `Contract ${contract.contractId} was consumed earlier in this transaction`);
      archived.add(contract.contractId);
    }
    nodes.push({ kind: 'exercise', nodeId, contract, choice, choiceArgument, actingParties: [...s.actAs], consuming, exerciseResult: {}, lastDescendantNodeId: nodeId });
  };
  const create = (templateRef: string, args: Obj) => {
    const c = newContract(resolveTemplate(state, templateRef), args, s.actAs, effectiveAt, `${updateSeed}:${nodes.length}`, state.world.variant);
    created.set(c.contractId, c);
    nodes.push({ kind: 'create', nodeId: nodes.length, contract: c });
    return c;
  };
  for (const cmd of s.commands) {
    if (cmd.kind === 'create') create(cmd.templateId, cmd.createArguments);
    else if (cmd.kind === 'createAndExercise') exercise(create(cmd.templateId, cmd.createArguments), cmd.choice, cmd.choiceArgument);
    else {
      const local = created.get(cmd.contractId);
      const contract = local ?? snapshotOf(exercisedContract(state, cmd.contractId, resolveTemplate(state, cmd.templateId), s.actAs));
      if (local === undefined) {
        const on = state.world.contracts.get(cmd.contractId)?.synchronizerId as string;
        if (synchronizerId === '') synchronizerId = on;
        else if (synchronizerId !== on) throw err.invalidArgument(`Contract ${cmd.contractId} is assigned to ${on}, not to ${synchronizerId}`);
      }
      exercise(contract, cmd.choice, cmd.choiceArgument);
    }
  }
  return {
    nodes,
    created: [...created.values()].filter((c) => !archived.has(c.contractId)),
    archived: [...archived].filter((id) => !created.has(id)),
    synchronizerId: synchronizerId === '' ? (state.world.synchronizers[0] as string) : synchronizerId,
  };
}

const traceparent = () => `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;

/**
 * Commits a submission once per change id (user, submitters, command id): a repeated one is refused with
 * DUPLICATE_COMMAND (ALREADY_EXISTS). Shared by the tree submission and its replacement.
 */
export function commitOnce(state: LedgerState, caller: Caller, s: Submission, has: Has): TransactionUpdate {
  const changeId = JSON.stringify([caller.id, [...s.actAs].sort(), s.commandId]);
  if (state.changeIds.has(changeId)) {
    const e = err.alreadyExists('DUPLICATE_COMMAND', 'A command with the given command id has already been successfully processed', [['COMMAND_ID', s.commandId]]);
    throw has(CF.s409) ? withStatus(e, 400) : e;
  }
  const tx = commitTransaction(state, s);
  state.changeIds.add(changeId);
  return tx;
}

/** Submits a transaction and appends it to the ledger (also used for seeding). */
export function commitTransaction(state: LedgerState, s: Submission): TransactionUpdate {
  const effectiveAt = state.nextTime();
  const updateId = variantUpdateId(state.world.variant, `${state.ledgerEnd + 1}:${s.commandId}:${state.nextSeq()}`);
  const p = plan(state, s, updateId, effectiveAt);
  const tx = state.append<TransactionUpdate>((offset) => ({
    kind: 'transaction',
    offset,
    updateId,
    commandId: s.commandId,
    workflowId: s.workflowId,
    submitters: [...s.actAs],
    recordTime: effectiveAt,
    effectiveAt,
    synchronizerId: p.synchronizerId,
    traceparent: traceparent(),
    nodes: p.nodes,
  }));
  for (const c of p.created) state.world.contracts.set(c.contractId, { ...c, synchronizerId: p.synchronizerId, reassignmentCounter: 0 });
  for (const id of p.archived) state.world.contracts.delete(id);
  return tx;
}

type Shape = 'TRANSACTION_SHAPE_ACS_DELTA' | 'TRANSACTION_SHAPE_LEDGER_EFFECTS';

/** The events of a transaction as the event format and shape let the requesting parties see them. */
export function projectTransaction(tx: TransactionUpdate, ef: EventFormat, shape: Shape): Obj[] {
  const createdHere = new Set(tx.nodes.filter((n) => n.kind === 'create').map((n) => n.contract.contractId));
  const consumedHere = new Set(tx.nodes.filter((n) => n.kind === 'exercise' && n.consuming).map((n) => n.contract.contractId));
  const events: Obj[] = [];
  for (const n of tx.nodes) {
    const transient = createdHere.has(n.contract.contractId) && consumedHere.has(n.contract.contractId);
    if (shape === 'TRANSACTION_SHAPE_ACS_DELTA') {
      // The ACS delta: creates that survive the transaction and archives of contracts that existed before it.
      if (transient) continue;
      if (n.kind === 'create') {
        const v = visibility(ef, stakeholders(n.contract), n.contract);
        if (v !== undefined) events.push({ CreatedEvent: createdEvent(n.contract, tx.offset, n.nodeId, v, true) });
      } else if (n.consuming) {
        const v = visibility(ef, stakeholders(n.contract), n.contract);
        if (v !== undefined) events.push({ ArchivedEvent: archivedEvent(n.contract, tx.offset, n.nodeId, v) });
      }
    } else if (n.kind === 'create') {
      const v = visibility(ef, stakeholders(n.contract), n.contract);
      if (v !== undefined) events.push({ CreatedEvent: createdEvent(n.contract, tx.offset, n.nodeId, v, !transient) });
    } else {
      const v = visibility(ef, exerciseInformees(n), n.contract);
      if (v !== undefined) events.push({ ExercisedEvent: exercisedEvent(n, tx.offset, v, n.consuming && !transient) });
    }
  }
  return events;
}

/** The tree of a submission as the submitting (and reading) parties see it. */
function transactionTree(tx: TransactionUpdate, parties: string[]): Obj {
  // The tree is the ledger-effects projection of the transaction for the submitting parties.
  const eventsById: Obj = {};
  for (const e of projectTransaction(tx, wildcardFormat(parties), 'TRANSACTION_SHAPE_LEDGER_EFFECTS')) {
    const created = e.CreatedEvent as Obj | undefined;
    const event = (created ?? e.ExercisedEvent) as Obj;
    // FACTS.md: a tree's events come under their kind key and then value (a transaction's directly under the key)
    eventsById[String(event.nodeId)] = created !== undefined ? { CreatedTreeEvent: { value: created } } : { ExercisedTreeEvent: { value: event } };
  }
  return {
    updateId: tx.updateId,
    commandId: tx.commandId,
    workflowId: tx.workflowId,
    effectiveAt: tx.effectiveAt,
    offset: tx.offset,
    eventsById,
    synchronizerId: tx.synchronizerId,
    traceContext: traceContext(tx.traceparent),
    recordTime: tx.recordTime,
  };
}

export const updateNotFound = (offset: number) =>
  err.notFound('UPDATE_NOT_FOUND', 'Update not found, or not visible.', [['OFFSET', String(offset)]]);

const SHAPES = ['TRANSACTION_SHAPE_UNSPECIFIED', 'TRANSACTION_SHAPE_ACS_DELTA', 'TRANSACTION_SHAPE_LEDGER_EFFECTS'] as const;

interface ByOffsetRequest {
  offset: number;
  requestingParties?: string[];
  eventFormat?: EventFormat;
  shape?: (typeof SHAPES)[number];
}

function decodeByOffset(body: Obj): ByOffsetRequest {
  const tf = optObject(body, 'transactionFormat');
  return {
    offset: reqInt(body, 'offset', '', 64),
    requestingParties: optStringArray(body, 'requestingParties'),
    eventFormat: tf === undefined ? undefined : decodeEventFormat(reqObject(tf, 'eventFormat', 'transactionFormat'), 'transactionFormat.eventFormat'),
    shape: tf === undefined ? undefined : (optEnum(tf, 'transactionShape', SHAPES, 'transactionFormat') ?? 'TRANSACTION_SHAPE_UNSPECIFIED'),
  };
}

/** The event format and shape a by-offset request asks for (requestingParties implies the ACS-delta defaults). */
function formatOf(r: ByOffsetRequest, has: Has = () => false): { ef: EventFormat; shape: Shape } {
  let hasParties = r.requestingParties !== undefined && r.requestingParties.length > 0;
  if (hasParties && r.eventFormat !== undefined && has(QF.both)) hasParties = false;
  if (hasParties && has(QF.partiesRejected)) throw err.invalidArgument('requesting_parties is no longer supported');
  if (!hasParties && r.eventFormat === undefined && has(QF.neither)) return { ef: { byParty: new Map(), anyParty: [{ kind: 'wildcard', includeCreatedEventBlob: false }], verbose: true }, shape: 'TRANSACTION_SHAPE_ACS_DELTA' };
  if (r.shape === 'TRANSACTION_SHAPE_UNSPECIFIED' && r.eventFormat !== undefined && has(QF.unspecified)) r.shape = 'TRANSACTION_SHAPE_ACS_DELTA';
  if (r.shape === 'TRANSACTION_SHAPE_LEDGER_EFFECTS' && has(QF.shapes)) throw err.invalidArgument('unsupported transaction shape');
  if (hasParties && r.eventFormat !== undefined) throw err.invalidArgument('requesting_parties and transaction_format are mutually exclusive');
  if (hasParties) {
    for (const p of r.requestingParties ?? []) if (!isParty(p)) throw err.invalidField('requesting_parties', `Invalid party ${JSON.stringify(p.slice(0, 200))}`);
    return { ef: wildcardFormat(r.requestingParties ?? []), shape: 'TRANSACTION_SHAPE_ACS_DELTA' };
  }
  if (r.eventFormat === undefined) throw err.missingField('transaction_format');
  if (r.shape === undefined || r.shape === 'TRANSACTION_SHAPE_UNSPECIFIED') throw err.missingField('transaction_shape');
  return { ef: r.eventFormat, shape: r.shape };
}

export function transactionRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  const has: Has = (f) => ctx.faults.has(f);
  route(app, ctx, 'POST', '/v2/commands/submit-and-wait-for-transaction-tree', async (c) => {
    if (has(QF.treeGone)) throw err.notFound('NOT_FOUND', 'The requested resource could not be found: POST /v2/commands/submit-and-wait-for-transaction-tree');
    const raw = faultyCommands(await c.json(), has);
    // planted: an ExerciseByKeyCommand crashes the submission instead of being refused
    if (has(QF.byKeyServerError) && Array.isArray(raw.commands) && raw.commands.some((x: unknown) => isObject(x) && x.ExerciseByKeyCommand !== undefined)) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    const s = decodeSubmission(raw);
    const caller = await c.caller();
    if (has(QF.archivedServerError) && s.commands.some((x) => x.kind === 'exercise' && !state.world.contracts.has(x.contractId))) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    // planted: a template id naming a package id the participant does not have crashes the lookup
    if (has(QF.unknownPackageServerError) && s.commands.some((x) => !x.templateId.startsWith('#') && !state.localPackages.has(x.templateId.slice(0, x.templateId.indexOf(':'))))) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    validateSubmission(s, caller, state, has);
    const tx = commitOnce(state, caller, s, has);
    const tree = transactionTree(tx, [...s.actAs, ...s.readAs]);
    if (has(QF.treeSchema)) delete tree.eventsById;
    if (has(QF.treeNull)) tree.recordTime = null;
    if (has(QF.treeFlat)) tree.eventsById = Object.fromEntries(Object.entries(tree.eventsById as Record<string, Obj>).map(([id, e]) => [id, Object.fromEntries(Object.entries(e).map(([k, v]) => [k, (v as Obj).value]))]));
    return { transactionTree: tree };
  });

  // FACTS.md: 3.6 no longer serves transaction-by-offset; the not-found handler answers it as any unknown route
  if (ctx.options.ledgerVersion !== '3.6' || has(QF.byOffsetKept)) route(app, ctx, 'POST', '/v2/updates/transaction-by-offset', async (c) => {
    try {
      return await byOffsetHandler(c);
    } catch (e) {
      if (!(e instanceof CantonError)) throw e;
      if (e.code === 'UPDATE_NOT_FOUND' && has(CF.s404)) throw withStatus(e, 400);
      if (e.code === 'UPDATE_NOT_FOUND' && (has(CF.category) || has(CF.shape))) {
        const body = e.body.bind(e);
        Object.defineProperty(e, 'body', { value: (id: string) => ({ ...body(id), errorCategory: has(CF.shape) ? '11' : 8 }) });
      }
      if (e.code === 'MISSING_FIELD' && has(CF.named)) throw new CantonError('MISSING_FIELD', 'NOT_FOUND', e.message);
      throw e;
    }
  });
  const byOffsetHandler = async (c: Parameters<Parameters<typeof route>[4]>[0]) => {
    if (has(QF.byOffsetGone)) throw err.notFound('NOT_FOUND', 'The requested resource could not be found: POST /v2/updates/transaction-by-offset');
    const body = await c.json();
    // planted fault (offset-beyond-int64-server-error): an offset past int64 overflows the lookup
    if (has(QF.int64Overflow) && typeof body.offset === 'number' && Math.abs(body.offset) >= 2 ** 63) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    const tf = body.transactionFormat as Obj | undefined;
    // planted: what a request leaves out is made up instead of refused
    if (has(QF.noEventFormat) && isObject(tf) && tf.eventFormat === undefined) {
      // a wildcard for every party the caller may read as
      const parties = (await c.caller()).user.rights.flatMap((x) => ((x.kind === 'CanReadAs' || x.kind === 'CanActAs') && 'party' in x ? [x.party] : []));
      tf.eventFormat = { filtersByParty: Object.fromEntries(parties.map((p) => [p, {}])) };
    }
    if (has(QF.filterNoId) && isObject(tf)) {
      const ef = tf.eventFormat as Obj | undefined;
      const lists = [...Object.values((ef?.filtersByParty ?? {}) as Record<string, Obj>), ef?.filtersForAnyParty as Obj | undefined];
      for (const f of lists) for (const cf of (Array.isArray(f?.cumulative) ? f.cumulative : []) as Obj[]) {
        const id = cf.identifierFilter as Record<string, { value?: Obj }> | undefined;
        if (id?.TemplateFilter !== undefined && id.TemplateFilter.value?.templateId === undefined) cf.identifierFilter = { WildcardFilter: { value: {} } };
        if (id?.InterfaceFilter !== undefined && id.InterfaceFilter.value?.interfaceId === undefined) cf.identifierFilter = { WildcardFilter: { value: {} } };
      }
    }
    const r = decodeByOffset(body);
    const caller = await c.caller();
    if (r.offset === 0 && has(QF.nonPositive)) throw updateNotFound(r.offset);
    if (r.offset <= 0 && has(QF.nonPositiveAccepted)) {
      const now = new Date().toISOString();
      return { transaction: { updateId: `cc-empty-${-r.offset}`, commandId: '', workflowId: '', effectiveAt: now, events: [], offset: r.offset, synchronizerId: '', recordTime: now } };
    }
    faultyEventFormat((body.transactionFormat as { eventFormat?: unknown } | undefined)?.eventFormat, r.eventFormat, has);
    if (r.offset <= 0) throw new CantonError('NON_POSITIVE_OFFSET', 'INVALID_ARGUMENT', `Offset ${r.offset} in offset is not a positive integer`);
    const { ef, shape } = formatOf(r, has);
    validateEventFormat(ef, caller);
    const u = state.update(r.offset);
    if (u === undefined && has(QF.unknown)) throw err.invalidArgument(`Offset ${r.offset} is beyond the ledger end`);
    if (u === undefined || u.kind !== 'transaction') throw updateNotFound(r.offset);
    const events = faultyWrappers(readProjection(u, ef, shape, has), has);
    // planted fault (filtered-out-server-error): a filter that leaves every event out crashes the lookup
    if (events.length === 0 && has(QF.filteredOutServerError)) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    if (events.length === 0 && !has(QF.invisible)) throw updateNotFound(r.offset);
    // The command id is shown only to readers of a submitting party.
    const seesCommand = u.submitters.some((p) => ef.byParty.has(p)) || ef.anyParty !== undefined;
    return {
      transaction: {
        updateId: u.updateId,
        commandId: seesCommand ? u.commandId : '',
        workflowId: u.workflowId,
        effectiveAt: u.effectiveAt,
        events: has(QF.txSchema) ? Object.fromEntries(events.map((e, i) => [String(i), e])) : events,
        offset: has(QF.offset) ? u.offset + 1 : u.offset,
        synchronizerId: u.synchronizerId,
        traceContext: traceContext(u.traceparent),
        ...(has(QF.required) ? {} : { recordTime: u.recordTime }),
        // FACTS.md: an unset optional field is sent as JSON null, not left out
        externalTransactionHash: null,
        paidTrafficCost: 0,
      },
    };
  };

  route(app, ctx, 'GET', has(CF.prefix) ? '/v1/state/ledger-end' : '/v2/state/ledger-end', async (c) => {
    await c.caller();
    if (has(CF.contentType)) return c.reply.code(200).header('content-type', 'text/html').send(`<p>${state.ledgerEnd}</p>`);
    return { offset: has(CF.ledgerEnd) ? String(state.ledgerEnd) : state.ledgerEnd };
  });

  route(app, ctx, 'GET', '/v2/state/connected-synchronizers', async (c) => {
    const caller = await c.caller();
    const party = c.query.party;
    if (party !== undefined && party !== '' && !caller.isAdmin) caller.requireReadAs(party);
    if (has(CF.status)) c.reply.code(203);
    const body = {
      connectedSynchronizers: state.world.synchronizers.map((synchronizerId) => ({
        synchronizerAlias: synchronizerId.slice(0, synchronizerId.indexOf('::')),
        ...(has(CF.syncs) ? {} : { synchronizerId }),
        permission: 'PARTICIPANT_PERMISSION_SUBMISSION',
      })),
    };
    if (has(CF.status)) return c.reply.header('content-type', 'application/json').send(JSON.stringify(body));
    return body;
  });
}
