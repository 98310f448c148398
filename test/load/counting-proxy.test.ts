/**
 * The counting proxy of scripts/rate-at-target.ts: in its own process, it counts every request's arrival and forwards
 * it to the upstream as it came (method, path and query, body, the answer's status, headers and body); it answers 502
 * when the upstream is gone, refuses an upstream off this machine, and ends when its parent goes away.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrivalCounter } from './arrivals.js';

const seen: Array<{ method?: string; url?: string; host?: string; body: string }> = [];
const upstream = createServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString('utf8')));
  req.on('end', () => {
    seen.push({ method: req.method, url: req.url, host: req.headers.host, body });
    res.writeHead(req.url === '/missing' ? 404 : 201, { 'content-type': 'application/json', 'x-upstream': 'yes' });
    res.end(JSON.stringify({ echoed: body }));
  });
});
let upstreamUrl = '';
let proxy: ChildProcess;
let proxyUrl = '';

const message = <T>(child: ChildProcess): Promise<T> => new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('no message from the proxy within 60 s')), 60_000);
  child.once('message', (m) => {
    clearTimeout(timer);
    resolve(m as T);
  });
});

beforeAll(async () => {
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  proxy = fork('test/load/counting-proxy.ts', [upstreamUrl, '120000'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  proxyUrl = (await message<{ url: string }>(proxy)).url;
}, 90_000);

afterAll(async () => {
  if (proxy.exitCode === null) proxy.kill('SIGKILL');
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

describe('the counting proxy', () => {
  it('forwards every request as it came and counts its arrival', async () => {
    const before = Date.now();
    const post = await fetch(`${proxyUrl}/api/scan/v0/things?limit=2&after=x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(post.status).toBe(201);
    expect(post.headers.get('x-upstream')).toBe('yes');
    expect(await post.json()).toEqual({ echoed: '{"a":1}' });
    const missing = await fetch(`${proxyUrl}/missing`);
    expect(missing.status).toBe(404);
    expect(seen.slice(-2)).toEqual([
      { method: 'POST', url: '/api/scan/v0/things?limit=2&after=x', host: new URL(upstreamUrl).host, body: '{"a":1}' },
      { method: 'GET', url: '/missing', host: new URL(upstreamUrl).host, body: '' },
    ]);
    proxy.send('arrivals');
    const { arrivals } = await message<{ arrivals: number[] }>(proxy);
    expect(arrivals).toHaveLength(2);
    for (const a of arrivals) expect(a).toBeGreaterThanOrEqual(before - 5);
  }, 60_000);

  it('answers 502 when the upstream is gone, and refuses an upstream off this machine', async () => {
    const gone = await arrivalCounter({ upstream: 'http://127.0.0.1:9' });
    try {
      const x = await fetch(`${gone.url}/v2/version`);
      expect(x.status).toBe(502);
      expect(await x.text()).toMatch(/counting proxy: upstream http:\/\/127\.0\.0\.1:9 failed/);
      expect(gone.arrivals).toHaveLength(1);
    } finally {
      await gone.close();
    }
    await expect(arrivalCounter({ upstream: 'http://example.com' })).rejects.toThrow(/loopback/);
  });

  it('ends when its parent asks', async () => {
    const ended = new Promise<number | null>((r) => proxy.once('exit', (code) => r(code)));
    proxy.send('stop');
    expect(await ended).toBe(0);
  }, 30_000);
});
