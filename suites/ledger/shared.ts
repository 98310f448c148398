/**
 * Helpers shared by ledger checks in several files (not a check file itself): which endpoints a target has to serve
 * (the deprecated transaction endpoints, traffic accounts), tree submissions, and the events of a response.
 */
import type { CheckContext } from '../../harness/conformance.js';
import type { Exchange } from '../../harness/transport/http.js';
import { routeNotServed, type Submitter, type TemplateFixture } from '../../harness/fixtures/ledger.js';
import { errorCode } from '../../harness/fixtures/ledger-users.js';
import { ledgerOperationGone, outOfRange } from '../../harness/judging/versions.js';

/** SPEC.md Versioning: transaction-by-offset and submit-and-wait-for-transaction-tree have their removal scheduled for 3.5.0. */
const REMOVAL = '3.5';

/** Whether the target's version is at or past the scheduled removal of the deprecated transaction endpoints. */
export const pastRemoval = (t: CheckContext): boolean => outOfRange(t.target.version, undefined, REMOVAL) !== undefined;

/**
 * Whether transaction-by-offset answered as an endpoint that is served: anything but a 404 without UPDATE_NOT_FOUND
 * (the code of an offset with no visible transaction). A 404 without it means the endpoint is not served: false from
 * 3.5 on, where its removal is scheduled (the caller does not judge the answer); before 3.5 it fails
 * ledger.versioning.transaction-by-offset-served.
 */
export function byOffsetServed(t: CheckContext, x: Exchange): boolean {
  if (x.status !== 404 || errorCode(x) === 'UPDATE_NOT_FOUND') return true;
  if (pastRemoval(t)) return false;
  t.fail(`POST /v2/updates/transaction-by-offset is not served before ${REMOVAL} (404 without UPDATE_NOT_FOUND)`, { requirement: 'ledger.versioning.transaction-by-offset-served', exchange: x });
}

/** The endpoint a transaction was read through (see readTransaction). */
export type TransactionReadVia = 'transaction-by-offset' | 'update-by-offset';

/** Checks that found transaction-by-offset not served (a 404 without UPDATE_NOT_FOUND from 3.5 on): not asked again. */
const byOffsetNotServed = new WeakSet<CheckContext>();

/**
 * Reads the transaction at `offset` under a TransactionFormat (`{eventFormat, transactionShape}`), for rules about
 * events and event formats rather than about the endpoint: through POST /v2/updates/transaction-by-offset where it is
 * served, else through its replacement POST /v2/updates/update-by-offset with the same event format and shape
 * (`{offset, updateFormat: {includeTransactions: format}}`, answered `{update: {Transaction: {value}}}`). Not served:
 * gone at the target's version (3.6, FACTS.md), or a 404 without UPDATE_NOT_FOUND from 3.5 on (byOffsetServed; before
 * 3.5 that fails ledger.versioning.transaction-by-offset-served). Both answers are read by eventsOf and transactionOf;
 * a 404 UPDATE_NOT_FOUND means the same on both. Stops the check as unsupported when neither endpoint is served.
 */
export async function readTransaction(
  t: CheckContext,
  offset: number,
  transactionFormat: Record<string, unknown>,
  auth?: { user: string },
): Promise<{ x: Exchange; via: TransactionReadVia }> {
  const a = auth !== undefined ? { auth } : {};
  if (ledgerOperationGone(t.target.version, 'getTransactionByOffset') === undefined && !byOffsetNotServed.has(t)) {
    const x = await t.call('getTransactionByOffset', { json: { offset, transactionFormat }, ...a });
    if (byOffsetServed(t, x)) return { x, via: 'transaction-by-offset' };
    byOffsetNotServed.add(t);
  }
  const x = await t.call('getUpdateByOffset', { json: { offset, updateFormat: { includeTransactions: transactionFormat } }, ...a });
  if (routeNotServed(x)) t.unsupported(`neither transaction-by-offset nor its replacement update-by-offset is served (update-by-offset answered ${x.status} without a JsCantonError)`);
  return { x, via: 'update-by-offset' };
}

