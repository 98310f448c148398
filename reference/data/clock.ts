/**
 * The time a server's seeded scan, validator and registry data are relative to: the moment they were first built for
 * its World, which is the server's start (the scan, validator and registry routes build them when they register).
 * Every seeded timestamp derives from it, so the data is deterministic for a given start time and variant: open
 * mining rounds are open at the start, active ANS entries expire after it and expired ones before it, licences were
 * created and last active before it, the event history lies in the days before it.
 *
 * Two origins are taken from the start:
 * - `dayMs`, midnight UTC of the start's day, for the bulk data (ANS entries, licences, history, registry contracts):
 *   every server started on the same day renders the same timestamps, so the memo of rendered timestamps
 *   (seed.ts) is shared by the many servers of one self-test as it was with fixed dates;
 * - `tickMs`, the start floored to the round tick, for the mining rounds: the round that opened last before the start
 *   stays open (opensAt <= now < targetClosesAt) for at least two ticks after it.
 */
import type { World } from '../world.js';

export const DAY_MS = 86_400_000;
/**
 * The reference DSO's round tick (AmuletConfig.tickDuration). Splice's default is 10 minutes; the reference's DSO ticks
 * hourly so that a served reference shows an open round for two hours and more after its start (a round is open for
 * two ticks), while its seeded rounds stay fixed for the whole run, as checks that compare answers need.
 */
export const ROUND_TICK_MS = 3_600_000;

export interface DataClock {
  /** when the data were built: the server's start, ms since the epoch */
  startMs: number;
  /** midnight UTC of the start's day: origin of the bulk data's timestamps */
  dayMs: number;
  /** the start floored to the round tick: origin of the mining rounds */
  tickMs: number;
}

const clocks = new WeakMap<World, DataClock>();

function clockAt(startMs: number): DataClock {
  return { startMs, dayMs: Math.floor(startMs / DAY_MS) * DAY_MS, tickMs: Math.floor(startMs / ROUND_TICK_MS) * ROUND_TICK_MS };
}

/** The data clock of a World: fixed at its first use (the server's start), unless pinned before. */
export function dataClock(world: World): DataClock {
  let c = clocks.get(world);
  if (c === undefined) {
    c = clockAt(Date.now());
    clocks.set(world, c);
  }
  return c;
}

/**
 * Fixes the start time of a World's seeded data before anything is built from it (a test that needs the data of a
 * given start builds its routes on such a World). Throws when the data already took another start.
 */
export function pinDataClock(world: World, startMs: number): DataClock {
  const had = clocks.get(world);
  if (had !== undefined && had.startMs !== startMs) throw new Error(`the seeded data of this world were already built for a start at ${new Date(had.startMs).toISOString()}`);
  const c = clockAt(startMs);
  clocks.set(world, c);
  return c;
}
