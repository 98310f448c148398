import { describe } from 'vitest';
import { withdrawContextChecks } from '../withdraw-context-checks.js';

describe('POST /registry/allocation-instruction/v2/{allocationInstructionId}/choice-contexts/withdraw', () => {
  withdrawContextChecks('allocation', {
    context: 'registry.allocation-instruction-withdraw.context',
    debugFields: 'registry.allocation-instruction-withdraw.debug-fields',
    metaOptional: 'registry.allocation-instruction-withdraw.meta-optional',
    unknownId: 'registry.allocation-instruction-withdraw.unknown-id',
    malformedBody: 'registry.allocation-instruction-withdraw.malformed-body',
  });
});