/** The transaction of a transaction-by-offset answer ({transaction}) or of update-by-offset's {update: {Transaction: {value}}}. */
export function transactionOf(x: Exchange): Record<string, unknown> | undefined {
  const j = x.json as { transaction?: unknown; update?: { Transaction?: { value?: unknown } } } | undefined;
  const tx = j?.transaction ?? j?.update?.Transaction?.value;
  return isObj(tx) ? tx : undefined;
}

/**
 * Whether submit-and-wait-for-transaction-tree answered as an endpoint that is served (anything but 404). A 404 means
 * it is not served: false from 3.5 on, where its removal is scheduled; before 3.5 it fails
 * ledger.versioning.transaction-tree-served.
 */
export function treeServed(t: CheckContext, x: Exchange): boolean {
  if (x.status !== 404) return true;
  if (pastRemoval(t)) return false;
  t.fail(`POST /v2/commands/submit-and-wait-for-transaction-tree answers 404 before ${REMOVAL}`, { requirement: 'ledger.versioning.transaction-tree-served', exchange: x });
}

/**
 * Whether the target serves traffic account updates: FACTS.md, "3.5 and later, only where traffic enforcement is on".
 * The target's configuration has to say enforcement is on; an unset feature does not tell.
 */
export const trafficServed = (t: CheckContext): boolean => t.target.features.trafficEnforcement === true && outOfRange(t.target.version, '3.5') === undefined;

/** A template filter list that selects everything, without the created event blob. */
export const WILDCARD = { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] };

export const createCommand = (tmpl: TemplateFixture, party: string) => ({ CreateCommand: { templateId: tmpl.templateId, createArguments: tmpl.createArguments(party) } });

/** Submits commands through submit-and-wait-for-transaction-tree, acting as the submitter (by default as its user). */
export function submitTree(t: CheckContext, s: Submitter, commands: unknown[], o: { user?: string; commandId?: string } = {}): Promise<Exchange> {
  const user = o.user ?? s.userId;
  return t.call('submitAndWaitForTransactionTree', { auth: { user }, json: { commands, commandId: o.commandId ?? t.uniqueName('cmd'), userId: user, actAs: [s.party] } });
}

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * One event of a response, unwrapped from its kind key. FACTS.md ("how real responses are encoded"): a transaction's
 * events carry the event directly under the kind key (`{"CreatedEvent": {...}}`), a tree's eventsById under the kind
 * key and then `value` (`{"CreatedTreeEvent": {"value": {...}}}`), a reassignment's `{"JsAssignmentEvent": {...}}`
 * directly and `{"JsUnassignedEvent": {"value": {...}}}` under `value`. Readers take either form wherever it comes, so
 * that a rule about the event is judged on the event; the form seen is kept for the rules about the wrappers.
 */
export interface Ev {
  /** the first key of the element: the event kind */
  kind: string;
  /** every key of the element (SPEC.md: exactly one) */
  keys: string[];
  /** the event itself, {} when the kind key holds no object */
  event: Obj;
  /** 'value' when the event sits under `value` below the kind key, 'direct' when its fields are right under the key */
  form: 'direct' | 'value';
}

/** Unwraps one element `{Kind: event}` or `{Kind: {value: event}}`; undefined when it is not an object with a key. */
export function unwrapEvent(e: unknown): Ev | undefined {
  if (!isObj(e)) return undefined;
  const keys = Object.keys(e);
  const kind = keys[0];
  if (kind === undefined) return undefined;
  const inner = e[kind];
  if (!isObj(inner)) return { kind, keys, event: {}, form: 'direct' };
  // no event kind has an object-valued field named value: such a field is the wrapper
  return isObj(inner.value) ? { kind, keys, event: inner.value, form: 'value' } : { kind, keys, event: inner, form: 'direct' };
}

