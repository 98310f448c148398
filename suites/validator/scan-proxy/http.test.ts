import fc from 'fast-check';
import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { invalidIntegerText, invalidPathOrQueryText } from '../../../generators/scan/Malformed.js';

describe('Validator HTTP behaviour', () => {
  conformance(
    {
      id: 'validator.http.robustness',
      title: 'answers valid and malformed requests with documented statuses, content types and error bodies, never 5xx',
      api: 'validator',
      operations: ['listOwnedAnsEntries', 'getOpenAndIssuingMiningRounds', 'getFeaturedAppRight', 'listScanProxyAnsEntries'],
      requirements: ['validator.http.no-server-error', 'validator.http.documented-status', 'validator.http.documented-content-type', 'validator.errors.error-body'],
    },
    async (t) => {
      const request = fc.oneof(
        fc.record({ op: fc.constant('listOwnedAnsEntries'), token: fc.option(invalidPathOrQueryText(), { nil: undefined }) }),
        fc.record({ op: fc.constant('getOpenAndIssuingMiningRounds') }),
        fc.record({ op: fc.constant('getFeaturedAppRight'), party: invalidPathOrQueryText() }),
        fc.record({ op: fc.constant('listScanProxyAnsEntries'), prefix: fc.option(invalidPathOrQueryText(), { nil: undefined }), size: fc.oneof(invalidIntegerText(), fc.constant('10')) }),
      );
      await t.property(request, async (r) => {
        if (r.op === 'listOwnedAnsEntries') await t.call('listOwnedAnsEntries', { auth: r.token === undefined ? 'none' : { token: r.token.replace(/[^\x21-\x7e]/g, '_').slice(0, 2000) } });
        else if (r.op === 'getOpenAndIssuingMiningRounds') await t.call('getOpenAndIssuingMiningRounds');
        else if (r.op === 'getFeaturedAppRight') await t.call('getFeaturedAppRight', { params: { provider_party_id: r.party } });
        else await t.call('listScanProxyAnsEntries', { query: { page_size: r.size, ...(r.prefix !== undefined ? { name_prefix: r.prefix } : {}) } });
      }, { runs: t.config.run.runs });
    },
  );

  conformance(
    {
      id: 'validator.versioning.path-prefix',
      title: 'serves every endpoint under /v0',
      api: 'validator',
      operations: ['listOwnedAnsEntries', 'getOpenAndIssuingMiningRounds', 'listScanProxyAnsEntries'],
      requirements: ['validator.versioning.path-prefix'],
    },
    async (t) => {
      const xs = [
        await t.call('getOpenAndIssuingMiningRounds'),
        await t.call('listScanProxyAnsEntries', { query: { page_size: 1 } }),
        await t.call('listOwnedAnsEntries', { auth: { role: 'user' } }),
      ];
      for (const x of xs) t.expect(x.status !== 404 || x.operationId === 'listOwnedAnsEntries', `${x.record.request.method} ${x.record.request.url} answered 404: the endpoint is not served under /v0`, { exchange: x });
    },
  );
});
