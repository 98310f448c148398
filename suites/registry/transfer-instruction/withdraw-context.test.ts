import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { withdrawContextChecks } from '../withdraw-context-checks.js';

describe('POST /registry/transfer-instruction/v1/{transferInstructionId}/choice-contexts/withdraw', () => {
  conformance(
    {
      id: 'registry.transfer-instruction-withdraw.unknown-id',
      title: 'answers 404 with an {error} body for an unknown transfer instruction',
      api: 'registry',
      operations: ['getTransferInstructionWithdrawContext'],
      requirements: ['registry.get-transfer-instruction-withdraw-context.unknown-id-not-found'],
    },
    async (t) => {
      const id = `00${t.uniqueName('unknown').replace(/[^a-z0-9]/g, '')}`;
      const x = await t.call('getTransferInstructionWithdrawContext', { params: { transferInstructionId: id }, json: {} });
      t.expectStatus(x, 404);
    },
  );

  withdrawContextChecks('transfer', {
    context: 'registry.transfer-instruction-withdraw.context',
    debugFields: 'registry.transfer-instruction-withdraw.debug-fields',
    metaOptional: 'registry.transfer-instruction-withdraw.meta-optional',
    unknownId: 'registry.transfer-instruction-withdraw.unknown-id-generated',
    malformedBody: 'registry.transfer-instruction-withdraw.malformed-body',
  });
});
