/**
 * Sharding: `run --shard i/n` runs a stable share of the checks, so a run can spread over n CI machines and the shards'
 * reports be merged into one (`canton-conformance merge`). A check's shard depends only on its id and n: the same
 * check lands in the same shard whatever runs, in whatever order, whichever suite files or interfaces are selected.
 */

export interface Shard {
  /** 1-based */
  index: number;
  count: number;
}

/** FNV-1a, 32 bits: a stable hash of a check id (also the base of each check's property seed). */
export function hash32(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The shard (1-based) a check belongs to when the checks are cut into `count` shards. */
export function shardOf(checkId: string, count: number): number {
  // mixed once more, so that ids that differ only in their last characters spread evenly over small counts
  let h = hash32(checkId);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  return (h % count) + 1;
}

export const inShard = (checkId: string, shard: Shard | undefined): boolean => shard === undefined || shardOf(checkId, shard.count) === shard.index;

export const shardLabel = (s: Shard): string => `${s.index}/${s.count}`;

/** The most shards a run may be cut into. */
export const MAX_SHARDS = 1000;

/** Parses "i/n" (1 <= i <= n <= MAX_SHARDS); returns the problem as a message instead of throwing. */
export function parseShard(value: string): Shard | string {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  if (m === null) return `"${value}" is not of the form i/n (e.g. 2/3: the second of three shards)`;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > MAX_SHARDS) return `"${value}": the shard count must be between 1 and ${MAX_SHARDS}`;
  if (index < 1 || index > count) return `"${value}": the shard index must be between 1 and ${count}`;
  return { index, count };
}
