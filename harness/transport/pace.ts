/**
 * run.maxRequestsPerSecond: at most N requests a second leave the run, counted where it matters, at the moment each is
 * sent. The checks run in several worker threads (harness/run/suite-vitest.ts); a conformance run shares a small block of
 * memory between them (handed out with the run's limit of requests in flight, harness/transport/in-flight.ts) that holds the time
 * the next request may leave and the send times of the last N requests. A request leaves only when, at the moment it
 * leaves (read again after every wait), 1/N s has passed since the run's previous request and one second plus a
 * margin since the N-th before it: a thread that was starved (a machine short of CPU) and wakes with many requests
 * due sends one of them, not all, and in no one-second window do more than N requests leave. A thread alone (the others
 * idle, near the end of a run) sends at the full N a second.
 *
 * Where no run shares that memory (the self-test, doctor), the threads deal the slots out in turn instead: of `lanes`
 * threads, thread `lane` sends only in the slots whose number modulo `lanes` is `lane`, with the same window on its own
 * send times.
 */
/** The layout of the shared pace memory: a lock, the next send time, the ring's head, then the ring of send times. */
const LOCK = 0;
const NEXT = 1;
const HEAD = 2;
/** requests waiting for their turn now, in every thread (a run starts no further check while some wait) */
const WAITING = 3;
const RING = 4;
/** The most send times the window keeps: above this many requests a second, the spacing alone keeps the rate. */
export const PACE_RING = 4096;
/** Bytes of the shared pace memory (newPaceBuffer). */
const PACE_BYTES = (RING + PACE_RING) * Int32Array.BYTES_PER_ELEMENT;

/**
 * Room added to the one-second window: two slots (2/N s), at least 50 and at most 250 ms. A request recorded as sent
 * reaches the target a little later (the socket write, a starved thread), and a busy target reads requests that queued
 * while it could not run at the same moment. With N in any second and two slots, requests read up to three slots late
 * (300 ms at 10 a second) still make at most N + 1 in any second at the target. Measured through a proxy process on a
 * machine with four busy processes beside a whole run at 10 a second: requests sent 100 ms apart were read up to some
 * 300 ms late (three within 1 ms), and a margin of one slot let 12 into one second twice in 4 100 requests (a margin
 * of 50 ms, 12 in a run of 572). A run that sends all the time keeps to N requests per second and margin (10 a second:
 * 10 per 1.2 s).
 */
export const windowMarginMs = (perSecond: number): number => Math.min(250, Math.max(50, 2000 / perSecond));

/** The memory a run's threads share for the pace: times in ms since `base` (a Date.now() value), plus one (0: none yet). */
export interface PaceMemory {
  cells: Int32Array;
  base: number;
}

/** A new block of shared pace memory, made once by the run and handed to every worker thread. */
export function newPaceBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(PACE_BYTES);
}

let processMemory: PaceMemory | undefined;

/**
 * The pace memory of this thread's runs, made once: the preflight's reads (harness/setup/preflight.ts) keep to it, and
 * the run after them hands the same block to its worker threads, so the reads that settle the set-up count in the
 * run's window as the checks' requests do (they reach the same target, a second or less before the first check's).
 * A run that starts here counts no request of an earlier one as waiting.
 */
export function processPaceMemory(): PaceMemory {
  processMemory ??= { cells: new Int32Array(newPaceBuffer()), base: Date.now() };
  return processMemory;
}

/** Sets the requests waiting for their turn back to none (a new run; a thread stopped while it waited left one). */
export function clearPaceWaiting(m: PaceMemory): void {
  Atomics.store(m.cells, WAITING, 0);
}

export class RequestPace {
  private readonly slotMs: number;
  /** the first slot this thread has not yet handed out (lanes only) */
  private next = 0;
  /** the send times this thread keeps itself where no run shares its memory */
  private own: PaceMemory | undefined;
  private memory: PaceMemory | undefined;

  /**
   * `shared`: the run's pace memory (its threads together keep to `perSecond`); without it, or when it resolves to
   * undefined, the lanes deal the slots out between threads.
   */
  constructor(
    readonly perSecond: number,
    private readonly lanes = 1,
    private readonly lane = 0,
    private readonly now: () => number = Date.now,
    private readonly shared?: Promise<PaceMemory | undefined>,
  ) {
    if (!(perSecond > 0)) throw new Error(`requests per second must be positive, got ${perSecond}`);
    this.slotMs = 1000 / perSecond;
  }

  /** how many send times the window holds: N a second (at least one) */
  private get windowSize(): number {
    return Math.min(PACE_RING, Math.max(1, Math.floor(this.perSecond)));
  }

  /**
   * Waits until this request may leave and records it as sent; call it right before the request is sent. Resolves to
   * its send time (ms since the epoch). `paced`: the clock of the check the request is for, which counts the wait.
   */
  async take(paced?: PacedTime): Promise<number> {
    paced?.enter();
    try {
      return await this.turn();
    } finally {
      paced?.leave();
    }
  }

  private async turn(): Promise<number> {
    const shared = this.memory ?? (this.shared !== undefined ? (this.memory = await this.shared) : undefined);
    if (shared !== undefined) return this.leave(shared, true);
    // the lanes: this thread's next slot, handed out at once, so concurrent requests queue in order
    const now = this.now();
    let slot = Math.max(this.next, Math.ceil(now / this.slotMs));
    slot += (((this.lane - slot) % this.lanes) + this.lanes) % this.lanes;
    this.next = slot + this.lanes;
    const wait = slot * this.slotMs - now;
    if (wait > 0) await sleep(wait);
    this.own ??= { cells: new Int32Array(new ArrayBuffer(PACE_BYTES)), base: this.now() };
    // the slot's start where the clock has not reached it (a clock that stands still in a test)
    return Math.max(slot * this.slotMs, await this.leave(this.own, false));
  }

