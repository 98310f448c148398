/**
 * The OAuth2 identity provider: a token is reused until shortly before its expiry (a margin in proportion
 * to its lifetime), concurrent requests share one fetch, a failing provider is retried a bounded number of times and
 * its failure then remembered, and a token response has the depth and size bounds of every response. Every server here
 * is a stub on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { reuseUntil, TokenProvider, type TokenFetchPolicy } from '../../harness/transport/auth.js';
import { TransportError } from '../../harness/transport/http.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** A stub token endpoint: `answer` writes each response; the count of requests it received is `hits()`. */
async function tokenServer(answer: (n: number, req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    const n = hits;
    req.resume();
    req.on('end', () => answer(n, req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, hits: () => hits };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

const provider = (tokenUrl: string, policy: Partial<TokenFetchPolicy> = {}, maxJsonDepth?: number, maxResponseBytes = 1 << 20) =>
  new TokenProvider({ kind: 'oauth2', tokenUrl, clients: { admin: { clientId: 'cid', clientSecret: 'client-secret-fetch-test' } } }, 2000, maxResponseBytes, undefined, maxJsonDepth, policy);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** an unsigned JWT whose exp is `seconds` from now */
const jwtExpiringIn = (seconds: number) =>
  `eyJhbGciOiJub25lIn0.${Buffer.from(JSON.stringify({ sub: 'x', exp: Math.floor(Date.now() / 1000) + seconds })).toString('base64url')}.c2ln`;

describe('OAuth2 token reuse', () => {
  it('renews a token shortly before its expiry, the margin a tenth of its lifetime and at most 30 s', () => {
    expect(reuseUntil(0, 3_600_000)).toBe(3_600_000 - 30_000);
    expect(reuseUntil(0, 60_000)).toBe(54_000);
    expect(reuseUntil(1000, 10_000)).toBe(10_000);
  });

  it('fetches a token that lives under 30 s once for many requests, not once per request', async () => {
    const s = await tokenServer((n, _, res) => json(res, 200, { access_token: `short-lived-${n}`, token_type: 'Bearer', expires_in: 20 }));
    const p = provider(s.url);
    for (let i = 0; i < 200; i++) expect(await p.tokenFor('admin')).toBe('short-lived-1');
    expect(s.hits()).toBe(1);
  });

  it('fetches a 1-second token a bounded number of times over 1.5 s of requests, and a new one after expiry', async () => {
    const s = await tokenServer((n, _, res) => json(res, 200, { access_token: `one-second-${n}`, expires_in: 1 }));
    const p = provider(s.url);
    const seen = new Set<string>();
    const until = Date.now() + 1500;
    for (let i = 0; i < 1000 && Date.now() < until; i++) {
      seen.add(await p.tokenFor('admin'));
      await sleep(5);
    }
    // reused for 0.9 s each: two fetches, three at most on a slow machine
    expect(s.hits()).toBeGreaterThanOrEqual(2);
    expect(s.hits()).toBeLessThanOrEqual(3);
    expect(seen.size).toBe(s.hits());
  });

  it('reuses a token without expires_in, and takes its lifetime from the exp of a JWT', async () => {
    const opaque = await tokenServer((n, _, res) => json(res, 200, { access_token: `opaque-no-expiry-${n}` }));
    const p = provider(opaque.url);
    for (let i = 0; i < 50; i++) await p.tokenFor('admin');
    expect(opaque.hits()).toBe(1);
    // a JWT expiring in 2 s (1 to 2 s, its exp in whole seconds), without expires_in: not used past its exp (before,
    // it was kept for 270 s)
    const jwt = await tokenServer((_, __, res) => json(res, 200, { access_token: jwtExpiringIn(2) }));
    const q = provider(jwt.url);
    await q.tokenFor('admin');
    await q.tokenFor('admin');
    expect(jwt.hits()).toBe(1);
    await sleep(2100);
    await q.tokenFor('admin');
    expect(jwt.hits()).toBe(2);
  });

  it('takes expires_in sent as a numeric string', async () => {
    const s = await tokenServer((n, _, res) => json(res, 200, { access_token: `string-expiry-${n}`, expires_in: '25' }));
    const p = provider(s.url);
    for (let i = 0; i < 20; i++) await p.tokenFor('admin');
    expect(s.hits()).toBe(1);
  });

  it('answers 20 concurrent requests for the same token with one fetch', async () => {
    const s = await tokenServer((n, _, res) => setTimeout(() => json(res, 200, { access_token: `shared-${n}`, expires_in: 3600 }), 150));
    const p = provider(s.url);
    const tokens = await Promise.all(Array.from({ length: 20 }, () => p.tokenFor('admin')));
    expect(new Set(tokens)).toEqual(new Set(['shared-1']));
    expect(s.hits()).toBe(1);
  });
});

describe('a failing identity provider', () => {
  it('is asked 3 times with a short backoff, then its failure is given to every later request at once', async () => {
    const s = await tokenServer((_, __, res) => json(res, 503, { error: 'down' }));
    const p = provider(s.url);
    const started = Date.now();
    const first = (await p.tokenFor('admin').catch((e: unknown) => e)) as Error;
    const firstMs = Date.now() - started;
    expect(first).toBeInstanceOf(TransportError);
    expect(first.message).toMatch(/OAuth2 token request to http:\/\/127\.0\.0\.1:\d+\/token for role "admin" failed: answered 503 without an access_token \(3 attempts\); not asked again for 30 s/);
    // 200 ms, then 400 ms between the attempts
    expect(firstMs).toBeGreaterThanOrEqual(550);
    expect(firstMs).toBeLessThan(3000);
    expect(s.hits()).toBe(3);
    // 100 later checks, one after another and 20 at once: no request reaches the provider, each ends at once
    const t0 = Date.now();
    for (let i = 0; i < 100; i++) {
      const e = (await p.tokenFor('admin').catch((x: unknown) => x)) as Error;
      expect(e).toBeInstanceOf(TransportError);
      expect(e.message).toBe(first.message);
    }
    const all = await Promise.allSettled(Array.from({ length: 20 }, () => p.tokenFor('admin')));
    expect(all.every((r) => r.status === 'rejected')).toBe(true);
    // at once: far below one backoff of 200 ms each (24 s), with room for a loaded machine
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(s.hits()).toBe(3);
  });

  it('shares one series of attempts among concurrent requests', async () => {
    const s = await tokenServer((_, __, res) => json(res, 500, { error: 'down' }));
    const p = provider(s.url);
    const all = await Promise.allSettled(Array.from({ length: 20 }, () => p.tokenFor('admin')));
    expect(all.every((r) => r.status === 'rejected')).toBe(true);
    expect(s.hits()).toBe(3);
  });

  it('counts a dropped connection as a failure worth retrying, and a refused one', async () => {
    let connections = 0;
    const sockets = new Set<Socket>();
    const dropper = createTcpServer((socket) => {
      connections++;
      sockets.add(socket);
      socket.once('data', () => socket.destroy());
    });
    await new Promise<void>((r) => dropper.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => dropper.close(() => r())));
    const p = provider(`http://127.0.0.1:${(dropper.address() as AddressInfo).port}/token`);
    for (let i = 0; i < 30; i++) await expect(p.tokenFor('admin')).rejects.toBeInstanceOf(TransportError);
    expect(connections).toBe(3);
    // a port nobody listens on
    const idle = createTcpServer();
    await new Promise<void>((r) => idle.listen(0, '127.0.0.1', r));
    const port = (idle.address() as AddressInfo).port;
    await new Promise<void>((r) => idle.close(() => r()));
    const q = provider(`http://127.0.0.1:${port}/token`);
    const t0 = Date.now();
    const errors = await Promise.all(Array.from({ length: 30 }, () => q.tokenFor('admin').catch((e: unknown) => (e as Error).message)));
    expect(new Set(errors).size).toBe(1);
    expect(errors[0]).toMatch(/connection refused: is the identity provider running\? \(3 attempts\)/);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('is asked again once the failure is no longer remembered, and a token it then gives is used', async () => {
    let healthy = false;
    const s = await tokenServer((n, _, res) => (healthy ? json(res, 200, { access_token: `recovered-${n}`, expires_in: 3600 }) : json(res, 502, 'bad gateway')));
    const p = provider(s.url, { failureMemoryMs: 300, backoffMs: 10 });
    await expect(p.tokenFor('admin')).rejects.toThrow(/answered 502 .*\(3 attempts\)/);
    await expect(p.tokenFor('admin')).rejects.toThrow(/answered 502/);
    expect(s.hits()).toBe(3);
    healthy = true;
    await sleep(350);
    expect(await p.tokenFor('admin')).toBe('recovered-4');
    expect(await p.tokenFor('admin')).toBe('recovered-4');
    expect(s.hits()).toBe(4);
  });

  it('does not retry a refusal of the credentials (401), but remembers it too', async () => {
    const s = await tokenServer((_, __, res) => json(res, 401, { error: 'invalid_client' }));
    const p = provider(s.url);
    for (let i = 0; i < 10; i++) await expect(p.tokenFor('admin')).rejects.toThrow(/answered 401 without an access_token; not asked again/);
    expect(s.hits()).toBe(1);
  });
});

describe('token response bounds', () => {
  it('refuses a deeply nested token response quickly, before parsing it, naming run.maxJsonDepth', async () => {
    const depth = 1_000_000;
    const deep = `{"access_token":"deep-token","x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const s = await tokenServer((_, __, res) => json(res, 200, deep));
    const p = provider(s.url, {}, undefined, 4 << 20);
    const started = Date.now();
    await expect(p.tokenFor('admin')).rejects.toThrow(/failed: the answer \(200\) nests JSON deeper than 512 levels \(run\.maxJsonDepth\); not parsed/);
    expect(Date.now() - started).toBeLessThan(2000);
    // not a failure a retry mends
    expect(s.hits()).toBe(1);
  });

  it('applies the configured depth bound', async () => {
    const nested = (levels: number) => `{"access_token":"nested-${levels}","x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    const shallow = await tokenServer((_, __, res) => json(res, 200, nested(8)));
    expect(await provider(shallow.url, {}, 8).tokenFor('admin')).toBe('nested-8');
    const deeper = await tokenServer((_, __, res) => json(res, 200, nested(9)));
    await expect(provider(deeper.url, {}, 8).tokenFor('admin')).rejects.toThrow(/deeper than 8 levels/);
  });

  it('refuses a token response above run.maxResponseBytes without retrying it', async () => {
    const s = await tokenServer((_, __, res) => json(res, 200, JSON.stringify({ access_token: 'big', pad: 'x'.repeat(300_000) })));
    const p = provider(s.url, {}, undefined, 100_000);
    await expect(p.tokenFor('admin')).rejects.toThrow(/the answer exceeds the 100000-byte cap \(run\.maxResponseBytes\)/);
    await expect(p.tokenFor('admin')).rejects.toThrow(/exceeds the 100000-byte cap/);
    expect(s.hits()).toBe(1);
  });
});
