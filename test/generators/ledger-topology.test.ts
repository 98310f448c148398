import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { ed25519DerKey, listedKey, partyHint, participantUid } from '../../generators/ledger/topology.js';

describe('generators/ledger/topology', () => {
  it('generates requests that match GenerateExternalPartyTopologyRequest', () => {
    const arb = fc.record({ partyHint: partyHint(), publicKey: listedKey(), observingParticipantUids: fc.array(participantUid(), { maxLength: 2 }) });
    for (const v of fc.sample(arb, { seed: 1, numRuns: 40 })) {
      expect(schemaRegistry().validateComponent('ledger', 'GenerateExternalPartyTopologyRequest', { synchronizer: 's::1220ab', ...v })).toEqual([]);
    }
    expect(schemaRegistry().validateComponent('ledger', 'SigningPublicKey', ed25519DerKey())).toEqual([]);
  });
  it('gives the same values for the same seed', () => {
    expect(fc.sample(partyHint(), { seed: 3, numRuns: 10 })).toEqual(fc.sample(partyHint(), { seed: 3, numRuns: 10 }));
    expect(fc.sample(listedKey(), { seed: 3, numRuns: 10 })).toEqual(fc.sample(listedKey(), { seed: 3, numRuns: 10 }));
  });
});
