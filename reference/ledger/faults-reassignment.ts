/** Planted faults of POST /v2/commands/submit-and-wait-for-reassignment. */
import { registerFaults } from '../faults.js';

export const RF = {
  changeIdNoUser: 'ledger-reassignment-change-id-ignores-user',
  schema: 'ledger-reassignment-update-id-missing',
  empty: 'ledger-reassignment-empty-commands-accepted',
  workflow: 'ledger-reassignment-workflow-id-required',
  userId: 'ledger-reassignment-user-id-required',
  notMoved: 'ledger-reassignment-assign-does-not-move',
  swapped: 'ledger-reassignment-assign-event-source-target-swapped',
  counter: 'ledger-reassignment-counter-not-incremented',
  noUnassignEvent: 'ledger-reassignment-unassign-event-omitted',
  formatIgnored: 'ledger-reassignment-event-format-ignored',
  unknownContract: 'ledger-reassignment-unknown-contract-internal-error',
  wrongSource: 'ledger-reassignment-source-unchecked',
  unknownId: 'ledger-reassignment-unknown-reassignment-id-internal-error',
  propagated: 'ledger-reassignment-not-found-as-400',
  noCreated: 'ledger-reassignment-assign-without-created-event',
  actAs: 'ledger-reassignment-act-as-unchecked',
  flatUnassign: 'ledger-reassignment-unassign-event-flat',
  nullField: 'ledger-reassignment-synchronizer-id-null',
  commandId: 'ledger-reassignment-command-id-not-echoed',
  createdOffset: 'ledger-reassignment-created-event-earlier-offset',
  missingCommandId: 'ledger-reassignment-missing-command-id-generated',
  emptyUnassign: 'ledger-reassignment-unassign-event-empty',
  mixedServerError: 'ledger-reassignment-mixed-commands-server-error',
  unknownTarget: 'ledger-reassignment-unknown-target-accepted',
  sameSynchronizer: 'ledger-reassignment-same-synchronizer-accepted',
  assignTwice: 'ledger-reassignment-completed-assignment-repeated',
  changeIdNoSubmitter: 'ledger-reassignment-change-id-ignores-submitter',
  emptyCommandId: 'ledger-reassignment-empty-command-id-accepted',
  emptyCommandServerError: 'ledger-reassignment-empty-command-server-error',
  batchFirstTarget: 'ledger-reassignment-batch-first-target-only',
  assignSynchronizersUnchecked: 'ledger-reassignment-assign-synchronizers-unchecked',
} as const;

/** The planted fault batchFirstTarget: every unassignment of a batch goes where the first one goes, whatever its own target. */
export function firstTargetForAll(commands: ReadonlyArray<{ kind: string; target?: string }>): void {
  const first = commands.find((c) => c.kind === 'unassign');
  for (const c of commands) if (c.kind === 'unassign' && first?.target !== undefined) c.target = first.target;
}

/** The planted fault assignSynchronizersUnchecked: an assignment is taken as naming its unassignment's source and target. */
export function pendingSynchronizers(commands: ReadonlyArray<{ kind: string; reassignmentId?: string; source?: string; target?: string }>, reassignments: ReadonlyMap<string, ReadonlyArray<{ source: string; target: string }>>): void {
  for (const c of commands) {
    const head = c.kind === 'assign' && c.reassignmentId !== undefined ? reassignments.get(c.reassignmentId)?.[0] : undefined;
    if (head === undefined) continue;
    c.source = head.source;
    c.target = head.target;
  }
}

/**
 * The planted faults of an unassignment's target: a target the participant is not connected to (unknownTarget) or the
 * command's own source (sameSynchronizer) is taken as another connected synchronizer, so the command passes validation.
 */
export function retargetUnassignments(commands: ReadonlyArray<{ kind: string; source?: string; target?: string }>, synchronizers: readonly string[], has: (f: string) => boolean): void {
  for (const c of commands) {
    if (c.kind !== 'unassign' || c.source === undefined || c.target === undefined) continue;
    const wrong = (has(RF.unknownTarget) && !synchronizers.includes(c.target)) || (has(RF.sameSynchronizer) && c.target === c.source);
    const other = synchronizers.find((s) => s !== c.source);
    if (wrong && other !== undefined) c.target = other;
  }
}

/** The planted fault assignTwice: the completed reassignments an assignment names are pending again, so it is accepted. */
export function reopenCompleted(commands: ReadonlyArray<{ kind: string; reassignmentId?: string }>, reassignments: ReadonlyMap<string, ReadonlyArray<{ completed: boolean }>>): void {
  for (const c of commands) {
    if (c.kind !== 'assign' || c.reassignmentId === undefined) continue;
    for (const p of reassignments.get(c.reassignmentId) ?? []) p.completed = false;
  }
}

