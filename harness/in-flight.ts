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

/** What the HTTP client waits on before it sends a request, and tells when the exchange ended. */
export interface InFlightGate {
  acquire(): Promise<void>;
  release(): void;
}

const ACTIVE = 0;
const LIMIT = 1;
const GENERATION = 2;
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

  release(): void {
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
export function shareInFlight(channel: string, limit: number): { gate: SharedInFlight; close(): void } {
  const buffer = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
  const cells = new Int32Array(buffer);
  cells[LIMIT] = Math.max(1, limit);
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
