import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { HttpClient, TransportError, retryAfterMs } from '../../harness/transport/http.js';
import { TokenProvider } from '../../harness/transport/auth.js';
import { servedDocumentHeaders } from '../../harness/spec-diff/document.js';
import type { TargetConfig } from '../../harness/config.js';

/**
 * The HTTP client's bounds against a hostile loopback target: decoded size, JSON depth,
 * redirects, the OAuth2 token request, and the retries of 429 and 503.
 */
const ZEROS_GZIP = gzipSync(Buffer.alloc(64 * 1024 * 1024)); // about 64 KB on the wire, 64 MB decoded
const hits = new Map<string, number>();
let server: Server;
let url: string;
const open = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    const json = (status: number, body: string, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...extra });
      res.end(body);
    };
    switch (path) {
      case '/bomb':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return res.end(ZEROS_GZIP);
      case '/gzip-ok':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return res.end(gzipSync(JSON.stringify({ ok: true })));
      case '/deep':
        return json(200, '['.repeat(200_000) + ']'.repeat(200_000));
      case '/nested-ok':
        return json(200, '{"a":'.repeat(100) + '"x[{"' + '}'.repeat(100));
      case '/redirect-away':
        return json(302, '{}', { location: `${url}/elsewhere` });
      case '/busy-then-ok':
        return n <= 2 ? json(429, '{"error":"slow down"}', { 'retry-after': '0' }) : json(200, '{"ok":true}');
      case '/busy-date':
        return n <= 1 ? json(503, '{}', { 'retry-after': new Date(Date.now() + 1000).toUTCString() }) : json(200, '{"ok":true}');
      case '/always-busy':
        return json(503, '{"error":"overloaded"}');
      case '/busy-long':
        return json(429, '{}', { 'retry-after': '3600' });
      case '/token-hang':
        open.add(res);
        return;
      case '/token-huge':
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(`{"access_token":"${'x'.repeat(2 * 1024 * 1024)}"}`);
      case '/token-bomb':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return res.end(ZEROS_GZIP);
      case '/token-big-headers':
        // 24 KiB of headers: above undici's 16 KiB default, below the default run.maxHeaderBytes (64 KiB)
        return json(200, '{"access_token":"token-behind-big-headers","expires_in":300}', { 'x-padding': 'p'.repeat(24 * 1024) });
      case '/token-redirect':
        return json(307, '{}', { location: `${url}/token-elsewhere` });
      default:
        return json(404, '{}');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const r of open) r.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const client = (over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) =>
  new HttpClient({ api: 'scan', baseUrl: url, timeoutMs: 1000, maxResponseBytes: 1 << 20, ...over });

