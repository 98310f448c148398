import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { allocationRequest } from '../../../harness/fixtures/ledger.js';

describe('POST /v2/parties', () => {
  conformance(
    {
      id: 'ledger.allocate-party.schema',
      title: 'answers 200 with the allocated party\'s details, a non-empty party id',
      api: 'ledger',
      operations: ['allocateParty'],
      requirements: ['ledger.allocate-party.response-schema'],
    },
    async (t) => {
      const hint = t.uniqueName('cc-party');
      // partyIdHint, and the synchronizer a participant connected to several needs (FACTS.md)
      const x = await t.call('allocateParty', { json: await allocationRequest(t, hint) });
      t.expectStatus(x, 200);
      const party = (x.json as { partyDetails?: { party?: unknown } } | undefined)?.partyDetails?.party;
      // how the party id is built from the hint is stated nowhere (SPEC.md says so only for external parties)
      t.expect(typeof party === 'string' && party !== '', `the allocated party is ${JSON.stringify(party)}`, { exchange: x });
    },
  );
});
