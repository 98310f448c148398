/**
 * A fault-injecting loopback proxy for the robustness tests: plain Node `http` and `net`. It forwards
 * each request to an upstream (the embedded reference server), then answers with the upstream's response damaged by
 * one fault class, on every response or on every n-th. Framing faults are written as raw bytes on the socket, so the
 * client sees exactly what a broken server or gateway sends.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

export const FAULT_CLASSES = [
  'none',
  'refused',
  'reset-mid-body',
  'stall-after-accept',
  'headers-then-stall',
  'slow-drip',
  'huge-body',
  'gzip-bomb',
  'deep-nesting',
  'truncated-json',
  'html-200',
  'html-502',
  'retry-after-429',
  'unavailable-503',
  'redirect-loop',
  'cross-origin-redirect',
  'bad-chunked',
  'duplicate-content-length',
  // answers that decide nothing, and answers lost after the target carried the request out
  /** the request reaches the target; its answer never comes back (the connection is closed, no response) */
  'lost-answer',
  /** 429 and 503 in turn, with a JSON body in the Splice error form ({error}): a rate limiter that keeps the form */
  'overload-json',
  /** 401 to every request, as an authenticating gateway answers a token it does not take (Envoy's text) */
  'gateway-401',
  /** one status (option `status`: 429, 503, 502 or 504) instead of the target's answer, in the form a proxy sends it */
  'status',
  /** 200 to every request, with the target's body cut in half but framed whole (Content-Length of the half) */
  'cut-json-200',
  /** 200 to every request, declared JSON, the target's body behind an anti-hijacking prefix `)]}'` */
  'not-json-200',
  /** the target's JSON object bodies with a field holding a byte that is not UTF-8 (Latin-1 'caf\xe9') */
  'invalid-utf8',
  /** the target's JSON object bodies with a field holding the number 1e400 (beyond a double's range) */
  'huge-number',
] as const;
export type FaultClass = (typeof FAULT_CLASSES)[number];

export interface FaultProxy {
  /** the proxy's origin, e.g. http://127.0.0.1:41234 (for `refused`, a port nothing listens on) */
  url: string;
  /** requests the proxy received, how many of them `match` selected (all without it), and how many it damaged */
  counts: { requests: number; matched: number; faulted: number };
  close(): Promise<void>;
}

interface Upstream {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** How long a huge body streams at most (it stops earlier when the client closes the connection). */
const HUGE_BODY_BYTES = 512 * 1024 * 1024;
const DRIP_INTERVAL_MS = 100;
let zerosGzip: Buffer | undefined;
/** About 64 KB on the wire, 64 MB of zeros decoded (made once, before a proxy starts: it takes the CPU a while). */
const gzipBomb = () => (zerosGzip ??= gzipSync(Buffer.alloc(64 * 1024 * 1024)));

/** The classes that damage the upstream's own answer; the others answer without asking it. */
const NEEDS_UPSTREAM: ReadonlySet<FaultClass> = new Set(['none', 'reset-mid-body', 'truncated-json', 'duplicate-content-length', 'lost-answer', 'cut-json-200', 'not-json-200', 'invalid-utf8', 'huge-number']);

export interface FaultOptions {
  /** damage every n-th of the requests `match` selects (default 1: every one) */
  every?: number;
  /** the origin a cross-origin redirect points at */
  elsewhere?: string;
  /** only requests for which this holds are damaged (their path without the query); default: all */
  match?: (method: string, path: string) => boolean;
  /** damage at most this many requests, the first ones selected; default: no limit */
  times?: number;
  /** the status of the `status` class */
  status?: number;
}

export async function forward(upstream: string, req: IncomingMessage, body: Buffer): Promise<Upstream> {
  const target = new URL(req.url ?? '/', upstream);
  const headers = { ...req.headers, host: target.host };
  delete headers['accept-encoding'];
  return await new Promise<Upstream>((resolve, reject) => {
    const r = httpRequest(target, { method: req.method, headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error('upstream timed out')));
    r.on('error', reject);
    r.end(body);
  });
}

/** A raw HTTP/1.1 response head; `lines` are written as given (duplicates included). */
function head(status: number, reason: string, lines: string[]): string {
  return `HTTP/1.1 ${status} ${reason}\r\n${[...lines, 'connection: close'].join('\r\n')}\r\n\r\n`;
}

/**
 * Starts a proxy in front of `upstream` that damages every `every`-th response (1: every one) with `fault`, of the
 * requests `match` selects, at most `times` of them.
 */
export async function startFaultProxy(upstream: string, fault: FaultClass, o: FaultOptions = {}): Promise<FaultProxy> {
  const counts = { requests: 0, matched: 0, faulted: 0 };
  if (fault === 'refused') {
    // a port that was free a moment ago: nothing listens there, every connection is refused
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const { port } = s.address() as AddressInfo;
    await new Promise<void>((r) => s.close(() => r()));
    return { url: `http://127.0.0.1:${port}`, counts, close: async () => undefined };
  }
  if (fault === 'gzip-bomb') gzipBomb();
  const every = o.every ?? 1;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, f: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      f();
    }, ms);
    timers.add(t);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      counts.requests++;
      const selected = fault !== 'none' && (o.match === undefined || o.match(req.method ?? 'GET', (req.url ?? '/').split('?')[0]!));
      if (selected) counts.matched++;
      const damage = selected && counts.matched % every === 0 && (o.times === undefined || counts.faulted < o.times);
      if (damage) counts.faulted++;
      if (damage && fault === 'stall-after-accept') return; // the request was read; nothing is ever answered
      const n = counts.faulted;
      const damaged = (up: Upstream) => answerWithFault(fault, req, res, up, { elsewhere: o.elsewhere ?? upstream, later, n, status: o.status });
      if (damage && !NEEDS_UPSTREAM.has(fault)) return damaged({ status: 200, headers: {}, body: Buffer.alloc(0) });
      forward(upstream, req, Buffer.concat(chunks)).then((up) => (damage ? damaged(up) : answer(res, up)), () => res.destroy());
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export function answer(res: ServerResponse, up: Upstream): void {
  const headers = { ...up.headers };
  delete headers['transfer-encoding'];
  delete headers.connection;
  delete headers['keep-alive'];
  headers['content-length'] = String(up.body.length);
  res.writeHead(up.status, headers);
  res.end(up.body);
}

