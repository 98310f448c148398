/** Planted faults of the registry thin slice (transfer-instruction withdraw choice context). */
import { registerFaults } from '../faults.js';

export const REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_CONFLICT = 'registry-transfer-instruction-withdraw-unknown-id-conflict';

registerFaults([
  {
    name: REGISTRY_TRANSFER_INSTRUCTION_WITHDRAW_UNKNOWN_ID_CONFLICT,
    requirement: 'registry.get-transfer-instruction-withdraw-context.unknown-id-not-found',
    description: 'POST .../transfer-instruction/v1/{id}/choice-contexts/withdraw answers 409 (documented, but wrong) instead of 404 for an unknown id',
  },
]);
