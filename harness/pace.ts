/**
 * run.maxRequestsPerSecond: the run's requests are spread over time slots of 1/N s, at most one request a slot. The
 * checks run in several worker threads (harness/suite-vitest.ts) that share no memory, so the slots are dealt out in
 * turn: of `lanes` threads, thread `lane` sends only in the slots whose number modulo `lanes` is `lane`. Together they
 * never send more than N requests a second, without talking to each other; a thread alone (the others idle, near the
 * end of a run) sends at N/lanes a second.
 */
export class RequestPace {
  private readonly slotMs: number;
  /** the first slot this thread has not yet handed out */
  private next = 0;

  constructor(
    readonly perSecond: number,
    private readonly lanes = 1,
    private readonly lane = 0,
    private readonly now: () => number = Date.now,
  ) {
    if (!(perSecond > 0)) throw new Error(`requests per second must be positive, got ${perSecond}`);
    this.slotMs = 1000 / perSecond;
  }

  /**
   * Waits for this thread's next free slot; slots are handed out at once, so concurrent requests queue in order.
   * Resolves to the slot's start time (ms since the epoch).
   */
  async take(): Promise<number> {
    const now = this.now();
    let slot = Math.max(this.next, Math.ceil(now / this.slotMs));
    slot += (((this.lane - slot) % this.lanes) + this.lanes) % this.lanes;
    this.next = slot + this.lanes;
    const wait = slot * this.slotMs - now;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    return slot * this.slotMs;
  }
}

const paces = new Map<string, RequestPace>();

/**
 * The pace of this thread for a run-wide budget: one per thread and budget, shared by every client (all checks and
 * interfaces). `lanes` is the number of worker threads of a run; vitest numbers its workers from 1 (VITEST_POOL_ID),
 * and a process that is no worker (doctor) takes lane 0.
 */
export function paceFor(perSecond: number, lanes: number): RequestPace {
  const pool = Number(process.env.VITEST_POOL_ID ?? '1');
  const lane = (Number.isInteger(pool) && pool > 0 ? pool - 1 : 0) % lanes;
  const key = `${perSecond}/${lanes}/${lane}`;
  let p = paces.get(key);
  if (p === undefined) {
    p = new RequestPace(perSecond, lanes, lane);
    paces.set(key, p);
  }
  return p;
}
