import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { expectStatus, validatorUser } from '../../v0-http-checks.js';

describe('GET /v0/scan-proxy/open-and-issuing-mining-rounds', () => {
  conformance(
    {
      id: 'validator.get-open-and-issuing-mining-rounds.schema',
      title: 'answers 200 with open_mining_rounds and issuing_mining_rounds, lists of ContractWithState',
      api: 'validator',
      operations: ['getOpenAndIssuingMiningRounds'],
      requirements: ['validator.get-open-and-issuing-mining-rounds.response-schema'],
    },
    async (t) => {
      const x = await t.call('getOpenAndIssuingMiningRounds', { auth: await validatorUser(t) });
      expectStatus(t, x, 200);
      const body = (x.json ?? {}) as Record<string, unknown>;
      for (const k of ['open_mining_rounds', 'issuing_mining_rounds']) t.expect(Array.isArray(body[k]), `${k} is not a list`, { exchange: x });
    },
  );
});
