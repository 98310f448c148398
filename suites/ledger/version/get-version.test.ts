import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';

describe('GET /v2/version', () => {
  conformance(
    {
      id: 'ledger.get-version.schema',
      title: 'answers 200 with a body that matches the version schema',
      api: 'ledger',
      operations: ['getVersion'],
      requirements: ['ledger.get-version.response-schema'],
    },
    async (t) => {
      const x = await t.call('getVersion');
      t.expectStatus(x, 200);
    },
  );
});
