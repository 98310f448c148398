/**
 * Stalls of the suite's own thread: time this thread wanted to run and could not (a machine short of CPU, a long
 * garbage collection, a validator compiled). A timer that should tick every TICK_MS measures how late each tick comes;
 * lateness beyond TOLERANCE_MS adds up in a clock of stalled milliseconds. An exchange reads that clock when it starts
 * and when its deadline comes: what the thread lost in between was not the target's time. The HTTP client
 * (harness/transport/http.ts) gives such an exchange its lost time back once, retries a read that still timed out once, does not
 * count it towards the target's timeouts in a row, and records the stall, so that the report says this machine was
 * overloaded rather than the target slow.
 */

/** How often the watch ticks; an unref'd timer, so it never keeps a process alive. */
const TICK_MS = 50;
/** Lateness of a tick that is a busy loop's ordinary jitter, not a stall. */
const TOLERANCE_MS = 20;

let stalledMs = 0;
let last = 0;
let timer: NodeJS.Timeout | undefined;

function start(): void {
  if (timer !== undefined) return;
  last = performance.now();
  timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    if (late > TOLERANCE_MS) stalledMs += late;
    last = now;
  }, TICK_MS);
  timer.unref();
}

/**
 * The clock of this thread's stalled milliseconds so far, a tick that is late right now included (the deadline of an
 * exchange may run before the watch's tick in the same turn of the loop).
 */
export function ownStallClock(): number {
  start();
  const pending = performance.now() - last - TICK_MS;
  return stalledMs + (pending > TOLERANCE_MS ? pending : 0);
}

/**
 * Whether a stall of `stalled` ms during an exchange bounded by `timeoutMs` starved it: a quarter of its bound, or a
 * second, whichever is less.
 */
export const starved = (stalled: number, timeoutMs: number): boolean => stalled >= Math.min(1000, timeoutMs / 4);
