import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { modelBalances, trafficUpdates } from '../../generators/ledger/traffic.js';

describe('generators/ledger/traffic', () => {
  it('generates requests that match UpdateTrafficAccountRequest', () => {
    for (const us of fc.sample(trafficUpdates(), { seed: 1, numRuns: 30 })) {
      for (const u of us) {
        const req = { accountId: 'alice::1220ab', deduplicationId: `d-${u.id}`, ...(u.balanceDelta !== undefined ? { balanceDelta: u.balanceDelta } : {}) };
        expect(schemaRegistry().validateComponent('ledger', 'UpdateTrafficAccountRequest', req)).toEqual([]);
      }
    }
  });
  it('gives the same values for the same seed, and the model applies each id once', () => {
    expect(fc.sample(trafficUpdates(), { seed: 5, numRuns: 10 })).toEqual(fc.sample(trafficUpdates(), { seed: 5, numRuns: 10 }));
    expect(modelBalances([{ id: 0, balanceDelta: 5 }, { id: 0, balanceDelta: 5 }, { id: 1 }, { id: 2, balanceDelta: -9 }])).toEqual([5, 5, 5, -4]);
    expect(modelBalances([{ id: 0, balanceDelta: 5 }, { id: 0, balanceDelta: 5 }, { id: 1, balanceDelta: -20 }], 10)).toEqual([15, 15, -5]);
  });
});
