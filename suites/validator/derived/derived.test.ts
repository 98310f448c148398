/**
 * Requests derived from specs/validator.yaml (suites/derived-checks.ts). Only listScanProxyAnsEntries takes a
 * parameter the document constrains (page_size); listOwnedAnsEntries and getOpenAndIssuingMiningRounds take none, and
 * getFeaturedAppRight's provider party id is an unconstrained string.
 */
import { describe } from 'vitest';
import { pageSizeInRange } from '../../../harness/fixtures/scan.js';
import { validatorUser } from '../../v0-http-checks.js';
import { derivedCheck } from '../../derived-checks.js';

describe('validator requests derived from the specs', () => {
  derivedCheck({
    api: 'validator',
    operationId: 'listScanProxyAnsEntries',
    kinds: ['required-removed', 'out-of-range', 'non-integer'],
    prepare: async (t) => ({ auth: await validatorUser(t), request: () => ({ params: {}, query: { page_size: '10' } }) }),
    // the scan the proxy reads may allow page sizes above the document's 1000 (its operator's maximum, FACTS.md)
    validOnTarget: pageSizeInRange,
  });
});
