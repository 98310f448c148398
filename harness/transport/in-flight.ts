/**
 * run.concurrency as one limit for the whole run: the requests in flight of every suite worker thread count
 * against one shared counter, rather than each worker against a fixed share. A worker whose checks wait on a long chain
 * of slow requests (one request in flight for seconds) leaves its slots to the workers that have many to send, so the
 * run sends at most run.concurrency requests at once in all, and up to that many whenever it has them.
 *
 * The counter is a SharedArrayBuffer owned by the run (the main thread), handed to each worker over a
 * BroadcastChannel named for the run (vitest passes the workers no shared memory): [requests in flight, the limit, a
 * generation bumped at each release, the adaptive limit's state (see adapt), and the requests waiting]. The limit
 * moves with the target's refusals and, against a configured target, its answer times (LatencyWatch). A request takes a
 * slot with compare-and-swap; a thread whose requests wait for one sleeps on the generation (Atomics.waitAsync) and
 * tries again at each release. Urgent requests (of checks holding shared target state) go first, in every thread; then,
 * within a thread, requests get slots first come first served; between threads, whichever tries first.
 */
import { cpus } from 'node:os';
import { BroadcastChannel } from 'node:worker_threads';
import { clearPaceWaiting, processPaceMemory, type PaceMemory } from './pace.js';

/**
 * What the HTTP client waits on before it sends a request, and tells when the exchange ended: with its status, and
 * (against a configured target) how long the answer took and for which operation, the latency signal.
 */
export interface InFlightGate {
  /**
   * `urgent`: a request of a check that holds shared target state, which other checks wait for: it goes first.
   * `alone`: its check has no other request in flight (a step of a chain, each sent after the previous answer): it goes
   * before the requests of checks that have some, so that a check sending one request at a time is not queued behind
   * other checks' many at each step (at nightly depth such chains ran out of their time with 182-441 of their cases).
   */
  acquire(urgent?: boolean, alone?: boolean): Promise<void>;
  release(status?: number, latency?: LatencySample): void;
}

/** One answer's time (ms, from sending to the answer), and what was asked (an operation: its own baseline). */
export interface LatencySample {
  key: string;
  ms: number;
}

const ACTIVE = 0;
const LIMIT = 1;
const GENERATION = 2;
/** the most the limit may grow to (run.concurrency); 0 in a counter made without it: the limit stays where it is */
const MAX = 3;
/** answers since the limit last changed that were not overload refusals */
const QUIET = 4;
/** the generation (count of releases) when the limit was last lowered */
const HALVED_AT = 5;
/** how often the limit was lowered for refusals, and for slow answers (the run's report says so) */
const STEPS_REFUSED = 6;
const STEPS_SLOW = 7;
/** urgent requests waiting for a slot, in every thread: while there are any, no other request takes one */
const URGENT = 8;
/** requests waiting for a slot, in every thread */
const WAITING = 9;
export const IN_FLIGHT_CELLS = 10;

/**
 * Adaptive concurrency, from the target's answers: a 429 or 503 halves the limit, and latency that rose to
 * `SLOW_RATIO` times the target's usual for the same operations (`latency` says so: LatencyWatch) takes a quarter off it,
 * each at most once per limit's worth of releases (one burst is one step down); each run of `limit` answers in a row
 * that were neither refused nor slow raises it by one, up to run.concurrency and never below 1. The verdicts do not
 * depend on the limit (test/harness/concurrency.test.ts runs them at several, and through a gateway that sheds load).
 */
