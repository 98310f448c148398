/**
 * Busy processes for the tests that must hold on a loaded machine: each spins on a core until it is stopped or its own
 * bound runs out (so a test killed halfway leaves nothing spinning for long).
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Busy {
  /** stops every busy process (idempotent) */
  stop(): void;
}

/** Starts `count` processes that each keep a core busy for at most `ms` milliseconds. */
export function startBusy(count: number, ms: number): Busy {
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ['-e', `const end = Date.now() + ${Math.round(ms)}; let x = 0; while (Date.now() < end) x++;`], { stdio: 'ignore' });
    child.on('error', () => undefined);
    children.push(child);
  }
  const stop = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };
  process.once('exit', stop);
  return { stop };
}
