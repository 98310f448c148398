/**
 * The observing proxy forwards unchanged: statuses, status texts, headers (case, order, repeats) and bodies
 * of any size reach the client as the target sent them, and requests reach the target as the client sent them, but
 * for the hop-by-hop fields and Host. What it hands to the judge is bounded: a body beyond the cap is forwarded whole
 * and not judged.
 */
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObservedExchange } from '../../harness/observe/passive.js';
import { endToEnd, startObserver, type Observer } from '../../harness/observe/proxy.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** a deterministic body of `n` bytes, so the direct and the proxied answers are the same */
const bytes = (n: number, seed: number) => {
  const b = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
};

const BIG = bytes(3 * 1024 * 1024 + 17, 7);
const GZIPPED = gzipSync(Buffer.from(JSON.stringify({ entries: [] })));
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'x-hop', 'proxy-connection', 'te', 'trailer', 'upgrade']);

/** what the upstream saw of each request */
const seen: Array<{ method: string; url: string; rawHeaders: string[]; body: string }> = [];

function upstream(): Promise<Server> {
  const server = createServer((req, res) => {
    res.sendDate = false;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, body: sha(body) });
      const path = (req.url ?? '').split('?')[0];
      if (path === '/api/scan/v0/ans-entries') {
        res.writeHead(200, 'Fine Thanks', ['Content-Type', 'application/json; charset=utf-8', 'X-Mixed-Case', 'A', 'x-mixed-case', 'B', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Connection', 'keep-alive, X-Hop', 'X-Hop', 'hop value', 'Keep-Alive', 'timeout=5', 'X-Path', req.url ?? '']);
        res.end(JSON.stringify({ entries: [] }));
      } else if (path === '/api/scan/big') {
        // chunked: no Content-Length, written in pieces
        res.writeHead(200, ['Content-Type', 'application/octet-stream']);
        let at = 0;
        const next = () => {
          while (at < BIG.length) {
            const piece = BIG.subarray(at, at + 65_536);
            at += piece.length;
            if (!res.write(piece)) return void res.once('drain', next);
          }
          res.end();
        };
        next();
      } else if (path === '/api/scan/gzip') {
        res.writeHead(200, ['Content-Type', 'application/json', 'Content-Encoding', 'gzip', 'Content-Length', String(GZIPPED.length), 'Vary', 'Accept-Encoding']);
        res.end(GZIPPED);
      } else if (path === '/api/scan/teapot') {
        res.writeHead(418, 'I Am A Custom Teapot', ['content-type', 'text/plain', 'Retry-After', '7']);
        res.end('short and stout');
      } else if (path === '/api/scan/reset') {
        res.writeHead(200, ['Content-Type', 'application/json', 'Content-Length', '100000']);
        res.write('{"entries":[');
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (path === '/api/scan/echo') {
        res.writeHead(201, ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(JSON.stringify({ bytes: body.length })))]);
        res.end(JSON.stringify({ bytes: body.length }));
      } else {
        res.writeHead(404, ['Content-Type', 'text/plain']);
        res.end('no route');
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Answer {
  status: number;
  statusMessage: string;
  rawHeaders: string[];
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function call(base: string, method: string, path: string, o: { headers?: string[]; body?: Buffer } = {}): Promise<Answer> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers: ['Host', u.host, ...(o.headers ?? [])], agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? '', rawHeaders: res.rawHeaders, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** the raw header list without the hop-by-hop fields (those of HOP, and Node's own framing on each side) */
const endToEndOf = (raw: string[]) => raw.filter((_, i) => i % 2 === 0).flatMap((name, i) => (HOP.has(name.toLowerCase()) ? [] : [name, raw[2 * i + 1]!]));

describe('the observing proxy', () => {
  let up: Server;
  let direct: string;
  let observer: Observer;
  let onePort: string;
  let scanPort: string;
  const observed: ObservedExchange[] = [];
  const notJudged: string[] = [];

  beforeAll(async () => {
    up = await upstream();
    direct = `http://127.0.0.1:${(up.address() as AddressInfo).port}`;
    observer = await startObserver({
      targets: { ledger: { url: direct }, scan: { url: `${direct}/api/scan` } },
      listeners: [{ host: '127.0.0.1', port: 0 }, { api: 'scan', host: '127.0.0.1', port: 0 }],
      maxBodyBytes: 1024 * 1024,
      onExchange: (x) => observed.push(x),
      onNotJudged: (r) => notJudged.push(r),
    });
    onePort = observer.listening.find((l) => l.api === undefined)!.url;
    scanPort = observer.listening.find((l) => l.api === 'scan')!.url;
  });

  afterAll(async () => {
    await observer?.close(500);
    await new Promise<void>((r) => up?.close(() => r()));
  });

  it('passes statuses, status texts, headers (case, order, repeats) and bodies through byte for byte', async () => {
    for (const [method, path] of [['GET', '/api/scan/v0/ans-entries?page_size=3'], ['GET', '/api/scan/gzip'], ['GET', '/api/scan/teapot'], ['HEAD', '/api/scan/v0/ans-entries'], ['GET', '/api/scan/big']] as const) {
      const a = await call(direct, method, path, { headers: ['Accept-Encoding', 'gzip'] });
      const b = await call(onePort, method, path, { headers: ['Accept-Encoding', 'gzip'] });
      expect(b.status, path).toBe(a.status);
      expect(b.statusMessage, path).toBe(a.statusMessage);
      expect(endToEndOf(b.rawHeaders), path).toEqual(endToEndOf(a.rawHeaders));
      expect(sha(b.body), path).toBe(sha(a.body));
    }
    // the hop-by-hop fields the target named were not forwarded; the repeated and mixed-case ones were, as sent
    const a = await call(onePort, 'GET', '/api/scan/v0/ans-entries');
    expect(a.rawHeaders).not.toContain('X-Hop');
    expect(a.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === 'set-cookie')).toEqual(['Set-Cookie', 'Set-Cookie']);
    expect(a.rawHeaders.slice(0, 8)).toEqual(['Content-Type', 'application/json; charset=utf-8', 'X-Mixed-Case', 'A', 'x-mixed-case', 'B', 'Set-Cookie', 'a=1']);
    // the compressed body went through compressed
    const g = await call(onePort, 'GET', '/api/scan/gzip', { headers: ['Accept-Encoding', 'gzip'] });
    expect(g.body.equals(GZIPPED)).toBe(true);
  });

  it('passes requests through as the client sent them, but for Host and the hop-by-hop fields', async () => {
    const body = bytes(2 * 1024 * 1024 + 3, 11);
    seen.length = 0;
    const headers = ['Content-Type', 'application/octet-stream', 'X-Trace', 'one', 'x-trace', 'two', 'Authorization', 'Bearer abc.def.ghi', 'Connection', 'keep-alive, X-Hop', 'X-Hop', 'drop me', 'Content-Length', String(body.length)];
    const a = await call(onePort, 'POST', '/api/scan/echo?x=1&x=2', { headers, body });
    expect(a.status).toBe(201);
    expect(JSON.parse(a.body.toString())).toEqual({ bytes: body.length });
    const s = seen.at(-1)!;
    expect(s.url).toBe('/api/scan/echo?x=1&x=2');
    expect(s.body).toBe(sha(body));
    // every end-to-end field arrived as sent, in its order, case and repeats; Host names the target
    const pairs = endToEndOf(s.rawHeaders);
    const host = pairs.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'host');
    expect(pairs[host + 1]).toBe(new URL(direct).host);
    expect([...pairs.slice(0, host), ...pairs.slice(host + 2)]).toEqual(['Content-Type', 'application/octet-stream', 'X-Trace', 'one', 'x-trace', 'two', 'Authorization', 'Bearer abc.def.ghi', 'Content-Length', String(body.length)]);
    expect(s.rawHeaders).not.toContain('X-Hop');
  });

  it('serves an interface on a listener of its own, its URL standing for the base URL', async () => {
    const a = await call(scanPort, 'GET', '/v0/ans-entries?page_size=2');
    expect(a.status).toBe(200);
    expect(a.headers['x-path']).toBe('/api/scan/v0/ans-entries?page_size=2');
    await new Promise((r) => setImmediate(r));
    const x = observed.at(-1)!;
    expect(x).toMatchObject({ api: 'scan', method: 'GET', path: '/v0/ans-entries', status: 200, url: `${direct}/api/scan/v0/ans-entries?page_size=2` });
    expect(x.body?.toString()).toBe('{"entries":[]}');
  });

  it('hands every exchange to the judge, a body beyond the cap forwarded whole and not judged', async () => {
    observed.length = 0;
    await call(onePort, 'GET', '/api/scan/big');
    await call(onePort, 'GET', '/v2/version');
    await new Promise((r) => setTimeout(r, 20));
    const big = observed.find((x) => x.path === '/big')!;
    expect(big).toMatchObject({ api: 'scan', status: 200 });
    expect(big.body).toBeUndefined();
    expect(big.bodyNotJudged).toMatch(/body larger than 1048576 bytes/);
    // the ledger's base is the root: what no other base path claims goes there
    expect(observed.find((x) => x.path === '/v2/version')).toMatchObject({ api: 'ledger', status: 404 });
    expect(observer.inFlight()).toBe(0);
  });

  it('answers 502 itself, and judges nothing, when the target cannot be reached', async () => {
    const gone = await startObserver({ targets: { scan: { url: 'http://127.0.0.1:9/api/scan' } }, listeners: [{ api: 'scan', host: '127.0.0.1', port: 0 }], maxBodyBytes: 1024, onExchange: (x) => observed.push(x) });
    try {
      observed.length = 0;
      const a = await call(gone.listening[0]!.url, 'GET', '/v0/ans-entries');
      expect(a.status).toBe(502);
      expect(a.body.toString()).toContain('could not be reached');
      await new Promise((r) => setTimeout(r, 20));
      expect(observed[0]).toMatchObject({ api: 'scan', error: expect.stringMatching(/could not be reached/) });
      expect(observed[0]!.status).toBeUndefined();
    } finally {
      await gone.close(100);
    }
  });

  it('survives clients and targets that go away mid-exchange, and judges none of those exchanges', async () => {
    observed.length = 0;
    const u = new URL(onePort);
    // a client that leaves after the first bytes of a large body
    await new Promise<void>((resolve) => {
      const req = request({ host: u.hostname, port: u.port, path: '/api/scan/big', headers: { host: u.host }, agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.end();
    });
    // a client that leaves in the middle of its upload
    await new Promise<void>((resolve) => {
      const req = request({ host: u.hostname, port: u.port, method: 'POST', path: '/api/scan/echo', headers: { host: u.host, 'content-length': '1000000' }, agent: false });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(10_000));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    // a target that resets in the middle of its body: the client sees the cut
    await expect(call(onePort, 'GET', '/api/scan/reset')).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 100));
    const by = (path: string) => observed.find((x) => x.path === path);
    // the whole body may have reached the proxy before the client left: then the target's answer is complete (and judged)
    expect(String(by('/big')?.error ?? by('/big')?.status)).toMatch(/^the client closed the connection before the response ended$|^200$/);
    expect(by('/echo')).toMatchObject({ error: 'the client closed the connection before the answer' });
    expect(by('/reset')).toMatchObject({ error: expect.stringMatching(/^the response body was cut off before its end/) });
    expect(by('/reset')?.status).toBeUndefined();
    expect(observer.inFlight()).toBe(0);
    expect((await call(onePort, 'GET', '/api/scan/v0/ans-entries')).status).toBe(200);
  });

  it('drops the hop-by-hop fields and those Connection names, and names the target in Host', () => {
    expect(endToEnd(['Host', 'a:1', 'Connection', 'close, X-A', 'X-A', '1', 'TE', 'trailers', 'X-B', '2', 'Proxy-Authorization', 'Basic x'], 'b:2')).toEqual(['Host', 'b:2', 'X-B', '2']);
    expect(endToEnd(['X-B', '2'], 'b:2')).toEqual(['Host', 'b:2', 'X-B', '2']);
  });
});
