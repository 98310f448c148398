/**
 * Locks on target state that checks share (a check's `shares` list): checks naming the same resource on the same
 * target never run at the same time, whichever worker thread runs them. The lock is a directory created atomically
 * (mkdir) in a folder of this process: the worker threads share the process id, so they share the folder, and a
 * process never sees another's locks (a lock left by a killed process whose id came back is broken once it is older
 * than any check can hold it). Waiting polls; it is bounded by the caller's limit.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
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

/**
 * Takes the locks of the resources (sorted, so two checks never wait on each other) on one target; resolves to their
 * release. Throws when they are not all free within `waitMs`.
 */
export async function lockShared(resources: readonly string[], targetUrl: string, waitMs: number): Promise<() => void> {
  const paths = [...new Set(resources)].sort().map((r) => lockPath(r, targetUrl));
  const held: string[] = [];
  const release = () => {
    for (const p of held.splice(0)) rmSync(p, { recursive: true, force: true });
  };
  const until = performance.now() + waitMs;
  try {
    for (const p of paths) {
      while (!tryLock(p)) {
        breakIfStale(p, waitMs * 3);
        if (performance.now() > until) throw new Error(`the target state ${resources.join(', ')} stayed in use by other checks for ${waitMs} ms`);
        await delay(5);
      }
      held.push(p);
    }
  } catch (e) {
    release();
    throw e;
  }
  return release;
}

/**
 * Runs `fn` holding the locks of `resources` on one target (none: at once), and releases them however `fn` ends, a
 * throw included. Locks not free within `waitMs` are not held: `fn` runs with that error (the check ends in error).
 */
export async function withSharedState<T>(resources: readonly string[], targetUrl: string, waitMs: number, fn: (lockError: unknown) => Promise<T>): Promise<T> {
  let release: (() => void) | undefined;
  let lockError: unknown;
  if (resources.length > 0) {
    try {
      release = await lockShared(resources, targetUrl, waitMs);
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
  /** traffic account balances, topped up and read back */
  trafficAccounts: 'traffic-accounts',
  /** registry contracts that checks move between synchronizers (the others meet them mid-move) */
  movingContracts: 'moving-contracts',
} as const;