  /**
   * Sends when the spacing (`spaced`: 1/N s since the previous request of all threads) and the window (a second plus
   * windowMarginMs since the N-th request before) allow, both read at the moment of sending, after every wait.
   */
  private async leave(m: PaceMemory, spaced: boolean): Promise<number> {
    const n = this.windowSize;
    const windowMs = 1000 + windowMarginMs(this.perSecond);
    let waiting = false;
    for (;;) {
      lock(m.cells);
      const now = this.now() - m.base;
      const head = Atomics.load(m.cells, HEAD) % n;
      const oldest = Atomics.load(m.cells, RING + head);
      const at = Math.max(spaced ? Atomics.load(m.cells, NEXT) - 1 : Number.NEGATIVE_INFINITY, oldest === 0 ? Number.NEGATIVE_INFINITY : oldest - 1 + windowMs);
      if (at <= now) {
        Atomics.store(m.cells, RING + head, now + 1);
        Atomics.store(m.cells, HEAD, (head + 1) % n);
        Atomics.store(m.cells, NEXT, Math.ceil(now + this.slotMs) + 1);
        if (waiting) Atomics.sub(m.cells, WAITING, 1);
        unlock(m.cells);
        return m.base + now;
      }
      if (!waiting) Atomics.add(m.cells, WAITING, 1);
      waiting = true;
      unlock(m.cells);
      await sleep(Math.max(1, at - now));
    }
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The time one check's requests spent waiting for their turn under run.maxRequestsPerSecond (while any of them waited:
 * requests waiting side by side count once). That wait is the run's own choice, neither the check's time nor the
 * target's: a check's time limits (run.checkTimeoutMs, its properties' share of it, its clean-up's) leave it out
 * (pacedTimer), so a check that sends many requests, or shares the rate with many others, is not cut off by the rate
 * limit it was asked to keep.
 */
export class PacedTime {
  private waiting = 0;
  private since = 0;
  private total = 0;
  constructor(private readonly now: () => number = () => performance.now()) {}

  enter(): void {
    if (this.waiting++ === 0) this.since = this.now();
  }

  leave(): void {
    if (this.waiting > 0 && --this.waiting === 0) this.total += this.now() - this.since;
  }

  /** milliseconds waited so far, a wait going on now included */
  get ms(): number {
    return this.total + (this.waiting > 0 ? this.now() - this.since : 0);
  }
}

/**
 * How much longer than its own limit a check's paced time may make it: nine times the limit again (a check bounded by
 * 60 s ends within 10 minutes however slow the rate), so that every check stays bounded in time.
 */
export const PACED_EXTENSION_FACTOR = 9;

/**
 * A timer of `ms` milliseconds that leaves out the time `paced` counted while it ran, at most `maxPacedMs` of it: when
 * the time is up, it looks at the paced time and waits that much longer, until no further paced time came. Returns
 * the function that clears it.
 */
export function pacedTimer(ms: number, paced: PacedTime | undefined, expire: () => void, maxPacedMs = PACED_EXTENSION_FACTOR * ms): () => void {
  const start = performance.now();
  const from = paced?.ms ?? 0;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const left = start + ms + Math.min(maxPacedMs, (paced?.ms ?? 0) - from) - performance.now();
    if (left <= 0) expire();
    else timer = setTimeout(check, Math.max(1, left));
  };
  timer = setTimeout(check, ms);
  return () => clearTimeout(timer);
}

/** A spin lock over the few loads and stores of one request's turn (held for microseconds, by a few threads at most). */
function lock(cells: Int32Array): void {
  while (Atomics.compareExchange(cells, LOCK, 0, 1) !== 0);
}
function unlock(cells: Int32Array): void {
  Atomics.store(cells, LOCK, 0);
}

const paces = new Map<string, RequestPace>();

/**
 * The pace of this thread for a run-wide budget: one per thread and budget, shared by every client (all checks and
 * interfaces). `shared`: the run's channel and its pace memory, where the run shares one (harness/transport/in-flight.ts); else `lanes` is
 * the number of worker threads of a run; vitest numbers its workers from 1 (VITEST_POOL_ID), and a process that is no
 * worker (doctor) takes lane 0.
 */
export function paceFor(perSecond: number, lanes: number, shared?: { channel: string; memory: () => Promise<PaceMemory | undefined> }): RequestPace {
  const pool = Number(process.env.VITEST_POOL_ID ?? '1');
  const lane = (Number.isInteger(pool) && pool > 0 ? pool - 1 : 0) % lanes;
  const key = `${perSecond}/${lanes}/${lane}/${shared?.channel ?? ''}`;
  let p = paces.get(key);
  if (p === undefined) {
    p = new RequestPace(perSecond, lanes, lane, Date.now, shared?.memory());
    paces.set(key, p);
  }
  return p;
}

/** Requests waiting for their turn under run.maxRequestsPerSecond now, in every thread sharing `m`. */
export const paceWaiting = (m: PaceMemory | undefined): number => (m === undefined ? 0 : Atomics.load(m.cells, WAITING));

/**
 * A clock of the time, from now on, during which some request of the run (any thread sharing `m`) waited for its turn:
 * each call adds the time since the call before when requests wait now. For a wait that polls often (a check waiting
 * for the locks of shared target state, whose holders' limits leave that time out).
 */
export function runPacedClock(m: PaceMemory): () => number {
  let last = performance.now();
  let total = 0;
  return () => {
    const now = performance.now();
    if (paceWaiting(m) > 0) total += now - last;
    last = now;
    return total;
  };
}