export function adapt(cells: Int32Array, status: number | undefined, latency: 'slow' | 'usual' | undefined = undefined): void {
  const max = Atomics.load(cells, MAX);
  if (max === 0 || status === undefined) return;
  const limit = Atomics.load(cells, LIMIT);
  const refused = status === 429 || status === 503;
  if (refused || latency === 'slow') {
    const now = Atomics.load(cells, GENERATION);
    if (now - Atomics.load(cells, HALVED_AT) < limit && Atomics.load(cells, HALVED_AT) !== 0) return;
    const lower = Math.max(1, refused ? Math.floor(limit / 2) : Math.floor((limit * 3) / 4));
    if (lower !== limit && Atomics.compareExchange(cells, LIMIT, limit, lower) === limit) {
      Atomics.store(cells, HALVED_AT, Math.max(1, now));
      Atomics.store(cells, QUIET, 0);
      Atomics.add(cells, refused ? STEPS_REFUSED : STEPS_SLOW, 1);
    }
    return;
  }
  if (limit >= max) return;
  if (Atomics.add(cells, QUIET, 1) + 1 >= limit && Atomics.compareExchange(cells, LIMIT, limit, limit + 1) === limit) Atomics.store(cells, QUIET, 0);
}

/** Above this share of its cores in use, this machine's answer times are its own (MachineLoad). */
export const BUSY_SHARE = 0.75;

/**
 * How busy this machine's cores were lately (every core, every process: os.cpus()), read at most every 250 ms, over
 * the last such interval.
 */
class MachineLoad {
  private last = cpuTimes();
  private at = performance.now();
  private share = 0;

  busy(): boolean {
    const now = performance.now();
    if (now - this.at >= 250) {
      const t = cpuTimes();
      const total = t.total - this.last.total;
      this.share = total > 0 ? 1 - (t.idle - this.last.idle) / total : 0;
      this.last = t;
      this.at = now;
    }
    return this.share >= BUSY_SHARE;
  }
}

function cpuTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const c of cpus()) {
    idle += c.times.idle;
    total += c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq;
  }
  return { idle, total };
}

let load: MachineLoad | undefined;
const machineBusy = () => (load ??= new MachineLoad()).busy();

/** Latency this many times a target's usual for the same operations is a sign it is queueing our requests. */
export const SLOW_RATIO = 3;
/** Added to both sides of the ratio: a few milliseconds of jitter on a fast answer is no sign of anything. */
const JITTER_MS = 10;
/** Answers of an operation before its usual time is known (its fastest so far) and its answers count. */
const WARM_UP = 3;
/** The most kinds of answer (operation, status, size) whose usual time a thread keeps. */
const MAX_KINDS = 2000;

/**
 * The latency signal of one thread: for each operation, its usual time (the fastest answer so far, creeping up by 0.2%
 * of the difference at each slower one, so that a target that slows for good is, after some hundreds of its answers,
 * at its new usual), and over all operations a moving average of each answer's time over its operation's usual (an
 * upload is compared with uploads, a read with reads). At most MAX_KINDS kinds of answer are kept (a request without
 * an operation id is known by its path, which may name what it created). The latency is "slow" while that average is at
 * SLOW_RATIO or above. Only against a configured target: against the embedded reference an answer's time is the
 * suite's own CPU (the reference serves from the same
 * process), and a limit that fell with it would only slow the run. For the same reason no answer counts while this
 * machine's cores are busy (BUSY_SHARE): through the benchmark's 20 ms proxy, with the reference served on the same two
 * cores, answers took 3 to 4 times their usual and the limit fell to 3 with nothing wrong with the target.
 */
export class LatencyWatch {
  private readonly usual = new Map<string, { ms: number; n: number }>();
  private average = 1;

  /** `busy`: whether this machine's cores are too busy for answer times to say anything of the target */
  constructor(private readonly busy: () => boolean = machineBusy) {}

  /** Takes one answer's time; says whether the target's answers are slow now, or undefined while it cannot tell. */
  observe(sample: LatencySample): 'slow' | 'usual' | undefined {
    // on a machine whose cores are busy (the suite's own threads, a server beside it) an answer waits for a core before
    // it is read: its time is the machine's, not the target's
    if (this.busy()) return undefined;
    let u = this.usual.get(sample.key);
    if (u === undefined) {
      if (this.usual.size >= MAX_KINDS) return undefined;
      u = { ms: sample.ms, n: 0 };
    }
    u.n++;
    u.ms = sample.ms < u.ms ? sample.ms : u.ms + (sample.ms - u.ms) * 0.002;
    this.usual.set(sample.key, u);
    if (u.n <= WARM_UP) return undefined;
    const ratio = (sample.ms + JITTER_MS) / (u.ms + JITTER_MS);
    this.average = this.average * 0.9 + ratio * 0.1;
    return this.average >= SLOW_RATIO ? 'slow' : 'usual';
  }

