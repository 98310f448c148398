/**
 * The CLI as a child process for the observe tests: started in a folder, its output gathered, its exit awaited; and a
 * bounded wait for a condition. Every child started is kept in `children`, for the test file to kill at its end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../harness/paths.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');

export interface Started {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

export function cliStarter(cwd: string, children: ChildProcess[]): (args: string[]) => Started {
  return (args) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, out: () => out, exited };
  };
}

/** Polls `f` every `everyMs` until it gives a value; fails after `ms`. */
export async function until<T>(what: string, f: () => T | undefined, ms: number, everyMs: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
