/**
 * observe in front of a hostile target and among hostile clients: every answer of the target, however odd (a status
 * outside 100-599, a 101 nobody asked for, a head that does not parse), reaches the client as itself or as a 502
 * naming the cause, and the proxy goes on serving; CONNECT is refused with 405; slow and idle clients are closed
 * within the configured bounds, and no more than maxConnections are open at once.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObservedExchange } from '../../harness/observe/passive.js';
import { startObserver, type Observer } from '../../harness/observe/proxy.js';

/** raw answers by path: what a broken target or gateway sends */
const RAW: Record<string, string> = {
  '/api/scan/s000': 'HTTP/1.1 000 Zero\r\nContent-Length: 2\r\n\r\nok',
  '/api/scan/s099': 'HTTP/1.1 099 Low\r\nContent-Length: 0\r\n\r\n',
  '/api/scan/s600': 'HTTP/1.1 600 High\r\nContent-Length: 0\r\n\r\n',
  '/api/scan/s101': 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
  '/api/scan/garbage': 'THIS IS NOT HTTP\r\n\r\n',
  '/api/scan/ok': 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
};
/** a path the target reads a request of, and never answers */
const NEVER = '/api/scan/never';

let upstream: ReturnType<typeof createServer>;
let upstreamUrl: string;
let observer: Observer;
const exchanges: ObservedExchange[] = [];
const notJudged: string[] = [];

/** Sends `text` on a new connection to the proxy and reads until the proxy closes it (bounded). */
function raw(url: string, text: string, ms = 20_000): Promise<{ answer: string; closedAfterMs: number }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const s = connect(Number(u.port), u.hostname);
    let answer = '';
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no end of the connection within ${ms} ms; got ${JSON.stringify(answer)}`));
    }, ms);
    s.on('connect', () => s.write(text));
    s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closedAfterMs: Date.now() - t0 });
    });
  });
}

async function waitFor<T>(what: string, f: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  upstream = createServer((socket) => {
    let head = '';
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      head += d.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const path = head.split(' ')[1] ?? '';
      if (path === NEVER) return;
      head = head.slice(end + 4);
      socket.end(RAW[path] ?? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api/scan`;
  observer = await startObserver({
    targets: { scan: { url: upstreamUrl } },
    listeners: [{ host: '127.0.0.1', port: 0 }],
    maxBodyBytes: 1024 * 1024,
    onExchange: (x) => exchanges.push(x),
    onNotJudged: (r) => notJudged.push(r),
    headerTimeoutMs: 600,
    bodyTimeoutMs: 1500,
    idleTimeoutMs: 800,
    maxConnections: 20,
  });
});

afterAll(async () => {
  await observer?.close(200);
  upstream?.close();
});