  /** the moving average of answer time over usual time (1: as fast as ever) */
  get ratio(): number {
    return this.average;
  }
}
/** CC_DEBUG=in-flight: a line on stderr at each change of the run's limit, with the answer that made it */
const debug = /(^|,)in-flight(,|$)/.test(process.env.CC_DEBUG ?? '');
/** a sleeping thread looks again after this long even without a release (a notification it missed) */
const RECHECK_MS = 50;

type WaitAsync = (cells: Int32Array, index: number, value: number, timeoutMs: number) => { async: boolean; value: Promise<string> | string };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/**
 * The requests of one thread waiting for a slot, in the order they get one: urgent ones first, then those whose check
 * has no other request in flight (`alone`), then the others, each in arrival order. Shared by the run's counter
 * (SharedInFlight) and a worker's own limit (harness/transport/http.ts).
 */
export class SlotQueue {
  private readonly urgent: Array<() => void> = [];
  private readonly alone: Array<() => void> = [];
  private readonly waiting: Array<() => void> = [];

  push(resolve: () => void, urgent: boolean, alone: boolean): void {
    (urgent ? this.urgent : alone ? this.alone : this.waiting).push(resolve);
  }

  /** how many wait ahead of a request of this kind, counting only the kinds that go before it, and its own */
  ahead(urgent: boolean, alone: boolean): number {
    return this.urgent.length + (urgent ? 0 : this.alone.length + (alone ? 0 : this.waiting.length));
  }

  get size(): number {
    return this.urgent.length + this.alone.length + this.waiting.length;
  }

  get nextIsUrgent(): boolean {
    return this.urgent.length > 0;
  }

  /** the next request to get a slot, removed from the queue */
  shift(): (() => void) | undefined {
    return this.urgent.shift() ?? this.alone.shift() ?? this.waiting.shift();
  }
}

/** One thread's view of the run's shared counter. */
export class SharedInFlight implements InFlightGate {
  private readonly queue = new SlotQueue();
  private pumping = false;

  /**
   * `latency`: this thread's latency signal (a test gives one that never finds the machine busy); `pace`: the run's
   * memory for run.maxRequestsPerSecond, shared by every thread with this counter (harness/transport/pace.ts)
   */
  constructor(private readonly cells: Int32Array, private readonly latency: LatencyWatch = new LatencyWatch(), readonly pace?: PaceMemory) {}

  get limit(): number {
    return Atomics.load(this.cells, LIMIT);
  }

  /** how often the limit was lowered, for refusals (429, 503) and for slow answers */
  get lowered(): { refused: number; slow: number } {
    return this.cells.length > STEPS_SLOW ? { refused: Atomics.load(this.cells, STEPS_REFUSED), slow: Atomics.load(this.cells, STEPS_SLOW) } : { refused: 0, slow: 0 };
  }

  /** requests waiting for a slot now, in every thread */
  get waitingAll(): number {
    return this.cells.length > WAITING ? Atomics.load(this.cells, WAITING) : 0;
  }

  /** requests in flight now, in every thread */
  get active(): number {
    return Atomics.load(this.cells, ACTIVE);
  }

  private get urgentWaiting(): number {
    return this.cells.length > URGENT ? Atomics.load(this.cells, URGENT) : 0;
  }

  /** a slot for an urgent request, or for another one while no urgent request waits in any thread */
  private tryTake(urgent: boolean): boolean {
    for (;;) {
      if (!urgent && this.urgentWaiting > 0) return false;
      const active = Atomics.load(this.cells, ACTIVE);
      if (active >= Atomics.load(this.cells, LIMIT)) return false;
      if (Atomics.compareExchange(this.cells, ACTIVE, active, active + 1) === active) return true;
    }
  }

