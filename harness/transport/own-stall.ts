/**
 * Stalls of the suite's own thread: time this thread wanted to run and could not (a machine short of CPU, a long
 * garbage collection, a validator compiled). A timer that should tick every TICK_MS measures how late each tick comes;
 * lateness beyond TOLERANCE_MS adds up in a clock of stalled milliseconds. An exchange reads that clock when it starts
 * and when its deadline comes: what the thread lost in between was not the target's time. The HTTP client
 * (harness/transport/http.ts) gives such an exchange its lost time back once, retries a read that still timed out once, does not
 * count it towards the target's timeouts in a row, and records the stall, so that the report says this machine was
 * overloaded rather than the target slow. A read whose connection was reset or closed before any answer while this
 * thread was stalled (during the exchange or in the few seconds before it, kept in a short history of ticks) is tried
 * once more the same way; a state-changing request never is (it may have been carried out).
 */

/** How often the watch ticks; an unref'd timer, so it never keeps a process alive. */
const TICK_MS = 50;
/** Lateness of a tick that is a busy loop's ordinary jitter, not a stall. */
const TOLERANCE_MS = 20;

/**
 * How far back a lost connection looks for a stall: a connection the target closed while it was idle in the pool
 * (a server's keep-alive time, 5 s in Node) is taken for the next request when this thread, stalled, did not see it
 * close in time.
 */
export const LOST_CONNECTION_LOOKBACK_MS = 5000;
/**
 * The error codes of a connection reset or closed under a request (undici's "other side closed" is UND_ERR_SOCKET): with
 * no answer yet, and this thread stalled around it, the read is this machine's to retry, not the target's to be judged.
 */
export const LOST_CONNECTION_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);
/** The ticks the history keeps: the lookback and then some. */
const HISTORY = Math.ceil((2 * LOST_CONNECTION_LOOKBACK_MS) / TICK_MS);

let stalledMs = 0;
let last = 0;
let timer: NodeJS.Timeout | undefined;
/** the clock at each recent tick: performance.now() and the stalled milliseconds so far, in a ring */
const tickAt = new Float64Array(HISTORY);
const clockAt = new Float64Array(HISTORY);
let ticks = 0;

function start(): void {
  if (timer !== undefined) return;
  last = performance.now();
  remember(last);
  timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    if (late > TOLERANCE_MS) stalledMs += late;
    last = now;
    remember(now);
  }, TICK_MS);
  timer.unref();
}

function remember(now: number): void {
  tickAt[ticks % HISTORY] = now;
  clockAt[ticks % HISTORY] = stalledMs;
  ticks++;
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
 * The clock of stalled milliseconds as it read at `at` (a performance.now() value): at the last tick before it, or at
 * the oldest tick kept when `at` is older than the history (a stall before that is not counted).
 */
export function ownStallClockAt(at: number): number {
  start();
  if (at >= last) {
    const pending = at - last - TICK_MS;
    return stalledMs + (pending > TOLERANCE_MS ? pending : 0);
  }
  const kept = Math.min(ticks, HISTORY);
  for (let k = 1; k <= kept; k++) {
    const i = (ticks - k) % HISTORY;
    if (tickAt[i]! <= at) return clockAt[i]!;
  }
  return clockAt[(ticks - kept) % HISTORY]!;
}

/**
 * Whether a stall of `stalled` ms during an exchange bounded by `timeoutMs` starved it: a quarter of its bound, or a
 * second, whichever is less.
 */
export const starved = (stalled: number, timeoutMs: number): boolean => stalled >= Math.min(1000, timeoutMs / 4);