describe('observe in front of a target with odd answers', () => {
  it.each([
    ['/api/scan/s000', /status 000, outside 100-599/],
    ['/api/scan/s099', /status 099, outside 100-599/],
    ['/api/scan/s600', /status 600, outside 100-599/],
    ['/api/scan/s101', /answered 101 \(switching protocols\) to a request that asked for no upgrade/],
    ['/api/scan/garbage', /does not parse as HTTP \(HPE_/],
  ])('answers %s with a 502 naming the cause, records it as no answer, and goes on serving', async (path, cause) => {
    const proxy = observer.listening[0]!.url;
    const before = exchanges.length;
    const r = await fetch(`${proxy}${path}`);
    expect(r.status).toBe(502);
    expect(await r.text()).toMatch(cause);
    const x = await waitFor('the exchange', () => exchanges[before]);
    expect(x.status).toBeUndefined();
    expect(x.error).toMatch(cause);
    // the listener is still there, and forwards the next answer as it is
    const ok = await fetch(`${proxy}/api/scan/ok`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('{}');
  });

  it('hands the judge a request body whole when it kept all of it, so that rules about the request can read it', async () => {
    const proxy = observer.listening[0]!.url;
    const before = exchanges.length;
    await (await fetch(`${proxy}/api/scan/ok`, { method: 'POST', body: '{"pageSize": 1', headers: { 'content-type': 'application/json' } })).text();
    await (await fetch(`${proxy}/api/scan/ok`, { method: 'POST', body: `{"x": "${'a'.repeat(20_000)}"}`, headers: { 'content-type': 'application/json' } })).text();
    const [small, large] = await waitFor('both exchanges', () => (exchanges.length >= before + 2 ? exchanges.slice(before) : undefined));
    expect(small).toMatchObject({ requestBody: '{"pageSize": 1', requestBodyComplete: true });
    // kept in part: no rule reads it as the request
    expect(large!.requestBodyComplete).toBe(false);
  });

  it('refuses CONNECT with 405 and says why', async () => {
    const { answer } = await raw(observer.listening[0]!.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(answer).toMatch(/CONNECT is not served/);
    expect(notJudged.some((n) => /CONNECT/.test(n))).toBe(true);
  });
});

describe('observe and a target that closes kept-alive connections', () => {
  it('sends a GET once more on a new connection when the target reset the kept-alive one it went out on, and never a POST', async () => {
    // the target answers the first request of each connection and resets the connection at the second
    const target = createServer((socket) => {
      let seen = 0;
      let head = '';
      socket.on('error', () => undefined);
      socket.on('data', (d: Buffer) => {
        head += d.toString('latin1');
        for (let end = head.indexOf('\r\n\r\n'); end >= 0; end = head.indexOf('\r\n\r\n')) {
          const length = Number(/content-length: *(\d+)/i.exec(head.slice(0, end))?.[1] ?? 0);
          head = head.slice(end + 4 + length);
          if (++seen > 1) return void socket.resetAndDestroy();
          socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}');
        }
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
    const o = await startObserver({ targets: { scan: { url: `http://127.0.0.1:${(target.address() as AddressInfo).port}` } }, listeners: [{ api: 'scan', host: '127.0.0.1', port: 0 }], maxBodyBytes: 1024, onExchange: () => undefined });
    try {
      const url = `${o.listening[0]!.url}/v0/ans-entries`;
      for (let i = 0; i < 3; i++) {
        const r = await fetch(url);
        expect(r.status, `GET ${i + 1}`).toBe(200);
        expect(await r.text()).toBe('{}');
      }
      // a POST may have changed something: its reset is the client's to see, as a 502 naming it
      // (it goes out on the connection the last GET kept alive, which the target resets)
      const post = await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(post.status).toBe(502);
      expect(await post.text()).toMatch(/ECONNRESET/);
    } finally {
      await o.close(100);
      target.close();
    }
  });
});

describe('observe among slow and idle clients', () => {
  it('closes a client that does not finish its request head within headerTimeoutMs', async () => {
    const { answer } = await raw(observer.listening[0]!.url, 'GET /api/scan/ok HTTP/1.1\r\nHost: x\r\n');
    expect(answer === '' || /^HTTP\/1\.1 408 /.test(answer)).toBe(true);
  });

  it('closes a client that sends nothing at all', async () => {
    const { answer } = await raw(observer.listening[0]!.url, '');
    expect(answer === '' || /^HTTP\/1\.1 408 /.test(answer)).toBe(true);
  });

  it('answers 408 to a client that does not finish its body within bodyTimeoutMs, trickling it', async () => {
    const u = new URL(observer.listening[0]!.url);
    const s: Socket = connect(Number(u.port), u.hostname);
    let answer = '';
    s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    s.on('error', () => undefined);
    // one byte every 200 ms keeps the connection from being idle, never ends the body
    s.write('POST /api/scan/never HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n');
    const trickle = setInterval(() => s.writable && s.write('a'), 200);
    const closed = await waitFor('the connection closed', () => (s.destroyed || s.readableEnded ? true : undefined), 20_000);
    clearInterval(trickle);
    s.destroy();
    expect(closed).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(notJudged.some((n) => /did not send its whole request in time/.test(n))).toBe(true);
  });

  it('holds at most maxConnections client connections, and closes the idle ones', async () => {
    const u = new URL(observer.listening[0]!.url);
    const sockets: Socket[] = [];
    let closed = 0;
    for (let i = 0; i < 60; i++) {
      const s = connect(Number(u.port), u.hostname);
      s.on('error', () => undefined);
      s.on('close', () => closed++);
      // read what comes (a 408), so that the proxy's end of the connection is seen
      s.resume();
      sockets.push(s);
    }
    await waitFor('every connection accepted or refused', () => (observer.connections() >= 20 || closed >= 40 ? true : undefined));
    expect(observer.connections()).toBeLessThanOrEqual(20);
    // the refused ones are closed at once, the accepted ones once idle (or past the head's bound): all of them
    await waitFor('every connection closed by the proxy', () => (closed === 60 ? true : undefined), 30_000);
    // the proxy counts a connection gone when its own end has closed, which may come a turn after the client's
    await waitFor('the proxy holding no connection', () => (observer.connections() === 0 ? true : undefined), 10_000);
    expect(observer.connections()).toBe(0);
    expect(notJudged.some((n) => /beyond the 20 open at once/.test(n))).toBe(true);
    for (const s of sockets) s.destroy();
  });

  it('closes a connection whose client stops reading an endless answer, once nothing moved for idleTimeoutMs', async () => {
    const endless: Server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', () => r()));
    const o = await startObserver({
      targets: { scan: { url: `http://127.0.0.1:${(endless.address() as AddressInfo).port}` } },
      listeners: [{ api: 'scan', host: '127.0.0.1', port: 0 }],
      maxBodyBytes: 1024,
      onExchange: () => undefined,
      idleTimeoutMs: 500,
      headerTimeoutMs: 500,
    });
    const u = new URL(o.listening[0]!.url);
    const s = connect(Number(u.port), u.hostname);
    s.on('error', () => undefined);
    try {
      // the request is sent, and the answer never read
      s.write('GET /v0/endless HTTP/1.1\r\nHost: x\r\n\r\n');
      s.pause();
      await waitFor('the connection open', () => (o.connections() === 1 ? true : undefined));
      await waitFor('the stalled connection closed by the proxy', () => (o.connections() === 0 && o.inFlight() === 0 ? true : undefined), 20_000);
    } finally {
      s.destroy();
      await o.close(100);
      endless.close();
    }
  });

  it('keeps a connection that waits for a slow answer of the target open past idleTimeoutMs', async () => {
    const slow: Server = createHttpServer((_req, res) => setTimeout(() => res.end('late'), 1600));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', () => r()));
    const o = await startObserver({
      targets: { scan: { url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}` } },
      listeners: [{ api: 'scan', host: '127.0.0.1', port: 0 }],
      maxBodyBytes: 1024,
      onExchange: () => undefined,
      idleTimeoutMs: 500,
      headerTimeoutMs: 500,
    });
    try {
      const r = await fetch(`${o.listening[0]!.url}/v0/slow`);
      expect(r.status).toBe(200);
      expect(await r.text()).toBe('late');
    } finally {
      await o.close(100);
      slow.close();
    }
  });
});
