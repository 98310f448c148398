import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';

describe('GET /v2/state/ledger-end', () => {
  conformance(
    {
      id: 'ledger.get-ledger-end.schema',
      title: 'answers 200 with an integer ledger end offset',
      api: 'ledger',
      operations: ['getLedgerEnd'],
      requirements: ['ledger.get-ledger-end.response-schema'],
    },
    async (t) => {
      const x = await t.call('getLedgerEnd');
      t.expectStatus(x, 200);
      t.expect(Number.isInteger((x.json as { offset?: unknown } | undefined)?.offset), 'the ledger end offset is not an integer', { exchange: x });
    },
  );
});

describe('GET /v2/state/connected-synchronizers', () => {
  conformance(
    {
      id: 'ledger.get-connected-synchronizers.schema',
      title: 'answers 200 with the connected synchronizers',
      api: 'ledger',
      operations: ['getConnectedSynchronizers'],
      requirements: ['ledger.get-connected-synchronizers.response-schema'],
    },
    async (t) => {
      const x = await t.call('getConnectedSynchronizers');
      t.expectStatus(x, 200);
      const list = (x.json as { connectedSynchronizers?: { synchronizerId?: unknown }[] } | undefined)?.connectedSynchronizers;
      t.expect(Array.isArray(list) && list.every((s) => typeof s.synchronizerId === 'string'), 'a connected synchronizer has no synchronizerId', { exchange: x });
    },
  );
});
