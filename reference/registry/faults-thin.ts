/** Planted faults of the registry thin slice (transfer-instruction withdraw choice context). */
import { registerFaults } from '../faults.js';

export const REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_CONFLICT = 'registry-transfer-instruction-withdraw-unknown-id-conflict';
export const REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_EMPTY_CONTEXT = 'registry-transfer-instruction-withdraw-unknown-id-empty-context';

registerFaults([
  {
    // a rejection (the MUST of a 4xx holds), but not the 404 FACTS.md gives
    name: REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_CONFLICT,
    requirement: 'registry.errors.unknown-id-404',
    description: 'POST .../transfer-instruction/v1/{id}/choice-contexts/withdraw answers 409 (documented, but wrong) instead of 404 for an unknown id',
  },
  {
    name: REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_EMPTY_CONTEXT,
    requirement: 'registry.get-transfer-instruction-withdraw-context.unknown-id-not-found',
    description: 'an unknown transfer instruction id is answered 200 with an empty choice context',
  },
]);