/** A JSON object body with `field` (raw JSON text, or raw bytes) inserted first; other bodies unchanged. */
function withField(body: Buffer, field: Buffer): Buffer {
  const text = body.toString('utf8');
  const open = text.indexOf('{');
  if (open < 0 || text.slice(0, open).trim() !== '') return body;
  const empty = text.slice(open + 1).trim().startsWith('}');
  const at = Buffer.byteLength(text.slice(0, open + 1));
  return Buffer.concat([body.subarray(0, at), field, Buffer.from(empty ? '' : ','), body.subarray(at)]);
}

const isJsonType = (ct: string | undefined) => ct !== undefined && /^application\/([a-z.+-]*\+)?json\b/i.test(ct);

const STATUS_PAGES: Record<number, { type: string; body: string }> = {
  429: { type: 'text/plain', body: 'Too Many Requests' },
  503: { type: 'text/html', body: '<html><body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>' },
  502: { type: 'text/html', body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>' },
  504: { type: 'text/html', body: '<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>' },
};

function answerWithFault(
  fault: FaultClass,
  req: IncomingMessage,
  res: ServerResponse,
  up: Upstream,
  o: { elsewhere: string; later: (ms: number, f: () => void) => void; n: number; status: number | undefined },
): void {
  const { elsewhere, later } = o;
  const socket = res.socket as Socket;
  const ct = up.headers['content-type'] ?? 'application/json';
  const json = (status: number, body: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...extra });
    res.end(body);
  };
  switch (fault) {
    case 'reset-mid-body': {
      // the head promises the whole body; half of it comes, then a TCP reset
      const body = up.body.length > 1 ? up.body : Buffer.from('{"padding":"................"}');
      socket.write(head(up.status, 'OK', [`content-type: ${ct}`, `content-length: ${body.length}`]));
      socket.write(body.subarray(0, Math.floor(body.length / 2)));
      later(20, () => socket.resetAndDestroy());
      return;
    }
    case 'headers-then-stall':
      socket.write(head(200, 'OK', ['content-type: application/json', 'content-length: 1000']));
      return; // no body ever comes
    case 'slow-drip': {
      // a valid head, then one byte of an endless JSON string every DRIP_INTERVAL_MS: always busy, never done
      socket.write(head(200, 'OK', ['content-type: application/json', 'transfer-encoding: chunked']));
      socket.write('1\r\n[\r\n');
      const drip = () => {
        if (socket.destroyed) return;
        socket.write('1\r\n \r\n');
        later(DRIP_INTERVAL_MS, drip);
      };
      later(DRIP_INTERVAL_MS, drip);
      return;
    }
    case 'huge-body': {
      // a JSON string of HUGE_BODY_BYTES, streamed as fast as the client reads it
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(HUGE_BODY_BYTES + 4) });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      res.write('{"a":"');
      const pump = () => {
        while (sent < HUGE_BODY_BYTES - 2 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end('"}');
      };
      pump();
      return;
    }
    case 'gzip-bomb':
      res.writeHead(up.status, { 'content-type': 'application/json', 'content-encoding': 'gzip', connection: 'close' });
      res.end(gzipBomb());
      return;
    case 'deep-nesting':
      return json(200, '['.repeat(300_000) + ']'.repeat(300_000));
    case 'truncated-json': {
      // the head promises the whole JSON body; half of it comes, then the connection is closed cleanly (a FIN, no reset)
      const body = up.body.length > 1 ? up.body : Buffer.from('{"entries":[{"id":"x"}]}');
      socket.write(head(up.status, 'OK', ['content-type: application/json', `content-length: ${body.length}`]));
      socket.end(body.subarray(0, Math.floor(body.length / 2)));
      return;
    }
    case 'html-200':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
      return void res.end('<!DOCTYPE html><html><head><title>Error</title></head><body><h1>Something went wrong</h1><p>Please try again later.</p></body></html>');
    case 'html-502':
      res.writeHead(502, { 'content-type': 'text/html', connection: 'close' });
      return void res.end('<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>');
    // as a rate limiter or load balancer in front of the target sends them (a JSON body of 429 or 503 is judged against
    // the error schema the operation documents for it: harness/judging/checks.ts)
    case 'retry-after-429':
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1', connection: 'close' });
      return void res.end('Too Many Requests: rate limit exceeded');
    case 'unavailable-503':
      res.writeHead(503, { 'content-type': 'text/html', connection: 'close' });
      return void res.end('<html><head><title>503 Service Temporarily Unavailable</title></head><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
    case 'redirect-loop':
      return json(302, '{}', { location: req.url ?? '/' });
    case 'cross-origin-redirect':
      return json(307, '{}', { location: `${elsewhere.replace(/\/+$/, '')}${req.url ?? '/'}` });
    case 'bad-chunked':
      // a chunk size that is not hexadecimal
      socket.write(head(200, 'OK', ['content-type: application/json', 'transfer-encoding: chunked']));
      socket.write('zz\r\n{"a":1}\r\n0\r\n\r\n');
      later(20, () => socket.destroy());
      return;
    case 'duplicate-content-length': {
      const body = up.body.length > 0 ? up.body : Buffer.from('{}');
      socket.write(head(up.status, 'OK', [`content-type: ${ct}`, `content-length: ${body.length}`, `content-length: ${body.length + 7}`]));
      socket.write(body);
      later(20, () => socket.destroy());
      return;
    }
    case 'lost-answer':
      // the target carried the request out; its answer is dropped with the connection
      return void socket.destroy();
    case 'overload-json':
      return o.n % 2 === 1
        ? json(429, JSON.stringify({ error: 'rate limit exceeded, retry later' }), { 'retry-after': '0' })
        : json(503, JSON.stringify({ error: 'service unavailable' }));
    case 'gateway-401':
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="gateway", error="invalid_token"', connection: 'close' });
      return void res.end('Jwt verification fails');
    case 'status': {
      const status = o.status ?? 503;
      const page = STATUS_PAGES[status] ?? { type: 'text/plain', body: `status ${status}` };
      res.writeHead(status, { 'content-type': page.type, connection: 'close' });
      return void res.end(page.body);
    }
    case 'cut-json-200': {
      const body = up.body.length > 1 ? up.body : Buffer.from('{"entries":[{"id":"x"}]}');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Math.floor(body.length / 2)), connection: 'close' });
      return void res.end(body.subarray(0, Math.floor(body.length / 2)));
    }
    case 'not-json-200':
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      return void res.end(Buffer.concat([Buffer.from(")]}',\n"), up.body]));
    case 'invalid-utf8':
    case 'huge-number': {
      if (!isJsonType(up.headers['content-type'])) return answer(res, up);
      // 0xE9 alone is Latin-1's é: a server that writes its text in Latin-1, not UTF-8
      const field = fault === 'invalid-utf8' ? Buffer.concat([Buffer.from('"note":"caf'), Buffer.from([0xe9]), Buffer.from('"')]) : Buffer.from('"amount":1e400');
      return answer(res, { ...up, body: withField(up.body, field) });
    }
    default:
      return answer(res, up);
  }
}
