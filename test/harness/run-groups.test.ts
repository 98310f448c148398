/**
 * The groups a run's suite files are loaded in, one per worker (harness/run-groups.ts): every file exactly
 * once, the times balanced, the files that lock shared target state together in the first group, each group longest
 * first.
 */
import { describe, expect, it } from 'vitest';
import { MAX_GROUPS, planGroups } from '../../harness/run-groups.js';
import type { FileWeight } from '../../harness/run/file-order.js';

const files = Array.from({ length: 20 }, (_, i) => `suites/f${i}.test.ts`);

describe('the groups of suite files', () => {
  it('holds every file once, in at most the groups asked for and never more than there are group files', () => {
    for (const k of [1, 2, 4, 7, 12]) {
      const groups = planGroups(files, k);
      expect(groups.length).toBe(Math.min(k, MAX_GROUPS));
      expect(groups.flat().sort()).toEqual([...files].sort());
    }
    expect(planGroups(files.slice(0, 3), 4)).toHaveLength(3);
  });

  it('balances the files by their last times, longest first within each group', () => {
    const weights: Record<string, FileWeight> = Object.fromEntries(files.map((f, i) => [f, { ms: (i + 1) * 100 }]));
    const groups = planGroups(files, 4, weights);
    const totals = groups.map((g) => g.reduce((s, f) => s + weights[f]!.ms, 0));
    // 21 000 ms in all: each group within the longest file (2 000 ms) of an even share
    for (const t of totals) expect(Math.abs(t - 21_000 / 4)).toBeLessThanOrEqual(2000);
    for (const g of groups) expect(g.map((f) => weights[f]!.ms)).toEqual([...g.map((f) => weights[f]!.ms)].sort((a, b) => b - a));
  });

  it('puts the files that lock shared target state together in the first group', () => {
    const weights: Record<string, FileWeight> = Object.fromEntries(files.map((f) => [f, { ms: 500 }]));
    weights[files[3]!] = { ms: 3000, shares: ['package-vetting'] };
    weights[files[11]!] = { ms: 2000, shares: ['package-vetting'] };
    weights[files[17]!] = { ms: 1000, shares: ['moving-contracts'] };
    const groups = planGroups(files, 4, weights);
    expect(groups[0]!.slice(0, 3)).toEqual([files[3], files[11], files[17]]);
    for (const g of groups.slice(1)) expect(g.some((f) => weights[f]!.shares !== undefined)).toBe(false);
    // the first group already holds 6 s: the others take the rest first
    expect(groups[0]!.length).toBeLessThan(groups[1]!.length);
  });
});
