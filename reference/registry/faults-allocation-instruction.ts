/** Planted faults of POST /registry/allocation-instruction/v2/{id}/choice-contexts/withdraw, and the unsupported mode. */
import { registerFaults } from '../faults.js';

export const AI_MISSING_CHOICE_CONTEXT_DATA = 'registry-allocation-instruction-withdraw-missing-choice-context-data';
export const AI_UNKNOWN_ID_EMPTY_CONTEXT = 'registry-allocation-instruction-withdraw-unknown-id-empty-context';
export const AI_MALFORMED_BODY_ACCEPTED = 'registry-allocation-instruction-withdraw-malformed-body-accepted';
export const AI_SERVED_DURING_REASSIGNMENT = 'registry-allocation-instruction-withdraw-served-during-reassignment';
export const AI_SEEDED_MOVING_SERVED = 'registry-allocation-instruction-withdraw-long-unassigned-served';
export const AI_SERVED_WHILE_DISCLOSED_MOVES = 'registry-allocation-instruction-withdraw-served-while-disclosed-contract-moves';
export const AI_UNSUPPORTED = 'registry-allocation-instructions-unsupported';
export const AI_NOT_SERVED = 'registry-versioning-allocation-endpoints-not-served';
export const AI_SERVED_EARLY = 'registry-versioning-allocation-endpoints-served-before-0-6-11';
export const TI_UNDER_V2 = 'registry-versioning-transfer-instruction-under-v2';

registerFaults([
  {
    name: AI_SERVED_EARLY,
    requirement: 'registry.versioning.allocation-endpoints-absent-before',
    description: 'a 0.6.10 registry serves the allocation-instruction endpoints',
  },
  {
    name: AI_MISSING_CHOICE_CONTEXT_DATA,
    requirement: 'registry.get-allocation-instruction-withdraw-context.response-schema',
    description: 'the allocation-instruction withdraw context leaves out choiceContextData',
  },
  {
    name: AI_UNKNOWN_ID_EMPTY_CONTEXT,
    requirement: 'registry.get-allocation-instruction-withdraw-context.unknown-id-not-found',
    description: 'an unknown allocation instruction id is answered 200 with an empty choice context',
  },
  {
    name: AI_MALFORMED_BODY_ACCEPTED,
    requirement: 'registry.get-allocation-instruction-withdraw-context.malformed-body-rejected',
    description: 'the allocation-instruction withdraw endpoint ignores the body: wrong types, non-objects and invalid JSON are answered 200',
  },
  {
    name: AI_SERVED_DURING_REASSIGNMENT,
    requirement: 'registry.get-allocation-instruction-withdraw-context.instruction-reassignment-conflict',
    description: 'the allocation-instruction withdraw context is answered 200 while the instruction (which it does not disclose) is being reassigned',
  },
  {
    name: AI_SEEDED_MOVING_SERVED,
    requirement: 'registry.get-allocation-instruction-withdraw-context.instruction-reassignment-conflict',
    description: 'an allocation instruction whose reassignment began before the registry started (the one seeded unassigned, fixture midReassignmentAllocationInstructionId) is answered 200; one moved while it runs still answers 409',
  },  {
    name: AI_SERVED_WHILE_DISCLOSED_MOVES,
    requirement: 'registry.get-allocation-instruction-withdraw-context.reassignment-conflict',
    description: 'the allocation-instruction withdraw context is answered 200 while a contract it discloses (the rules or the mining round) is being reassigned',
  },
  {
    name: AI_NOT_SERVED,
    requirement: 'registry.versioning.allocation-endpoints-added',
    description: 'a 0.6.11 registry that does not serve the allocation-instruction endpoints: both answer 404 (no route); the allocation checks that need a 200 fail too',
  },
  {
    name: TI_UNDER_V2,
    requirement: 'registry.versioning.path-versions',
    description: 'the transfer-instruction withdraw endpoint is served under /v2 only: /registry/transfer-instruction/v1/... answers 404 (no route); the transfer checks that need a 200 fail too',
  },
  {
    // FACTS.md allows the 400 to a registry without the kind; only the target's configuration can say it has none
    // (features.allocationInstructions false, as test/registry-unsupported.test.ts configures it): without that a 400
    // to a valid request is a refusal
    name: AI_UNSUPPORTED,
    requirement: 'registry.get-allocation-instruction-withdraw-context.response-schema',
    description:
      'both allocation-instruction endpoints answer 400 to every request, valid ones included, while the configuration does not say allocation instructions are unsupported',
  },
]);