const r = (name: string, requirement: string, description: string) => ({ name, requirement, description });
const S = 'ledger.submit-and-wait-for-reassignment';
registerFaults([
  r(RF.batchFirstTarget, `${S}.same-synchronizer-rejected`, 'the unassignments of a batch all go to the first one\'s target: one whose target is its own source is accepted'),
  r(RF.assignSynchronizersUnchecked, `${S}.assign-event-matches-command`, 'an assignment naming other synchronizers than its unassignment is accepted as naming the unassignment\'s'),
  r(RF.unknownTarget, `${S}.unknown-target-rejected`, 'an unassignment to a synchronizer the participant is not connected to is accepted (moved to the other synchronizer)'),
  r(RF.sameSynchronizer, `${S}.same-synchronizer-rejected`, 'an unassignment whose target is its source is accepted (moved to the other synchronizer)'),
  r(RF.assignTwice, `${S}.unknown-reassignment-id-rejected`, 'an assignment naming a reassignment already completed is accepted again'),
  r(RF.changeIdNoSubmitter, `${S}.change-id`, 'the change id leaves out the submitter: the same user and command id with another submitter is refused as a duplicate'),
  r(RF.emptyCommandId, `${S}.required-fields-rejected`, 'a reassignment whose commandId is the empty string is submitted under a command id the participant makes up'),
  r(RF.emptyCommandServerError, 'ledger.http.no-server-error', 'a reassignment whose command is Empty is answered 500 INTERNAL'),
  r(RF.mixedServerError, 'ledger.http.no-server-error', 'a reassignment batch mixing an unassignment and an assignment is answered 500 INTERNAL'),
  r(RF.emptyUnassign, `${S}.response-schema`, 'the unassign event of an unassignment is an empty object under JsUnassignedEvent.value'),
  r(RF.missingCommandId, `${S}.required-fields-rejected`, 'a reassignment without a commandId is submitted under a command id the participant makes up'),
  r(RF.changeIdNoUser, `${S}.change-id`, 'the change id leaves out the user id: the same command id and submitter under another user is refused as a duplicate'),
  r(RF.schema, `${S}.required-fields`, 'the reassignment lacks updateId'),
  r(RF.empty, `${S}.empty-commands-rejected`, 'a submission with no commands answers 200'),
  r(RF.workflow, `${S}.optional-fields-omittable`, 'a submission without workflowId is rejected with 400'),
  r(RF.userId, `${S}.user-id-from-token`, 'a submission without userId is rejected with 400'),
  r(RF.notMoved, `${S}.unassign-then-assign`, 'an assignment leaves the contract unassigned'),
  r(RF.swapped, `${S}.assign-event-matches-command`, 'the assign event has source and target swapped'),
  r(RF.counter, `${S}.counter-increments`, 'an unassignment does not increase the reassignment counter'),
  r(RF.noUnassignEvent, `${S}.unassign-event-with-format`, 'an unassignment answers with no events even with an eventFormat'),
  r(RF.formatIgnored, `${S}.event-format-applied`, 'the eventFormat filters are ignored: every event of the submitter is returned'),
  r(RF.unknownContract, `${S}.unknown-contract-rejected`, 'an unknown contract id fails with 500'),
  r(RF.wrongSource, `${S}.wrong-source-rejected`, 'an unassignment from a synchronizer the contract is not on is accepted'),
  r(RF.unknownId, `${S}.unknown-reassignment-id-rejected`, 'an unknown reassignmentId fails with 500'),
  r(RF.propagated, `${S}.error-propagated`, 'an unknown contract (gRPC NOT_FOUND) is answered 400'),
  r(RF.noCreated, 'ledger.events.assign-carries-created-event', 'the assign event carries no createdEvent'),
  r(RF.actAs, 'ledger.auth.act-as-submitter', 'a reassignment is accepted without CanActAs for the submitter'),
  r(RF.flatUnassign, `${S}.event-wrappers`, 'the unassign event comes with its fields directly under JsUnassignedEvent, not under value'),
  r(RF.nullField, `${S}.required-fields`, 'the reassignment carries synchronizerId as null'),
  r(RF.commandId, `${S}.command-id-echoed`, "the reassignment's commandId is its updateId, not the submitted commandId"),
  r(RF.createdOffset, 'ledger.events.offset-of-update', "an assign event's createdEvent carries the offset before the reassignment's"),
]);
