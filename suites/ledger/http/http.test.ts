import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { ed25519DerKey } from '../../../generators/ledger/topology.js';
import { allocationRequest } from '../../../harness/fixtures/ledger.js';
import { vettingOpFor } from '../../../harness/fixtures/ledger-vetting.js';
import { mayAnswerAnywhere } from '../../../harness/judging/checks.js';

describe('ledger HTTP', () => {
  conformance(
    {
      id: 'ledger.http.generic',
      title: 'answers setup and query requests, valid and invalid, with documented statuses and content types and no 5xx, under /v2',
      api: 'ledger',
      operations: ['getVersion', 'getLedgerEnd', 'getConnectedSynchronizers', 'getPackageVetting', 'listPackageVetting'],
      requirements: ['ledger.http.documented-status', 'ledger.http.documented-content-type', 'ledger.http.no-server-error', 'ledger.versioning.path-prefix'],
    },
    async (t) => {
      for (const op of ['getVersion', 'getLedgerEnd', 'getConnectedSynchronizers']) {
        // the request goes to the operation's /v2 path of the API description: a 404 means it is not served there
        const x = await t.call(op);
        await t.judge('ledger.versioning.path-prefix', () => {
          // an overload refusal, a redirect or a server error says nothing about where the route is served
          if (mayAnswerAnywhere('ledger', x.status) || (x.status >= 300 && x.status < 400) || x.status >= 500) t.skip(`${op} was answered ${x.status}, which does not tell whether it is served under /v2`);
          t.expect(x.status !== 404, `${op} is not served under /v2 (404)`, { requirement: 'ledger.versioning.path-prefix', exchange: x });
        });
      }
      await t.call(vettingOpFor(t), { json: { pageToken: 'not-a-token-the-server-issued' } });
      await t.call('listPackageVetting', { json: { pageSize: -5 } });
      // a Content-Type header that is no media type: a client error, whatever the answer, and no 5xx
      await t.call('listPackageVetting', { body: '{"pageSize": 1}', headers: { 'content-type': '/' } });
      // a JSON body without any Content-Type header (bytes, so that no client library adds one): no 5xx either
      await t.call('listPackageVetting', { body: new TextEncoder().encode('{"pageSize": 1}') });
    },
  );

  conformance(
    {
      id: 'ledger.http.unknown-fields',
      title: 'processes request bodies with a field the operation does not define as if it were absent',
      api: 'ledger',
      operations: ['listPackageVetting', 'generateExternalPartyTopology', 'allocateParty'],
      requirements: ['ledger.http.unknown-request-fields-ignored'],
    },
    async (t) => {
      t.expectStatus(await t.call('listPackageVetting', { json: { pageSize: 1, ccUnknownField: 'x' } }), 200);
      const syncs = await t.call('getConnectedSynchronizers');
      const sync = (syncs.json as { connectedSynchronizers?: { synchronizerId?: string }[] } | undefined)?.connectedSynchronizers?.[0]?.synchronizerId;
      if (sync !== undefined) t.expectStatus(await t.call('generateExternalPartyTopology', { json: { synchronizer: sync, partyHint: t.uniqueName('cc-ext'), publicKey: ed25519DerKey(), ccUnknownField: 1 } }), 200);
      t.expectStatus(await t.call('allocateParty', { json: await allocationRequest(t, t.uniqueName('cc-party'), { ccUnknownField: 'x' }) }), 200, { what: 'allocateParty with a field it does not define' });
    },
  );
});
