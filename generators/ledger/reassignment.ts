/**
 * Reassignment sequences: a contract moved back and forth between two synchronizers, each move an unassignment and
 * the assignment that completes it, with optional request fields left out and event formats on or off.
 */
import fc from 'fast-check';

export interface Move {
  /** ask for events (an eventFormat covering the submitter) on the unassignment and the assignment */
  withFormat: boolean;
  /** leave userId out (the token names the user) */
  omitUserId: boolean;
  /** leave workflowId and submissionId out */
  omitOptional: boolean;
}

export const move = (): fc.Arbitrary<Move> => fc.record({ withFormat: fc.boolean(), omitUserId: fc.boolean(), omitOptional: fc.boolean() });

/** One to three moves of one contract. */
export const moves = (maxLength = 3) => fc.array(move(), { minLength: 1, maxLength });

export interface ReassignmentCommandsInput {
  commandId: string;
  submitter: string;
  userId?: string;
  workflowId?: string;
  submissionId?: string;
  command: { UnassignCommand: { value: { contractId: string; source: string; target: string } } } | { AssignCommand: { value: { reassignmentId: string; source: string; target: string } } };
}

/** The request body of one reassignment submission. */
export function reassignmentRequest(i: ReassignmentCommandsInput, eventFormat?: unknown): Record<string, unknown> {
  return {
    reassignmentCommands: {
      commandId: i.commandId,
      submitter: i.submitter,
      ...(i.userId !== undefined ? { userId: i.userId } : {}),
      ...(i.workflowId !== undefined ? { workflowId: i.workflowId } : {}),
      ...(i.submissionId !== undefined ? { submissionId: i.submissionId } : {}),
      commands: [{ command: i.command }],
    },
    ...(eventFormat !== undefined ? { eventFormat } : {}),
  };
}
