/**
 * The order a run starts its suite files in (harness/run/file-order.ts): longest first, and a file whose checks
 * lock shared target state placed where the file that holds that state is expected to end, so that no worker waits
 * on a lock with nothing to do.
 */
import { describe, expect, it } from 'vitest';
import { fileProfiles, fileWeights, orderFiles, orderFilesOf, type FileWeight } from '../../harness/run/file-order.js';
import type { Config } from '../../harness/config.js';
import type { CheckResultMeta } from '../../harness/types.js';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const check = (id: string, file: string, from: number, to: number, shares?: string[], reads?: string[]): CheckResultMeta =>
  ({ id, file, firstRequestAt: at(from), lastResponseAt: at(to), ...(shares !== undefined ? { shares } : {}), ...(reads !== undefined ? { reads } : {}) }) as unknown as CheckResultMeta;

/** vitest's pool: each worker takes the next file in order when its last one ended; a file waits for its locks */
function simulate(order: string[], w: Record<string, FileWeight>, workers: number): number {
  const free = Array.from({ length: workers }, () => 0);
  const lockedUntil = new Map<string, number>();
  let end = 0;
  for (const f of order) {
    const i = free.indexOf(Math.min(...free));
    const start = Math.max(free[i]!, ...(w[f]!.shares ?? []).map((r) => lockedUntil.get(r) ?? 0));
    free[i] = start + w[f]!.ms;
    for (const r of w[f]!.shares ?? []) lockedUntil.set(r, free[i]!);
    end = Math.max(end, free[i]!);
  }
  return end;
}

describe('the order of the suite files', () => {
  it('is longest first without shared state, files without a time first in the order given', () => {
    const w: Record<string, FileWeight> = { a: { ms: 100 }, b: { ms: 900 }, c: { ms: 500 } };
    expect(orderFiles(['x', 'a', 'b', 'y', 'c'], (f) => f, w, 2)).toEqual(['x', 'y', 'b', 'c', 'a']);
  });

  it('starts a file that waits for shared state when the file holding it is expected to end, and other files meanwhile', () => {
    // two files lock the vetting state: by length alone the second starts second and waits 8 s in its worker
    const w: Record<string, FileWeight> = {
      upload: { ms: 9000, shares: ['package-vetting'] },
      vetting: { ms: 5000, shares: ['package-vetting'] },
      ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`small-${i}`, { ms: 1500 }])),
    };
    const files = Object.keys(w);
    const order = orderFiles(files, (f) => f, w, 2);
    expect(order.indexOf('vetting')).toBeGreaterThan(order.indexOf('upload') + 1);
    expect(new Set(order)).toEqual(new Set(files));
    const longestFirst = [...files].sort((a, b) => w[b]!.ms - w[a]!.ms);
    expect(simulate(order, w, 2)).toBeLessThan(simulate(longestFirst, w, 2));
    // the locked files end one after the other, the rest beside them: the run lasts the lock's chain
    expect(simulate(order, w, 2)).toBe(14_000);
  });

  it('takes, when every file left waits for shared state, the one whose state frees first', () => {
    const w: Record<string, FileWeight> = {
      a1: { ms: 4000, shares: ['a'] },
      b1: { ms: 3000, shares: ['b'] },
      a2: { ms: 2000, shares: ['a'] },
      b2: { ms: 1000, shares: ['b'] },
    };
    expect(orderFiles(Object.keys(w), (f) => f, w, 2)).toEqual(['a1', 'b1', 'b2', 'a2']);
  });

  it('keeps each file\'s own time and the state its checks lock, not the time they waited for others', () => {
    const checks = [
      check('u1', 'upload', 0, 4, ['package-vetting']),
      check('u2', 'upload', 4, 6, ['package-vetting']),
      check('v1', 'vetting', 6, 7, ['package-vetting']),
      check('v2', 'vetting', 0, 1),
      check('r1', 'reads', 0, 2),
      check('r2', 'reads', 1, 3),
    ];
    expect(fileWeights(checks)).toEqual({ upload: 6000, vetting: 1000, reads: 3000 });
    expect(fileProfiles(checks)).toEqual({ upload: { ms: 6000, shares: ['package-vetting'] }, vetting: { ms: 1000, shares: ['package-vetting'] }, reads: { ms: 3000 } });
    // checks that only read the state run beside each other (their file's time is their span together), and their
    // file is placed like a holder's: it waits for the holders of other files
    const readers = [...checks, check('w1', 'walks', 0, 2, undefined, ['package-vetting']), check('w2', 'walks', 1, 2.5, undefined, ['package-vetting'])];
    expect(fileProfiles(readers).walks).toEqual({ ms: 2500, shares: ['package-vetting'] });
  });

  it('is planned from the last run against the same targets, else the last against any, and the reference\'s from its own', () => {
    const against = (...urls: string[]) => ({ useReference: false, targets: Object.fromEntries(urls.map((url, i) => [['ledger', 'scan'][i], { url }])) }) as unknown as Pick<Config, 'useReference' | 'targets'>;
    const [staging, fallback] = orderFilesOf(against('https://staging.example/ledger', 'https://staging.example/scan'));
    expect(fallback).toBe('target.json');
    expect(orderFilesOf(against('https://staging.example/ledger', 'https://staging.example/scan'))[0]).toBe(staging);
    expect(orderFilesOf(against('http://127.0.0.1:7575', 'http://127.0.0.1:5012'))[0]).not.toBe(staging);
    expect(orderFilesOf({ useReference: true, targets: {} } as unknown as Pick<Config, 'useReference' | 'targets'>)).toEqual(['reference.json']);
  });
});
