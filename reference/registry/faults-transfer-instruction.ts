/** Planted faults of POST /registry/transfer-instruction/v1/{id}/choice-contexts/withdraw (the unknown-id fault is in faults-thin.ts). */
import { registerFaults } from '../faults.js';

export const TI_MISSING_DISCLOSED_CONTRACTS = 'registry-transfer-instruction-withdraw-missing-disclosed-contracts';
export const TI_MALFORMED_BODY_ACCEPTED = 'registry-transfer-instruction-withdraw-malformed-body-accepted';
export const TI_SERVED_DURING_REASSIGNMENT = 'registry-transfer-instruction-withdraw-served-during-reassignment';
export const TI_SEEDED_MOVING_SERVED = 'registry-transfer-instruction-withdraw-long-unassigned-served';

registerFaults([
  {
    name: TI_MISSING_DISCLOSED_CONTRACTS,
    requirement: 'registry.get-transfer-instruction-withdraw-context.response-schema',
    description: 'the transfer-instruction withdraw context leaves out disclosedContracts',
  },
  {
    name: TI_MALFORMED_BODY_ACCEPTED,
    requirement: 'registry.get-transfer-instruction-withdraw-context.malformed-body-rejected',
    description: 'the transfer-instruction withdraw endpoint ignores the body: wrong types, non-objects and invalid JSON are answered 200',
  },
  {
    name: TI_SERVED_DURING_REASSIGNMENT,
    requirement: 'registry.get-transfer-instruction-withdraw-context.reassignment-conflict',
    description: 'the transfer-instruction withdraw context is answered 200 while the instruction is being reassigned',
  },
  {
    name: TI_SEEDED_MOVING_SERVED,
    requirement: 'registry.get-transfer-instruction-withdraw-context.reassignment-conflict',
    description: 'a transfer instruction whose reassignment began before the registry started (the one seeded unassigned, fixture midReassignmentTransferInstructionId) is answered 200; one moved while it runs still answers 409',
  },
]);
