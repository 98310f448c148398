/**
 * Traffic account updates: sequences of (deduplicationId, balanceDelta) where ids come from a small pool so that
 * retries reuse them, deltas may be absent and may take the balance below zero.
 */
import fc from 'fast-check';

export interface TrafficUpdate {
  /** index into a pool of deduplication ids: equal indexes are retries of the same update */
  id: number;
  /** absent leaves the balance unchanged */
  balanceDelta?: number;
}

export const trafficUpdate = (pool = 4): fc.Arbitrary<TrafficUpdate> =>
  fc.record({ id: fc.nat({ max: pool - 1 }), balanceDelta: fc.integer({ min: -1000, max: 1000 }) }, { requiredKeys: ['id'] });

/** A sequence of updates on one account. */
export const trafficUpdates = (maxLength = 6) => fc.array(trafficUpdate(), { minLength: 1, maxLength });

/**
 * The balance a correct participant answers after each update, from the balance the account had before them: each
 * deduplication id applies once; an absent delta adds nothing.
 */
export function modelBalances(updates: TrafficUpdate[], start = 0): number[] {
  const seen = new Set<number>();
  let balance = start;
  return updates.map((u) => {
    if (!seen.has(u.id)) {
      seen.add(u.id);
      balance += u.balanceDelta ?? 0;
    }
    return balance;
  });
}

/** An update request without its required deduplicationId. */
export const invalidMissingDedupId = () => fc.integer({ min: -1000, max: 1000 }).map((balanceDelta) => ({ balanceDelta }));
