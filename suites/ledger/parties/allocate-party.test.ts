import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { allocationRequest, connectedSynchronizers } from '../../../harness/fixtures/ledger.js';
import { errorCode } from '../../../harness/fixtures/ledger-users.js';
import { notBusy, refusesTheInput } from '../../rejections.js';

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

  conformance(
    {
      id: 'ledger.allocate-party.synchronizer-required',
      title: 'refuses an allocation that names no synchronizerId on a participant connected to two or more synchronizers, with PARTY_ALLOCATION_CANNOT_DETERMINE_SYNCHRONIZER',
      api: 'ledger',
      operations: ['allocateParty'],
      requirements: ['ledger.allocate-party.synchronizer-required'],
    },
    async (t) => {
      const syncs = await connectedSynchronizers(t);
      if (syncs.length < 2) t.skip(`the participant is connected to ${syncs.length} synchronizer(s): only one connected to two or more needs a synchronizerId (FACTS.md)`);
      // a fresh hint, so that no earlier allocation can decide the answer
      const hint = t.uniqueName('cc-nosync');
      const x = await t.call('allocateParty', { json: { partyIdHint: hint, identityProviderId: '' } });
      notBusy(t, x);
      refusesTheInput(x, []);
      t.expect(x.status >= 400 && x.status < 500, `an allocation naming no synchronizer on a participant connected to ${syncs.length} answered ${x.status}, not a 4xx`, { exchange: x });
      const code = errorCode(x);
      t.expect(code === 'PARTY_ALLOCATION_CANNOT_DETERMINE_SYNCHRONIZER', `the refusal's error code is ${JSON.stringify(code)}, not PARTY_ALLOCATION_CANNOT_DETERMINE_SYNCHRONIZER`, { exchange: x });
    },
  );
});
