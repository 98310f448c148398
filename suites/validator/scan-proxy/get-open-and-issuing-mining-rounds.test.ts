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

  conformance(
    {
      id: 'validator.get-open-and-issuing-mining-rounds.rounds-listed',
      title: 'lists at least the open and issuing mining rounds the network always has (fixtures openMiningRoundsMin, issuingMiningRoundsMin)',
      api: 'validator',
      operations: ['getOpenAndIssuingMiningRounds'],
      requirements: ['validator.get-open-and-issuing-mining-rounds.rounds-listed'],
    },
    async (t) => {
      // SPEC.md gives no scan endpoint to compare the rounds with: what must be there comes from the target's fixtures
      const wanted = ([['open_mining_rounds', 'openMiningRoundsMin'], ['issuing_mining_rounds', 'issuingMiningRoundsMin']] as const)
        .map(([list, fixture]) => ({ list, fixture, min: t.fixture<unknown>(fixture) }))
        .filter((w): w is { list: typeof w.list; fixture: typeof w.fixture; min: number } => typeof w.min === 'number' && Number.isInteger(w.min) && w.min > 0);
      if (wanted.length === 0) t.skip('how many mining rounds the network has is unknown: configure fixtures.openMiningRoundsMin or issuingMiningRoundsMin (an empty list is no proof that the network has none)');
      const x = await t.call('getOpenAndIssuingMiningRounds', { auth: await validatorUser(t) });
      expectStatus(t, x, 200);
      const body = (x.json ?? {}) as Record<string, unknown>;
      for (const { list, fixture, min } of wanted) {
        const got = body[list];
        const n = Array.isArray(got) ? got.length : 0;
        t.expect(n >= min, `${list} lists ${n} round(s), fewer than the ${min} the network always has (fixtures.${fixture})`, { exchange: x });
      }
    },
  );
});
