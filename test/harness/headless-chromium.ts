/**
 * A page in headless Chromium driven over the Chrome DevTools protocol (a WebSocket, undici's): every request the page
 * makes is recorded (Network.requestWillBeSent), and expressions are evaluated in the page. For the tests of the HTML
 * report; bounded in time everywhere. `CHROMIUM` is the Debian package's binary, absent where it is not installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumMissing = (): string | undefined => (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (Debian: apt-get install -y chromium; or set CHROMIUM_PATH)`);

/** Flags of a quiet, throw-away browser: no sandbox (containers), no GPU, nothing of its own sent anywhere. */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-default-apps', '--disable-extensions', '--mute-audio', '--remote-debugging-port=0'];

export interface Page {
  /** every URL the page asked for, in order */
  requests: string[];
  navigate(url: string): Promise<void>;
  evaluate<T>(expression: string): Promise<T>;
  /** polls `expression` until it is truthy; its value, or throws after `timeoutMs` */
  waitFor<T>(expression: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    p.then((v) => (clearTimeout(t), resolve(v)), (e) => (clearTimeout(t), reject(e as Error)));
  });

export async function openPage(timeoutMs = 30_000): Promise<Page> {
  const profile = mkdtempSync(join(tmpdir(), 'cc-chromium-'));
  // a process group of its own: the browser's helper processes (renderer, GPU, utility) go with it
  const child: ChildProcess = spawn(CHROMIUM, [...FLAGS, `--user-data-dir=${profile}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // the profile is removed once the browser and its helpers are gone (they write there until they exit), waiting 5 s
  // at most; a helper still writing leaves a temporary folder behind, never a failed test
  const cleanup = async () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch {
      // left for the system's temporary-files clean-up
    }
  };
  let stderr = '';
  const browserWs = await within(
    new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
        if (m !== null) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`chromium exited (${code}) before it listened: ${stderr.slice(-500)}`)));
      child.once('error', reject);
    }),
    timeoutMs,
    'chromium start',
  ).catch(async (e: Error) => {
    await cleanup();
    throw e;
  });
  // the page target's own WebSocket: the one tab opened with about:blank
  const port = new URL(browserWs).port;
  const targets = (await within(fetch(`http://127.0.0.1:${port}/json/list`).then((r) => r.json()), timeoutMs, 'target list')) as Array<{ type: string; webSocketDebuggerUrl: string }>;
  const pageWs = targets.find((t) => t.type === 'page')?.webSocketDebuggerUrl;
  if (pageWs === undefined) {
    await cleanup();
    throw new Error('chromium opened no page');
  }
  const ws = new WebSocket(pageWs);
  await within(new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error('the DevTools WebSocket did not open')));
  }), timeoutMs, 'DevTools WebSocket');
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const requests: string[] = [];
  const loaded: Array<() => void> = [];
  ws.addEventListener('message', (ev) => {
    const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: { request?: { url: string } } };
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error !== undefined) p?.reject(new Error(msg.error.message));
      else p?.resolve(msg.result);
    } else if (msg.method === 'Network.requestWillBeSent' && msg.params?.request !== undefined) requests.push(msg.params.request.url);
    else if (msg.method === 'Page.loadEventFired') for (const f of loaded.splice(0)) f();
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    within(new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    }), timeoutMs, method);
  await send('Network.enable');
  await send('Page.enable');
  await send('Runtime.enable');
  const evaluate = async <T>(expression: string): Promise<T> => {
    const r = (await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })) as { result: { value?: T }; exceptionDetails?: { text: string } };
    if (r.exceptionDetails !== undefined) throw new Error(`evaluating ${expression.slice(0, 80)}: ${r.exceptionDetails.text}`);
    return r.result.value as T;
  };
  return {
    requests,
    async navigate(url) {
      const load = within(new Promise<void>((resolve) => loaded.push(resolve)), timeoutMs, `loading ${url}`);
      await send('Page.navigate', { url });
      await load;
    },
    evaluate,
    async waitFor<T>(expression: string, waitMs = timeoutMs): Promise<T> {
      const until = Date.now() + waitMs;
      for (;;) {
        const v = await evaluate<T>(expression);
        if (v) return v;
        if (Date.now() > until) throw new Error(`waited ${waitMs} ms for ${expression.slice(0, 120)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async close() {
      try {
        ws.close();
      } finally {
        await cleanup();
      }
    },
  };
}