describe('HTTP client bounds', () => {
  it('stops a gzip bomb at maxResponseBytes of decoded bytes, with bounded memory', async () => {
    const before = process.memoryUsage().rss;
    const started = Date.now();
    await expect(client().send({ method: 'GET', path: '/bomb' })).rejects.toThrow(/exceeds the 1048576-byte cap \(run.maxResponseBytes\) once its gzip content encoding is decoded/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
    const ok = await client().send({ method: 'GET', path: '/gzip-ok' });
    expect(ok.json).toEqual({ ok: true });
  });

  it('refuses JSON nested deeper than maxJsonDepth before parsing it, and parses deep-enough JSON', async () => {
    const started = Date.now();
    const err = await client({ maxJsonDepth: 64 }).send({ method: 'GET', path: '/deep' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as Error).message).toMatch(/nests JSON deeper than 64 levels \(run.maxJsonDepth\)/);
    expect(Date.now() - started).toBeLessThan(5000);
    // brackets inside strings do not count
    const ok = await client({ maxJsonDepth: 100 }).send({ method: 'GET', path: '/nested-ok' });
    expect(ok.json).toBeDefined();
  });

  it('reports a redirect as an error naming where it points, and does not follow it', async () => {
    const err = await client().send({ method: 'GET', path: '/redirect-away', token: 'tok-not-to-be-sent-away' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as Error).message).toContain(`answered 302, redirected to ${url}/elsewhere`);
    expect(hits.get('/elsewhere')).toBeUndefined();
  });

  it('retries 429 and 503, honouring Retry-After in seconds and as an HTTP date, and keeps the refused answers', async () => {
    const x = await client().send({ method: 'POST', path: '/busy-then-ok', json: {} });
    expect(x.status).toBe(200);
    expect(x.earlier?.map((e) => e.status)).toEqual([429, 429]);
    const y = await client().send({ method: 'GET', path: '/busy-date' });
    expect(y.status).toBe(200);
    expect(y.earlier?.map((e) => e.status)).toEqual([503]);
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('returns the answer as is when the target stays overloaded, within the attempt and wait bounds', async () => {
    hits.clear();
    const started = Date.now();
    const x = await client({ retries: 2, retryMaxWaitMs: 2000 }).send({ method: 'GET', path: '/always-busy' });
    expect(x.status).toBe(503);
    expect(hits.get('/always-busy')).toBe(3);
    expect(Date.now() - started).toBeLessThan(2000 + 5000);
    // a Retry-After beyond the budget is not waited for; retries 0 switches retrying off
    const t0 = Date.now();
    expect((await client().send({ method: 'GET', path: '/busy-long' })).status).toBe(429);
    expect(Date.now() - t0).toBeLessThan(1000 + 5000);
    expect(hits.get('/busy-long')).toBe(1);
    await client({ retries: 0 }).send({ method: 'GET', path: '/always-busy' });
    expect(hits.get('/always-busy')).toBe(4);
  });

  it('bounds the OAuth2 token request in time and size, names the token endpoint and does not follow redirects', async () => {
    const provider = (path: string) =>
      new TokenProvider({ kind: 'oauth2', tokenUrl: `${url}${path}`, clients: { admin: { clientId: 'c', clientSecret: 'client-secret-value-123' } } }, 500, 1 << 20);
    const started = Date.now();
    await expect(provider('/token-hang').tokenFor('admin')).rejects.toThrow(new RegExp(`OAuth2 token request to ${url}/token-hang .*no answer within 500 ms`));
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(provider('/token-huge').tokenFor('admin')).rejects.toThrow(/token-huge .*exceeds the 1048576-byte cap/);
    await expect(provider('/token-bomb').tokenFor('admin')).rejects.toThrow(/token-bomb .*once its gzip content encoding is decoded/);
    await expect(provider('/token-redirect').tokenFor('admin')).rejects.toThrow(/token-redirect .*redirected to http:\/\/127\.0\.0\.1:\d+\/token-elsewhere/);
    expect(hits.get('/token-elsewhere')).toBeUndefined();
    await expect(provider('/token-hang').tokenFor('admin')).rejects.toBeInstanceOf(TransportError);
  });

  it('bounds the token response headers by run.maxHeaderBytes, naming the token endpoint and the setting', async () => {
    const provider = (maxHeaderBytes?: number) =>
      new TokenProvider({ kind: 'oauth2', tokenUrl: `${url}/token-big-headers`, clients: { admin: { clientId: 'c', clientSecret: 'client-secret-value-123' } } }, 1000, 1 << 20, maxHeaderBytes);
    // the default bound (64 KiB) lets 24 KiB of headers through, where undici's own default (16 KiB) would not
    expect(await provider().tokenFor('admin')).toBe('token-behind-big-headers');
    expect(await provider(32 * 1024).tokenFor('admin')).toBe('token-behind-big-headers');
    const refused = provider(8 * 1024).tokenFor('admin');
    await expect(refused).rejects.toBeInstanceOf(TransportError);
    await expect(refused).rejects.toThrow(new RegExp(`OAuth2 token request to ${url}/token-big-headers .*headers exceed the 8192-byte cap \\(run.maxHeaderBytes\\)`));
  });

  it("bounds the token request of a served document's read (spec-diff, --also-validate-against) by the run's settings", async () => {
    const target = { url, headers: {}, auth: { kind: 'oauth2', tokenUrl: `${url}/token-big-headers`, clients: { admin: { clientId: 'c', clientSecret: 'client-secret-value-123' } } } } as unknown as TargetConfig;
    const bounds = (maxHeaderBytes: number) => ({ timeoutMs: 1000, maxResponseBytes: 1 << 20, maxHeaderBytes });
    expect((await servedDocumentHeaders(target, bounds(32 * 1024))).authorization).toBe('Bearer token-behind-big-headers');
    // a token that cannot be had within the bounds: the document is read without one
    expect((await servedDocumentHeaders(target, bounds(8 * 1024))).authorization).toBeUndefined();
  });
});
