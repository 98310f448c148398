/**
 * run.concurrency as one limit for the whole run (issue 23): the requests in flight of every suite worker thread count
 * against one shared counter, rather than each worker against a fixed share. A worker whose checks wait on a long chain
 * of slow requests (one request in flight for seconds) leaves its slots to the workers that have many to send, so the
 * run sends at most run.concurrency requests at once in all, and up to that many whenever it has them.
 *
 * The counter is a SharedArrayBuffer owned by the run (the main thread), handed to each worker over a
 * BroadcastChannel named for the run (vitest passes the workers no shared memory): [requests in flight, the limit, a
 * generation bumped at each release]. A request takes a slot with compare-and-swap; a thread whose requests wait for
 * one sleeps on the generation (Atomics.waitAsync) and tries again at each release. Within a thread, requests get
 * slots first come first served; between threads, whichever tries first.
 */
import { BroadcastChannel } from 'node:worker_threads';

/** What the HTTP client waits on before it sends a request, and tells when the exchange ended (with its status). */
export interface InFlightGate {
  acquire(): Promise<void>;
  release(status?: number): void;
}

const ACTIVE = 0;
const LIMIT = 1;
const GENERATION = 2;
/** the most the limit may grow to (run.concurrency); 0 in a counter made without it: the limit stays where it is */
const MAX = 3;
/** answers since the limit last changed that were not overload refusals */
const QUIET = 4;
/** the generation (count of releases) when the limit was last halved */
const HALVED_AT = 5;
export const IN_FLIGHT_CELLS = 6;

/**
 * Adaptive concurrency (issue 23), from the target's answers only, so the same answers give the same limits whatever the
 * machine's speed: a 429 or 503 halves the limit (at most once per limit's worth of releases, so that one burst of
 * refusals is one step down), and each run of `limit` answers in a row that were not refusals raises it by one, up to
 * run.concurrency and never below 1. Latency is no signal here: on a shared machine it is mostly the suite's own CPU.
 * The verdicts do not depend on the limit (test/harness/concurrency.test.ts runs them at several).
 */
export function adapt(cells: Int32Array, status: number | undefined): void {
  const max = Atomics.load(cells, MAX);
  if (max === 0 || status === undefined) return;
  const limit = Atomics.load(cells, LIMIT);
  if (status === 429 || status === 503) {
    const now = Atomics.load(cells, GENERATION);
    if (now - Atomics.load(cells, HALVED_AT) < limit && Atomics.load(cells, HALVED_AT) !== 0) return;
    if (Atomics.compareExchange(cells, LIMIT, limit, Math.max(1, Math.floor(limit / 2))) === limit) {
      Atomics.store(cells, HALVED_AT, Math.max(1, now));
      Atomics.store(cells, QUIET, 0);
    }
    return;
  }
  if (limit >= max) return;
  if (Atomics.add(cells, QUIET, 1) + 1 >= limit && Atomics.compareExchange(cells, LIMIT, limit, limit + 1) === limit) Atomics.store(cells, QUIET, 0);
}
/** a sleeping thread looks again after this long even without a release (a notification it missed) */
const RECHECK_MS = 50;

type WaitAsync = (cells: Int32Array, index: number, value: number, timeoutMs: number) => { async: boolean; value: Promise<string> | string };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/** One thread's view of the run's shared counter. */
export class SharedInFlight implements InFlightGate {
  private readonly waiting: Array<() => void> = [];
  private pumping = false;

  constructor(private readonly cells: Int32Array) {}

  get limit(): number {
    return Atomics.load(this.cells, LIMIT);
  }

  /** requests in flight now, in every thread */
  get active(): number {
    return Atomics.load(this.cells, ACTIVE);
  }

  private tryTake(): boolean {
    for (;;) {
      const active = Atomics.load(this.cells, ACTIVE);
      if (active >= Atomics.load(this.cells, LIMIT)) return false;
      if (Atomics.compareExchange(this.cells, ACTIVE, active, active + 1) === active) return true;
    }
  }

  acquire(): Promise<void> {
    if (this.waiting.length === 0 && this.tryTake()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      void this.pump();
    });
  }

  release(status?: number): void {
    if (this.cells.length > MAX) adapt(this.cells, status);
    Atomics.sub(this.cells, ACTIVE, 1);
    Atomics.add(this.cells, GENERATION, 1);
    Atomics.notify(this.cells, GENERATION);
  }

  /** hands slots to this thread's waiting requests in order, sleeping between releases */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiting.length > 0) {
        // the generation is read before trying: a release in between makes the wait return at once
        const generation = Atomics.load(this.cells, GENERATION);
        if (this.tryTake()) {
          this.waiting.shift()!();
          continue;
        }
        const w = waitAsync(this.cells, GENERATION, generation, RECHECK_MS);
        if (w.async) await w.value;
      }
    } finally {
      this.pumping = false;
    }
  }
}

/** The run's side: creates the counter with `limit` slots and hands it to every thread that asks on `channel`. */
export function shareInFlight(channel: string, limit: number, o: { adaptive?: boolean } = {}): { gate: SharedInFlight; close(): void } {
  const buffer = new SharedArrayBuffer(IN_FLIGHT_CELLS * Int32Array.BYTES_PER_ELEMENT);
  const cells = new Int32Array(buffer);
  cells[LIMIT] = Math.max(1, limit);
  // the limit starts at run.concurrency and moves below it with the target's answers (adapt)
  if (o.adaptive !== false) cells[MAX] = Math.max(1, limit);
  const bc = new BroadcastChannel(channel);
  bc.onmessage = (e) => {
    if ((e as MessageEvent).data === 'want') bc.postMessage({ inFlight: buffer });
  };
  // the channel never keeps the process alive
  (bc as unknown as { unref?: () => void }).unref?.();
  return { gate: new SharedInFlight(cells), close: () => bc.close() };
}

/** How long a worker waits for the run's counter before it keeps to its own share (nobody answered: no such run). */
const ASK_TIMEOUT_MS = 3000;
const asked = new Map<string, Promise<SharedInFlight | undefined>>();

/** A worker's side: the run's counter (asked once per thread and channel), or undefined when no run answers. */
export function sharedInFlight(channel: string): Promise<SharedInFlight | undefined> {
  let p = asked.get(channel);
  if (p === undefined) {
    p = new Promise<SharedInFlight | undefined>((resolve) => {
      const bc = new BroadcastChannel(channel);
      const done = (gate: SharedInFlight | undefined) => {
        clearTimeout(timer);
        bc.close();
        resolve(gate);
      };
      const timer = setTimeout(() => done(undefined), ASK_TIMEOUT_MS);
      bc.onmessage = (e) => {
        const buffer = ((e as MessageEvent).data as { inFlight?: unknown } | undefined)?.inFlight;
        if (buffer instanceof SharedArrayBuffer) done(new SharedInFlight(new Int32Array(buffer)));
      };
      bc.postMessage('want');
    });
    asked.set(channel, p);
  }
  return p;
}
