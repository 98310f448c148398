import fc from 'fast-check';
import { describe } from 'vitest';
import { invalidIntegerText, invalidPathOrQueryText } from '../../../generators/scan/Malformed.js';
import { pathPrefixCheck, robustnessCheck } from '../../v0-http-checks.js';

describe('Validator HTTP behaviour', () => {
  robustnessCheck(
    {
      id: 'validator.http.robustness',
      api: 'validator',
      operations: ['listOwnedAnsEntries', 'getOpenAndIssuingMiningRounds', 'getFeaturedAppRight', 'listScanProxyAnsEntries'],
      requirements: ['validator.http.no-server-error', 'validator.http.documented-status', 'validator.http.documented-content-type', 'validator.errors.error-body'],
    },
    async () =>
      fc.oneof(
        fc.record({ op: fc.constant('listOwnedAnsEntries' as const), token: fc.option(invalidPathOrQueryText(), { nil: undefined }) }),
        fc.record({ op: fc.constant('getOpenAndIssuingMiningRounds' as const) }),
        fc.record({ op: fc.constant('getFeaturedAppRight' as const), party: invalidPathOrQueryText() }),
        fc.record({ op: fc.constant('listScanProxyAnsEntries' as const), prefix: fc.option(invalidPathOrQueryText(), { nil: undefined }), size: fc.oneof(invalidIntegerText(), fc.constant('10')) }),
      ),
    (t, r) => {
      if (r.op === 'listOwnedAnsEntries') return t.call('listOwnedAnsEntries', { auth: r.token === undefined ? 'none' : { token: r.token.replace(/[^\x21-\x7e]/g, '_').slice(0, 2000) } });
      if (r.op === 'getOpenAndIssuingMiningRounds') return t.call('getOpenAndIssuingMiningRounds');
      if (r.op === 'getFeaturedAppRight') return t.call('getFeaturedAppRight', { params: { provider_party_id: r.party } });
      return t.call('listScanProxyAnsEntries', { query: { page_size: r.size, ...(r.prefix !== undefined ? { name_prefix: r.prefix } : {}) } });
    },
  );

  // GET /v0/entry/all is left out: it documents 404 (a user not onboarded), so a 404 says nothing about its path
  pathPrefixCheck({ id: 'validator.versioning.path-prefix', api: 'validator', requirement: 'validator.versioning.path-prefix' }, [
    ['getOpenAndIssuingMiningRounds', {}],
    ['listScanProxyAnsEntries', { query: { page_size: 1 } }],
  ]);
});
