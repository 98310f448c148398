/**
 * Locks on target state that checks share (a check's `shares` list): checks naming the same resource on the same
 * target never run at the same time, whichever worker thread runs them. A check that only reads the state and needs it
 * unchanged names it in `reads`: it runs beside the other readers, never beside a check that `shares` it. The lock is a
 * directory created atomically (mkdir) in a folder of this process, a reader's a file in a folder beside it: the worker
 * threads share the process id, so they share the folder, and a process never sees another's locks (a lock left by a
 * killed process whose id came back is broken once it is older than any check can hold it). Turns are phase-fair: a
 * writer waits for the readers in, new readers wait for a writer that waits, and readers that waited for a writer go in
 * before the next writer. Waiting polls; it is bounded by the caller's limit.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';

/** The lock folder of this process (the main thread and its workers). */
export const lockFolder = () => join(tmpdir(), `canton-conformance-locks-${process.pid}`);

/** Removes the lock folder of this process (when it exits). */
export function clearLocks(): void {
  rmSync(lockFolder(), { recursive: true, force: true });
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long the first writer of a resource in a thread lets the readers started beside it ask first (lockShared). */
const WRITER_GRACE_MS = 20;
/** The resources (lock paths) a writer of this thread asked for. */
const askedFor = new Set<string>();

function lockPath(resource: string, targetUrl: string): string {
  return join(lockFolder(), createHash('sha256').update(`${resource}\n${targetUrl}`).digest('hex').slice(0, 24));
}

function tryLock(path: string): boolean {
  try {
    mkdirSync(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      mkdirSync(lockFolder(), { recursive: true });
      return tryLock(path);
    }
    throw e;
  }
}

function breakIfStale(path: string, maxAgeMs: number): void {
  try {
    if (Date.now() - statSync(path).mtimeMs > maxAgeMs) rmSync(path, { recursive: true, force: true });
  } catch {
    // released meanwhile
  }
}

/** A reader's mark on a resource: a file in the resource's readers folder, named for the reader. */
let readerSeq = 0;
const readersOf = (path: string) => `${path}.readers`;

/** A mark in `dir` (a file named for this thread and a sequence number); its path, to remove it. */
function writeMark(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const mark = join(dir, `${process.pid}-${threadId}-${++readerSeq}`);
  writeFileSync(mark, '');
  return mark;
}

/** The live marks in `dir` (a resource's readers, or its waiting readers). */
function liveMarks(dir: string, maxAgeMs: number): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let live = 0;
  for (const n of names) {
    const mark = join(dir, n);
    try {
      // a mark older than any check can hold it was left by a reader that never released it
      if (Date.now() - statSync(mark).mtimeMs > maxAgeMs) rmSync(mark, { force: true });
      else live++;
    } catch {
      // released meanwhile
    }
  }
  return live;
}

/** Readers waiting for a writer to finish: the next writer lets them in first (lockShared). */
const waitersOf = (path: string) => `${path}.waiting`;

/** Marks a reader on `path`, unless a writer holds it or waits for it (then undefined: try again later). */
function tryRead(path: string): string | undefined {
  if (existsSync(path)) return undefined;
  const mark = writeMark(readersOf(path));
  // a writer that came in between sees this mark and waits; this reader sees the writer and steps back
  if (existsSync(path)) {
    rmSync(mark, { force: true });
    return undefined;
  }
  return mark;
}

/**
 * Time the run's requests spent waiting for their turn under run.maxRequestsPerSecond while a check waited for its
 * locks (harness/transport/pace.ts runPacedClock): the holders' time limits leave it out, so the wait's bound leaves it
 * out too, at most `maxMs` of it.
 */
export interface PacedWait {
  ms: () => number;
  maxMs: number;
}

/**
 * Takes the locks of the resources (sorted, so two checks never wait on each other) on one target; resolves to their
 * release. `resources` are held alone (the check changes them, or needs them unchanged by any other check); `reads`
 * beside other readers, never beside a holder: a writer first takes the resource (new readers then wait), then waits
 * for the readers in to finish. Throws when they are not all free within `waitMs`.
 */