const unwrapAll = (list: unknown[]): Ev[] => list.map(unwrapEvent).filter((e): e is Ev => e !== undefined);

/** The events of a transaction (lookup) or reassignment (submission) response, unwrapped; [] when there are none. */
export function eventsOf(x: Exchange): Ev[] {
  const j = x.json as { transaction?: { events?: unknown }; reassignment?: { events?: unknown }; update?: { Transaction?: { value?: { events?: unknown } } } } | undefined;
  // a transaction answer, a reassignment answer, or update-by-offset's {update: {Transaction: {value}}}
  const e = (j?.transaction ?? j?.reassignment ?? j?.update?.Transaction?.value)?.events;
  return Array.isArray(e) ? unwrapAll(e) : [];
}

/** The events of a transaction tree response (the values of eventsById), unwrapped; [] when there are none. */
export function treeEventsOf(x: Exchange): Ev[] {
  const byId = (x.json as { transactionTree?: { eventsById?: unknown } } | undefined)?.transactionTree?.eventsById;
  return isObj(byId) ? unwrapAll(Object.values(byId)) : [];
}

/** The first event of a kind, unwrapped. */
export const eventOf = (evs: Ev[], kind: string): Obj | undefined => evs.find((e) => e.kind === kind)?.event;

/** The wrapper FACTS.md gives each known event kind, by the response it comes in. */
export const WRAPPERS = {
  transaction: { CreatedEvent: 'direct', ArchivedEvent: 'direct', ExercisedEvent: 'direct' },
  tree: { CreatedTreeEvent: 'value', ExercisedTreeEvent: 'value' },
  reassignment: { JsAssignmentEvent: 'direct', JsUnassignedEvent: 'value' },
} as const satisfies Record<string, Record<string, Ev['form']>>;

const formText = (kind: string, form: Ev['form']) => (form === 'value' ? `{"${kind}": {"value": {...}}}` : `{"${kind}": {...}}`);

/** Which wrapper forms the events came in, for the report (the readers take either; the event-wrappers rules judge). */
export function noteWrappers(t: CheckContext, evs: Ev[], where: keyof typeof WRAPPERS): void {
  for (const e of evs) t.note(`${where} events come as ${formText(e.kind, e.form)}`);
}

/**
 * What is wrong with the wrappers of `evs` against FACTS.md's forms for `where` (one message per offending kind and
 * form), or [] when each event of a known kind comes as FACTS.md says. A kind FACTS.md does not name is left alone for
 * the events of a transaction or reassignment; a tree's eventsById knows only its two kinds.
 */
export function wrapperProblems(evs: Ev[], where: keyof typeof WRAPPERS): string[] {
  const want: Record<string, Ev['form']> = WRAPPERS[where];
  const problems = new Set<string>();
  for (const e of evs) {
    const form = want[e.kind];
    if (form === undefined) {
      if (where === 'tree') problems.add(`an eventsById entry is keyed ${e.kind}, not CreatedTreeEvent or ExercisedTreeEvent`);
    } else if (e.form !== form) {
      problems.add(`a ${e.kind} comes as ${formText(e.kind, e.form)}, not as ${formText(e.kind, form)}`);
    }
  }
  return [...problems];
}

/**
 * Judges one condition on its own requirement (see t.judge): when it does not hold, the failure is recorded against
 * that requirement and the check goes on with its others. Returns whether it held.
 */
export const judgeThat = (t: CheckContext, requirement: string, condition: unknown, message: string, x?: Exchange): Promise<boolean> =>
  t.judge(requirement, () => t.expect(condition, message, { requirement, ...(x !== undefined ? { exchange: x } : {}) }));

/** Whether a value is present: neither absent nor JSON null (FACTS.md: real servers send unset optional fields as null). */
export const present = (v: unknown): boolean => v !== undefined && v !== null;
