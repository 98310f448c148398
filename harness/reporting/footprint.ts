/** The run's lasting footprint on its targets, summed over its checks. */
import type { CheckResultMeta } from '../types.js';

export interface RunFootprint {
  /** party allocations the ledger accepted: a participant never deletes a party */
  parties: number;
  /** package uploads the ledger accepted: packages are never deleted (an upload of a package held already adds none) */
  packageUploads: number;
  /**
   * distinct archives among them that the ledger had not accepted before (from an earlier run, as reports/state
   * records it): the packages the run added, at most
   */
  packagesAdded?: number;
  /** users created and not removed */
  usersLeft: string[];
  /**
   * creations a check asked for whose answer was lost (a dropped connection, a timeout, a gateway's 5xx, a check cut
   * off while waiting): possibly left on the target, not counted above; each with the id its request named (a user id,
   * a party's hint, an archive's digest), per check. Absent when there are none.
   */
  possiblyLeft?: Array<{ check: string; kind: 'user' | 'party' | 'package'; id: string; why: string }>;
  /** clean-up steps that failed after their retries, per check */
  notCleanedUp: Array<{ check: string; what: string }>;
  /** what earlier runs left behind and this run repaired (contracts left mid-reassignment), per check */
  repaired?: Array<{ check: string; what: string }>;
}

export function footprintOf(checks: readonly CheckResultMeta[]): RunFootprint {
  const f: RunFootprint = { parties: 0, packageUploads: 0, packagesAdded: 0, usersLeft: [], notCleanedUp: [] };
  const added = new Set<string>();
  for (const c of checks) {
    if (c.footprint !== undefined) {
      f.parties += c.footprint.parties;
      f.packageUploads += c.footprint.packageUploads;
      for (const d of c.footprint.packagesAdded ?? []) added.add(d);
      f.usersLeft.push(...c.footprint.usersLeft);
      for (const p of c.footprint.possiblyLeft ?? []) (f.possiblyLeft ??= []).push({ check: c.id, ...p });
      for (const what of c.footprint.repaired ?? []) (f.repaired ??= []).push({ check: c.id, what });
    }
    for (const what of c.notCleanedUp ?? []) f.notCleanedUp.push({ check: c.id, what });
  }
  f.packagesAdded = added.size;
  return f;
}