export async function lockShared(resources: readonly string[], targetUrl: string, waitMs: number, reads: readonly string[] = [], paced?: PacedWait): Promise<() => void> {
  const exclusive = new Set(resources);
  const wanted = [...new Set([...resources, ...reads])].sort().map((r) => ({ path: lockPath(r, targetUrl), read: !exclusive.has(r) }));
  const held: string[] = [];
  const release = () => {
    for (const p of held.splice(0)) rmSync(p, { recursive: true, force: true });
  };
  const until = performance.now() + waitMs;
  // a lock held longer than any check can hold it (its holder's paced time included) was left by a killed process
  const staleMs = (waitMs + (paced?.maxMs ?? 0)) * 3;
  const timedOut = () => {
    const extra = paced !== undefined ? Math.min(paced.maxMs, paced.ms()) : 0;
    if (performance.now() > until + extra) throw new Error(`the target state ${[...new Set([...resources, ...reads])].join(', ')} stayed in use by other checks for ${waitMs} ms${extra >= 1 ? `, besides the ${Math.round(extra)} ms the run's requests waited for their turn under run.maxRequestsPerSecond` : ''}`);
  };
  let waiting: string | undefined;
  try {
    for (const { path, read } of wanted) {
      if (read) {
        let mark: string | undefined;
        while ((mark = tryRead(path)) === undefined) {
          waiting ??= writeMark(waitersOf(path));
          breakIfStale(path, staleMs);
          timedOut();
          await delay(5);
        }
        if (waiting !== undefined) rmSync(waiting, { force: true });
        waiting = undefined;
        held.push(mark);
        continue;
      }
      // the readers started beside the first writer of a resource go first: a run's first checks reach here a few
      // milliseconds apart, each after its own set-up, and a writer that took the resource at once made the readers
      // that came a moment later wait through it and every writer queued behind it (through the benchmark's profile
      // four of the ten vetting readers waited 1.5 to 2.3 s for the first upload: a second turn of readers on the run's
      // critical path). Later writers wait for no one: the readers of a file come before its writers.
      if (!askedFor.has(path)) {
        askedFor.add(path);
        await delay(WRITER_GRACE_MS);
      }
      // readers that waited for the last writer go first (a writer that follows another at once would otherwise take
      // the resource again before they look: through the benchmark's profile the package uploads, one after another,
      // kept half of the vetting walks waiting 10 s for a second turn of their own); new readers wait for this writer
      while (liveMarks(waitersOf(path), staleMs) > 0 || !tryLock(path)) {
        breakIfStale(path, staleMs);
        timedOut();
        await delay(5);
      }
      held.push(path);
      while (liveMarks(readersOf(path), staleMs) > 0) {
        timedOut();
        await delay(5);
      }
    }
  } catch (e) {
    if (waiting !== undefined) rmSync(waiting, { force: true });
    release();
    throw e;
  }
  return release;
}

/**
 * Runs `fn` holding the locks of `resources` (alone) and `reads` (beside other readers) on one target (none: at once),
 * and releases them however `fn` ends, a throw included. Locks not free within `waitMs` are not held: `fn` runs with that
 * error (the check ends in error).
 */
export async function withSharedState<T>(resources: readonly string[], targetUrl: string, waitMs: number, fn: (lockError: unknown) => Promise<T>, reads: readonly string[] = [], paced?: PacedWait): Promise<T> {
  let release: (() => void) | undefined;
  let lockError: unknown;
  if (resources.length > 0 || reads.length > 0) {
    try {
      release = await lockShared(resources, targetUrl, waitMs, reads, paced);
    } catch (e) {
      lockError = e;
    }
  }
  try {
    return await fn(lockError);
  } finally {
    release?.();
  }
}

/** The target state checks declare they share (`shares` of a check declaration). */
export const SHARED_STATE = {
  /** the participant's vetting topology: uploads change it, walks and listing comparisons need it unchanged */
  packageVetting: 'package-vetting',
  /** registry contracts that checks move between synchronizers (the others meet them mid-move) */
  movingContracts: 'moving-contracts',
} as const;
