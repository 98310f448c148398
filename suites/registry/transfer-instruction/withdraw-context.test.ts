import { describe } from 'vitest';
import { withdrawContextChecks } from '../withdraw-context-checks.js';

describe('POST /registry/transfer-instruction/v1/{transferInstructionId}/choice-contexts/withdraw', () => {
  withdrawContextChecks('transfer', {
    context: 'registry.transfer-instruction-withdraw.context',
    debugFields: 'registry.transfer-instruction-withdraw.debug-fields',
    metaOptional: 'registry.transfer-instruction-withdraw.meta-optional',
    unknownId: 'registry.transfer-instruction-withdraw.unknown-id',
    malformedBody: 'registry.transfer-instruction-withdraw.malformed-body',
  });
});
