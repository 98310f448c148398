/**
 * How a stop reaches the checks in vitest's worker threads: a BroadcastChannel named for the run.
 * vitest's own cancellation is not used: it ends a running test at once, without waiting for it, so the check's
 * clean-up (users, rights, moved contracts) would be lost with the worker, and its verdict too.
 * - 'stop' (a first Ctrl-C, run.maxRunMs): no further check starts (each skips at its start); the running ones finish
 *   and clean up.
 * - 'stop-now' (SIGTERM, a second Ctrl-C): the running checks are also cut off where they stand, and clean up within
 *   STOP_CLEANUP_MS; the runner waits that long (and a little more) before it abandons what still runs, or
 *   FINAL_GRACE_MS after a further signal when that ends sooner.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';

/** How long the clean-up of the checks cut off by a stop at once may take, all its steps together. */
export const STOP_CLEANUP_MS = 8000;

/**
 * After a further signal during a stop at once (a second SIGTERM, as coreutils `timeout` sends one to the command and
 * one to its process group; a third Ctrl-C), how long what still runs gets before the runner abandons it and writes
 * the reports of what ran: the stop's wait shortened, never an exit without reports.
 */
export const FINAL_GRACE_MS = 1500;

export const newStopChannel = (): string => `canton-conformance-stop-${randomBytes(6).toString('hex')}`;

export type StopKind = 'stop' | 'stop-now';

/**
 * A stop is also left as a file: a BroadcastChannel does not replay a message to a channel opened after it was sent,
 * and a worker opens the run's channel at its first check, so a worker that starts late (or a check that starts
 * before its worker read the message) would miss the stop and start checks after it.
 */
const stopFile = (name: string) => join(tmpdir(), `${name}.stop`);

/** Main thread: removes the run's stop file (at the end of the run). */
export function forgetStop(name: string): void {
  rmSync(stopFile(name), { force: true });
}

/** Main thread: tells every check of the run to stop. */
export function announceStop(name: string, kind: StopKind): void {
  try {
    writeFileSync(stopFile(name), kind);
  } catch {
    // the broadcast below still reaches the workers that listen
  }
  const c = new BroadcastChannel(name);
  c.postMessage(kind);
  c.close();
}

interface Listener {
  stopping: boolean;
  /** when the stop at once came */
  stoppedAt?: number;
  waiters: Set<() => void>;
  channel: BroadcastChannel;
}

/** the channels this worker listens on, per run (the latest few: a worker thread serves one run after another) */
const listening = new Map<string, Listener>();
const MAX_CHANNELS = 8;

function listen(name: string): Listener {
  let l = listening.get(name);
  if (l !== undefined) return l;
  for (const [old, o] of listening) {
    if (listening.size < MAX_CHANNELS) break;
    o.channel.close();
    listening.delete(old);
  }
  const channel = new BroadcastChannel(name);
  // never what keeps a worker alive
  channel.unref();
  const entry: Listener = { stopping: false, waiters: new Set(), channel };
  l = entry;
  listening.set(name, entry);
  channel.onmessage = (m: unknown) => {
    entry.stopping = true;
    if ((m as { data?: unknown }).data !== 'stop-now') return;
    entry.stoppedAt ??= Date.now();
    for (const w of entry.waiters) w();
    entry.waiters.clear();
  };
  return entry;
}

/** Worker: whether the run named `name` is stopping (no further check starts). */
export function stopping(name: string | undefined): boolean {
  if (name === undefined) return false;
  const l = listen(name);
  if (!l.stopping && existsSync(stopFile(name))) l.stopping = true;
  return l.stopping;
}

/** Worker: when the run named `name` was stopped at once (undefined until then, and when the run has no channel). */
export function stoppedAt(name: string | undefined): number | undefined {
  return name === undefined ? undefined : listen(name).stoppedAt;
}

/**
 * Worker: `stopped` rejects with `reason` when the run is stopped at once (never without a channel); `done` forgets
 * the waiter once the check no longer needs it.
 */
export function whenStoppedNow(name: string | undefined, reason: () => Error): { stopped: Promise<never>; done: () => void } {
  let waiter: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    if (name === undefined) return;
    const l = listen(name);
    if (l.stoppedAt !== undefined) return reject(reason());
    waiter = () => reject(reason());
    l.waiters.add(waiter);
  });
  stopped.catch(() => undefined);
  return {
    stopped,
    done: () => {
      if (name !== undefined && waiter !== undefined) listening.get(name)?.waiters.delete(waiter);
    },
  };
}
