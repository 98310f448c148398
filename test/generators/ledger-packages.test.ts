import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { invalidArchive, invalidVetFlag } from '../../generators/ledger/packages.js';

describe('generators/ledger/packages', () => {
  it('never generates a zip archive or a boolean flag', () => {
    for (const b of fc.sample(invalidArchive(), { seed: 1, numRuns: 100 })) expect(b[0] === 0x50 && b[1] === 0x4b).toBe(false);
    for (const v of fc.sample(invalidVetFlag(), { seed: 1, numRuns: 20 })) expect(['true', 'false']).not.toContain(v);
  });
  it('gives the same values for the same seed', () => {
    expect(fc.sample(invalidArchive(), { seed: 4, numRuns: 10 })).toEqual(fc.sample(invalidArchive(), { seed: 4, numRuns: 10 }));
  });
});
