/**
 * Helpers shared by ledger checks in several files (not a check file itself): which endpoints a target has to serve
 * (the deprecated transaction endpoints, traffic accounts), tree submissions, and the events of a response.
 */
import type { CheckContext } from '../../harness/conformance.js';
import type { Exchange } from '../../harness/http.js';
import type { Submitter, TemplateFixture } from '../../harness/fixtures/ledger.js';
import { errorCode } from '../../harness/fixtures/ledger-users.js';
import { outOfRange } from '../../harness/versions.js';

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

/** An element of a transaction's or reassignment's events: one key naming the event kind. */
export type Ev = Record<string, Record<string, unknown>>;

/** The events of a transaction (lookup) or reassignment (submission) response; [] when there are none. */
export function eventsOf(x: Exchange): Ev[] {
  const j = x.json as { transaction?: { events?: unknown }; reassignment?: { events?: unknown } } | undefined;
  const e = (j?.transaction ?? j?.reassignment)?.events;
  return Array.isArray(e) ? (e as Ev[]) : [];
}
