import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { HttpClient, TransportError, buildUrl, curlFor, toExchange } from '../../harness/transport/http.js';
import { servedDocumentUrl } from '../../harness/spec-diff/document.js';
import { REDACTED, registerSecret } from '../../harness/transport/redact.js';
import type { ExchangeRecord } from '../../harness/types.js';
import { startMiniServer } from './mini-server.js';

let server: Awaited<ReturnType<typeof startMiniServer>>;
beforeAll(async () => {
  server = await startMiniServer();
});
afterAll(async () => server.close());

function client(over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}, records: ExchangeRecord[] = []) {
  return new HttpClient({ api: 'scan', baseUrl: server.url, timeoutMs: 1000, maxResponseBytes: 1 << 20, onExchange: (x) => records.push(x), ...over });
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('HTTP client', () => {
  it('refuses a JSON body with a number beyond a double\'s range wherever it stands, and no other for the hex of an id', () => {
    const judged = (text: string) => {
      const record: ExchangeRecord = { api: 'ledger', request: { method: 'GET', url: 'http://h/x', headers: {} }, startedAt: '', durationMs: 0 };
      return toExchange('ledger', undefined, 200, { 'content-type': 'application/json' }, text, record);
    };
    const huge = ['{"a":1e400}', '[1E+308, 2e999]', '{"a": [1, 2,\n  -2.5e308]}', '{"a":{"b":[{"c":12.5e4000}]}}', `{"n":${'9'.repeat(309)}}`,
      // 9.99e308, 5e308 and 1.1e309: beyond the largest double though no exponent has three digits
      `{"n":${'9'.repeat(308)}e1}`, '{"s":"\\\\","n":0.5e309}', `{"s":"\\"1e400","n":[${'1'.repeat(301)}.5e9]}`];
    for (const text of huge) {
      const x = judged(text);
      expect(x.json, text).toBeUndefined();
      expect(x.jsonError, text).toMatch(/beyond the range of a double/);
    }
    // party ids and hex strings hold "e" and three digits, and numbers with small exponents stay numbers
    for (const text of ['{"party":"validator-115::12205e148b03f5a1e47dc65"}', '{"a":1e300,"b":[2.5E-999, 3e99]}', '{"s":"x,1e400"}',
      '{"s":"a\\"b,1e400","t":"\\\\","u":[1e308, 0.0001e311, -1.5e-400]}', `{"n":0.${'0'.repeat(400)}1}`]) {
      const x = judged(text);
      expect(x.jsonError, text).toBeUndefined();
      expect(x.json, text).toEqual(JSON.parse(text));
    }
  });

  it('keeps a base URL\'s own query (an API key for a gateway) as written, ahead of the request\'s', () => {
    expect(buildUrl('http://h:1/api/', '/v0/x', { a: 'b c' })).toBe('http://h:1/api/v0/x?a=b+c');
    expect(buildUrl('http://h:1/api?api_key=k/1+2=', '/v0/x?z=1', { a: 'b' })).toBe('http://h:1/api/v0/x?api_key=k/1+2=&z=1&a=b');
    expect(servedDocumentUrl('ledger', 'http://h:1/api?api_key=k1')).toBe('http://h:1/api/docs/openapi?api_key=k1');
  });

  it('records method, URL, headers, body, status and timing, with the token redacted at the source', async () => {
    const records: ExchangeRecord[] = [];
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.abcdefgh';
    registerSecret(token);
    const x = await client({}, records).send({ method: 'GET', path: '/v0/items', query: { mode: 'echo-auth' }, token });
    expect(x.status).toBe(200);
    expect(x.json).toMatchObject({ seen: `Bearer ${token}` });
    const r = records[0]!;
    expect(r.request).toMatchObject({ method: 'GET', url: `${server.url}/v0/items?mode=echo-auth` });
    expect(r.request.headers.authorization).toBe(`Bearer ${REDACTED}`);
    expect(r.response?.status).toBe(200);
    expect(JSON.stringify(r)).not.toContain(token);
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(curlFor(r)).toContain('${SCAN_TOKEN}');
  });

  it('redacts a secret that straddles the cut of a recorded body', async () => {
    const records: ExchangeRecord[] = [];
    const secret = 'straddling-secret-value-0123456789';
    registerSecret(secret);
    const body = `${'x'.repeat(8 * 1024 - 10)}${secret}${'y'.repeat(100)}`;
    await client({}, records).send({ method: 'POST', path: '/v0/items', query: { mode: 'ok' }, body, headers: { 'content-type': 'text/plain' } });
    const recorded = records[0]!.request.body ?? '';
    expect(recorded.length).toBeLessThan(body.length);
    expect(recorded).not.toContain(secret.slice(0, 10));
  });

  it('times out a request that gets no answer, within the configured time', async () => {
    const started = Date.now();
    await expect(client({ timeoutMs: 300 }).send({ method: 'GET', path: '/v0/items', query: { mode: 'hang' } })).rejects.toThrow(/within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('fails fast once an origin timed out three times in a row, instead of waiting again and again', async () => {
    const other = await startMiniServer();
    try {
      const c = new HttpClient({ api: 'scan', baseUrl: other.url, timeoutMs: 500, maxResponseBytes: 1 << 20 });
      // a timeout while this thread was starved (a loaded machine) is not the target's and does not count: the target's
      // third in a row makes the next request fail fast, however many of the machine's came between
      let counted = false;
      for (let i = 0; i < 12 && !counted; i++) {
        const e = (await c.send({ method: 'GET', path: '/v0/items', query: { mode: 'hang' } }).catch((err: unknown) => err)) as Error;
        expect(e.message).toMatch(/within 500 ms|did not answer 3 requests in a row/);
        counted = /did not answer 3 requests in a row/.test(e.message);
      }
      expect(counted).toBe(true);
      const started = Date.now();
      await expect(c.send({ method: 'GET', path: '/v0/items', query: { mode: 'ok' } })).rejects.toThrow(/did not answer 3 requests in a row/);
      // without waiting for the 500 ms bound again
      expect(Date.now() - started).toBeLessThan(400);
    } finally {
      await other.close();
    }
  });

  it('reports a target that does not speak HTTP, or drops the connection, as a transport error', async () => {
    const { createServer: netServer } = await import('node:net');
    const garbage = netServer((c) => c.end('SSH-2.0-not-http\r\n\r\n'));
    const dropper = netServer((c) => c.destroy());
    await Promise.all([garbage, dropper].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    try {
      for (const s of [garbage, dropper]) {
        const c = new HttpClient({ api: 'scan', baseUrl: `http://127.0.0.1:${(s.address() as { port: number }).port}`, timeoutMs: 1000, maxResponseBytes: 1024 });
        const err = await c.send({ method: 'GET', path: '/v0/items' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(TransportError);
        // the connection was open: the request may have reached the target
        expect((err as TransportError).neverSent).toBeUndefined();
      }
    } finally {
      garbage.close();
      dropper.close();
    }
  });

  it('cuts off a response above the size cap', async () => {
    await expect(client({ maxResponseBytes: 2048 }).send({ method: 'GET', path: '/v0/items', query: { mode: 'big' } })).rejects.toThrow(/2048-byte cap/);
  });

  it('reports a refused connection as a transport error that never reached the target, and records it', async () => {
    const records: ExchangeRecord[] = [];
    const port = await freePort();
    const c = new HttpClient({ api: 'ledger', baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1000, maxResponseBytes: 1024, onExchange: (x) => records.push(x) });
    const err = await c.send({ method: 'GET', path: '/v2/version' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as Error).message).toContain('connection refused');
    expect((err as TransportError).neverSent).toBe(true);
    expect(records[0]?.transportError).toContain('connection refused');
  });
});