  acquire(urgent = false, alone = false): Promise<void> {
    if (this.queue.ahead(urgent, alone) === 0 && this.tryTake(urgent)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      if (urgent && this.cells.length > URGENT) Atomics.add(this.cells, URGENT, 1);
      if (this.cells.length > WAITING) Atomics.add(this.cells, WAITING, 1);
      this.queue.push(resolve, urgent, alone);
      void this.pump();
    });
  }

  release(status?: number, latency?: LatencySample): void {
    if (this.cells.length > MAX) {
      const before = debug ? Atomics.load(this.cells, LIMIT) : 0;
      const heard = latency !== undefined && status !== undefined && status !== 429 && status !== 503 ? this.latency.observe(latency) : undefined;
      adapt(this.cells, status, heard);
      const after = debug ? Atomics.load(this.cells, LIMIT) : 0;
      if (debug && after !== before) process.stderr.write(`[in-flight] limit ${before} -> ${after} (answer ${status}${heard !== undefined ? `, latency ${heard}, ${this.latency.ratio.toFixed(2)} x usual` : ''})\n`);
    }
    Atomics.sub(this.cells, ACTIVE, 1);
    Atomics.add(this.cells, GENERATION, 1);
    Atomics.notify(this.cells, GENERATION);
  }

  /** hands slots to this thread's waiting requests in order, urgent ones first, then those alone, sleeping between releases */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.size > 0) {
        // the generation is read before trying: a release in between makes the wait return at once
        const generation = Atomics.load(this.cells, GENERATION);
        const urgent = this.queue.nextIsUrgent;
        if (this.tryTake(urgent)) {
          if (urgent && this.cells.length > URGENT) Atomics.sub(this.cells, URGENT, 1);
          if (this.cells.length > WAITING) Atomics.sub(this.cells, WAITING, 1);
          this.queue.shift()!();
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
export function shareInFlight(channel: string, limit: number, o: { adaptive?: boolean; ignoreMachineLoad?: boolean } = {}): { gate: SharedInFlight; close(): void } {
  const buffer = new SharedArrayBuffer(IN_FLIGHT_CELLS * Int32Array.BYTES_PER_ELEMENT);
  const cells = new Int32Array(buffer);
  cells[LIMIT] = Math.max(1, limit);
  // the limit starts at run.concurrency and moves below it with the target's answers (adapt)
  if (o.adaptive !== false) cells[MAX] = Math.max(1, limit);
  // the pace of run.maxRequestsPerSecond travels with the counter: one block for every thread of the run, the one the
  // preflight before it kept to
  const memory = processPaceMemory();
  clearPaceWaiting(memory);
  const pace = memory.cells.buffer as SharedArrayBuffer;
  const paceBase = memory.base;
  const bc = new BroadcastChannel(channel);
  bc.onmessage = (e) => {
    if ((e as MessageEvent).data === 'want') bc.postMessage({ inFlight: buffer, pace, paceBase, ...(o.ignoreMachineLoad === true ? { ignoreMachineLoad: true } : {}) });
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
        const data = (e as MessageEvent).data as { inFlight?: unknown; pace?: unknown; paceBase?: number; ignoreMachineLoad?: boolean } | undefined;
        const buffer = data?.inFlight;
        // a test's run may have every answer's time count however busy this machine is (the project's tests run beside
        // each other)
        const pace = data?.pace instanceof SharedArrayBuffer && typeof data.paceBase === 'number' ? { cells: new Int32Array(data.pace), base: data.paceBase } : undefined;
        if (buffer instanceof SharedArrayBuffer) done(new SharedInFlight(new Int32Array(buffer), new LatencyWatch(data?.ignoreMachineLoad === true ? () => false : machineBusy), pace));
      };
      bc.postMessage('want');
    });
    asked.set(channel, p);
  }
  return p;
}
