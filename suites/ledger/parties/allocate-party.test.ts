import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';

describe('POST /v2/parties', () => {
  conformance(
    {
      id: 'ledger.allocate-party.schema',
      title: 'answers 200 with the allocated party, whose id starts with the hint',
      api: 'ledger',
      operations: ['allocateParty'],
      requirements: ['ledger.allocate-party.response-schema'],
    },
    async (t) => {
      const hint = t.uniqueName('cc-party');
      const x = await t.call('allocateParty', { json: { partyHint: hint, identityProviderId: '' } });
      t.expectStatus(x, 200);
      const party = (x.json as { partyDetails?: { party?: unknown } } | undefined)?.partyDetails?.party;
      t.expect(typeof party === 'string' && party.startsWith(hint), `the allocated party is ${JSON.stringify(party)}`, { exchange: x });
    },
  );
});
