import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { vettingFilter, walkPageSize } from '../../generators/ledger/vetting.js';

const u = {
  packageIds: ['a'.repeat(64), 'b'.repeat(64)],
  packageNames: ['reference-iou', 'splice-amulet'],
  participantIds: ['PAR::p1::1220aa'],
  synchronizerIds: ['s1::1220bb', 's2::1220bb'],
};

describe('generators/ledger/vetting', () => {
  it('generates requests that match ListVettedPackagesRequest', () => {
    for (const f of fc.sample(fc.tuple(vettingFilter(u), walkPageSize()), { seed: 1, numRuns: 50 })) {
      expect(schemaRegistry().validateComponent('ledger', 'ListVettedPackagesRequest', { ...f[0], pageSize: f[1], pageToken: '' })).toEqual([]);
    }
  });
  it('gives the same values for the same seed', () => {
    expect(fc.sample(vettingFilter(u), { seed: 7, numRuns: 10 })).toEqual(fc.sample(vettingFilter(u), { seed: 7, numRuns: 10 }));
  });
});
