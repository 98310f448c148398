/**
 * The observing reverse proxy: it forwards every request and response unchanged and streaming (bodies of any size,
 * headers as sent, in their order and case, but for the hop-by-hop ones and Host, which names the target), and hands
 * each finished exchange to a callback on the side, after the response has gone to the client. It never sends a request
 * of its own. What it keeps of a body for judging is capped per exchange (run.maxResponseBytes) and across the exchanges
 * in flight; a body beyond the cap is still forwarded whole, and is not judged.
 *
 * A listener serves one interface (its URL stands for the interface's base URL: GET /v2/version on the ledger listener
 * goes to <ledger url>/v2/version), or every configured interface on one port by their base paths (GET
 * /api/scan/v0/ans-entries goes to the scan target, as if the client spoke to it). Upgraded connections (WebSocket)
 * are tunnelled as they are, and not judged.
 *
 * Whatever the target answers, the client gets an answer and the proxy goes on: a status outside 100-599, a head
 * Node cannot forward, a 101 to a request that asked for no upgrade, a head or body that does not parse are answered
 * 502 with the cause (and recorded as no answer). CONNECT is refused with 405: observe is no forward proxy. Clients
 * are bounded: a request's head within headerTimeoutMs, the whole request within bodyTimeoutMs, a connection idle
 * (nothing sent or received, no answer awaited) for idleTimeoutMs is closed, and at most maxConnections are open per
 * listener.
 */
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { Api } from '../types.js';
import { interfaceBases, under, type InterfaceBase } from './match.js';
import type { ObservedExchange } from './passive.js';
import { nodeTlsOptions, type TlsSettings } from '../transport/tls.js';

export interface ListenSpec {
  /** the interface this listener serves; undefined: every configured one, by base path */
  api?: Api;
  host: string;
  port: number;
}

export interface ObserverOptions {
  /** the targets, with their TLS settings (targets.<api>.tls: CA, client certificate), used for the upstream connections */
  targets: Partial<Record<Api, { url: string; tls?: TlsSettings }>>;
  listeners: ListenSpec[];
  /** the most bytes of one response body kept for judging (run.maxResponseBytes) */
  maxBodyBytes: number;
  /** the most bytes kept for judging across every exchange in flight (default 4 x maxBodyBytes, at least 64 MiB) */
  maxKeptBytes?: number;
  /** the largest request or response head accepted (run.maxHeaderBytes) */
  maxHeaderBytes?: number;
  onExchange: (x: ObservedExchange) => void;
  /** an exchange forwarded but not judged (an upgraded connection, a path no interface serves), with why */
  onNotJudged?: (reason: string) => void;
  /** a client must send a request's head within this (default 30 s) */
  headerTimeoutMs?: number;
  /** a client must send a whole request within this (default 300 s) */
  bodyTimeoutMs?: number;
  /** a client connection with nothing sent or received for this long, and no answer awaited, is closed (default 60 s) */
  idleTimeoutMs?: number;
  /** the most client connections open at once per listener (default 1000) */
  maxConnections?: number;
}

export const OBSERVE_DEFAULTS = { headerTimeoutMs: 30_000, bodyTimeoutMs: 300_000, idleTimeoutMs: 60_000, maxConnections: 1000, stopGraceMs: 2000 } as const;

export interface Observer {
  /** each listener's URL, e.g. http://127.0.0.1:41234, with the interface it serves (none: all of them) */
  listening: Array<{ api?: Api; url: string }>;
  /** exchanges whose response has not ended yet */
  inFlight(): number;
  /** client connections open now, all listeners together */
  connections(): number;
  /**
   * Stops accepting, lets the exchanges in flight end within `graceMs` (sooner once `cut` is aborted: a further
   * signal), then closes what is left.
   */
  close(graceMs?: number, cut?: AbortSignal): Promise<void>;
}

const CONNECT_REFUSED = 'canton-conformance observe: CONNECT is not served (observe is a reverse proxy in front of the configured targets)\n';

/** RFC 9110 7.6.1: the hop-by-hop fields, never forwarded (with those the Connection field names). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authorization']);

/** A raw header list (name, value, name, value, ...) without the hop-by-hop fields; Host replaced by `host` when given. */
export function endToEnd(raw: readonly string[], host?: string): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  }
  const out: string[] = [];
  let hostSet = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    if (host !== undefined && lower === 'host') {
      if (!hostSet) out.push(name, host);
      hostSet = true;
      continue;
    }
    out.push(name, raw[i + 1]!);
  }
  if (host !== undefined && !hostSet) out.unshift('Host', host);
  return out;
}

/** Headers as the judge reads them: lower-case names, repeated ones joined with ", ". */
function headerRecord(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    out[name] = out[name] !== undefined ? `${out[name]}, ${raw[i + 1]!}` : raw[i + 1]!;
  }
  return out;
}

const TEXTUAL = /json|text|xml|x-www-form-urlencoded/i;
/** methods whose request, sent without a body on a kept-alive connection the target had just closed, is sent again */
const RESENDABLE = new Set(['GET', 'HEAD', 'OPTIONS']);
/** what a record keeps of a request body: 8 KiB and the room its redaction needs */
const KEEP_REQUEST_BYTES = 12 * 1024;

interface Upstream {
  base: InterfaceBase;
  https: boolean;
  hostname: string;
  port: number;
  host: string;
  agent: HttpAgent;
  /** the target's TLS options (node:tls's names), for its upgraded connections too */
  tls: Record<string, unknown>;
}

export async function startObserver(o: ObserverOptions): Promise<Observer> {
  const bases = interfaceBases(o.targets);
  if (bases.length === 0) throw new Error('observe needs at least one configured target');
  const agents = { http: new HttpAgent({ keepAlive: true, scheduling: 'lifo' }), https: new HttpsAgent({ keepAlive: true, scheduling: 'lifo' }) };
  const upstreams = new Map<Api, Upstream>();
  /** an https target with TLS settings of its own has its own pool: its CA, its client certificate */
  const ownAgents: HttpAgent[] = [];
  for (const b of bases) {
    const u = new URL(o.targets[b.api]!.url);
    const https = u.protocol === 'https:';
    const tls = https ? nodeTlsOptions(o.targets[b.api]!.tls) : {};
    let agent: HttpAgent = https ? agents.https : agents.http;
    if (Object.keys(tls).length > 0) ownAgents.push((agent = new HttpsAgent({ keepAlive: true, scheduling: 'lifo', ...tls })));
    upstreams.set(b.api, { base: b, https, hostname: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || (https ? 443 : 80)), host: u.host, agent, tls });
  }
  const maxKept = o.maxKeptBytes ?? Math.max(64 * 1024 * 1024, 4 * o.maxBodyBytes);
  /** per client connection, its exchanges awaiting the head of the target's answer: such a connection is not idle */
  const busySockets = new WeakMap<object, number>();
  let keptBytes = 0;
  let inFlight = 0;
  const notJudged = (reason: string) => o.onNotJudged?.(reason);

  /** Where a request goes: its interface's target, the path sent there and the path relative to the interface's base. */
  const route = (listenerApi: Api | undefined, rawUrl: string): { up: Upstream; upstreamPath: string; relPath: string } | undefined => {
    const q = rawUrl.indexOf('?');
    const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
    if (listenerApi !== undefined) {
      const up = upstreams.get(listenerApi)!;
      return { up, upstreamPath: `${up.base.path}${rawUrl.startsWith('/') ? '' : '/'}${rawUrl}`, relPath: rawPath.startsWith('/') ? rawPath : `/${rawPath}` };
    }
    for (const b of bases) {
      if (under(rawPath, b.path)) return { up: upstreams.get(b.api)!, upstreamPath: rawUrl, relPath: rawPath.slice(b.path.length) || '/' };
    }
    return undefined;
  };

  const handle = (listenerApi: Api | undefined) => (req: IncomingMessage, res: ServerResponse) => {
    res.sendDate = false;
    // a client that went away: its response's errors are its own, never the proxy's end
    res.on('error', () => undefined);
    const r = route(listenerApi, req.url ?? '/');
    if (r === undefined) {
      notJudged('a path no configured interface serves (answered 502 by observe, not forwarded)');
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`canton-conformance observe: no configured interface serves ${req.url ?? '/'}\n`);
      return;
    }
    inFlight++;
    const startedAt = new Date().toISOString();
    const t0 = performance.now();
    const method = req.method ?? 'GET';
    const reqHeaders = headerRecord(req.rawHeaders);
    const textualRequest = TEXTUAL.test(reqHeaders['content-type'] ?? '');
    const reqChunks: Buffer[] = [];
    let reqKept = 0;
    let reqSize = 0;
    req.on('data', (chunk: Buffer) => {
      reqSize += chunk.length;
      if (textualRequest && reqKept < KEEP_REQUEST_BYTES) {
        const part = chunk.subarray(0, KEEP_REQUEST_BYTES - reqKept);
        reqChunks.push(Buffer.from(part));
        reqKept += part.length;
      }
    });
    const requestBody = (): string | undefined => (reqSize === 0 ? undefined : textualRequest ? Buffer.concat(reqChunks).toString('utf8') : `<${reqSize} bytes of ${reqHeaders['content-type'] ?? 'binary data'}>`);
    const { up } = r;
    const observed = (rest: Partial<ObservedExchange>): ObservedExchange => {
      const body = requestBody();
      return {
        api: up.base.api,
        method,
        url: `${up.base.origin}${r.upstreamPath}`,
        path: r.relPath,
        requestHeaders: reqHeaders,
        ...(body !== undefined ? { requestBody: body, requestBodyComplete: textualRequest && reqKept === reqSize } : {}),
        startedAt,
        durationMs: Math.round((performance.now() - t0) * 10) / 10,
        ...rest,
      };
    };
    let done = false;
    const finish = (x: ObservedExchange | undefined, release: number) => {
      if (done) return;
      done = true;
      inFlight--;
      // judged after the response went out, off the path of the exchanges still in flight
      setImmediate(() => {
        keptBytes -= release;
        if (x !== undefined) o.onExchange(x);
      });
    };
    /** the target's answer cannot be forwarded: the client gets a 502 naming why, the exchange is recorded as no answer */
    const refuse = (why: string) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end(`canton-conformance observe: ${why}\n`);
      } else res.destroy();
      finish(observed({ error: why }), 0);
    };
    // waiting for the target's answer (its head): not idle, however long the target takes
    busySockets.set(req.socket, (busySockets.get(req.socket) ?? 0) + 1);
    let waiting = true;
    const answered = () => {
      if (!waiting) return;
      waiting = false;
      busySockets.set(req.socket, Math.max(0, (busySockets.get(req.socket) ?? 1) - 1));
    };
    res.on('close', answered);
    const bodiless = RESENDABLE.has(method.toUpperCase()) && req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
    const send = (again: boolean) => {
      const upstream = (up.https ? httpsRequest : httpRequest)({
        hostname: up.hostname,
        port: up.port,
        method,
        path: r.upstreamPath,
        headers: endToEnd(req.rawHeaders, up.host),
        setHost: false,
        agent: up.agent,
        ...(o.maxHeaderBytes !== undefined ? { maxHeaderSize: o.maxHeaderBytes } : {}),
      });
      upstream.on('upgrade', (ures, socket) => {
        socket.destroy();
        ures.destroy();
        refuse(`the target answered ${ures.statusCode ?? 101} (switching protocols) to a request that asked for no upgrade: not forwarded`);
      });
      upstream.on('response', (ures) => {
        const status = ures.statusCode ?? 0;
        if (!Number.isInteger(status) || status < 100 || status > 599) {
          ures.destroy();
          refuse(`the target answered with status ${String(ures.statusCode).padStart(3, '0')}, outside 100-599: not forwarded`);
          return;
        }
        // from here on, a connection on which nothing moves (a client that stops reading, a target that stops sending) is idle
        answered();
        try {
          res.writeHead(status, ures.statusMessage, endToEnd(ures.rawHeaders));
        } catch (e) {
          ures.destroy();
          // a header or reason phrase HTTP does not allow in an answer (a control character, an invalid name)
          refuse(`the target's answer (status ${status}) has a head that cannot be forwarded (${(e as { code?: string }).code ?? (e as Error).message}): not forwarded`);
          return;
        }
        const chunks: Buffer[] = [];
        let kept = 0;
        let size = 0;
        let tooLarge: string | undefined;
        ures.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (tooLarge !== undefined) return;
          if (kept + chunk.length > o.maxBodyBytes) tooLarge = `body larger than ${o.maxBodyBytes} bytes (run.maxResponseBytes)`;
          else if (keptBytes + chunk.length > maxKept) tooLarge = `the bodies in flight already held the ${maxKept} bytes kept for judging at once`;
          if (tooLarge !== undefined) {
            keptBytes -= kept;
            kept = 0;
            chunks.length = 0;
            return;
          }
          chunks.push(chunk);
          kept += chunk.length;
          keptBytes += chunk.length;
        });
        ures.pipe(res);
        ures.on('end', () => {
          if (ures.trailers !== undefined && Object.keys(ures.trailers).length > 0) {
            // pipe ends the response on the same event: trailers are sent only where the response is chunked
            notJudged('trailers of a response (not forwarded)');
          }
          const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, kept);
          finish(observed({ status, responseHeaders: headerRecord(ures.rawHeaders), ...(tooLarge !== undefined ? { bodyNotJudged: tooLarge } : { body }) }), kept);
        });
        ures.on('error', () => {
          res.destroy();
          finish(observed({ error: `the response body was cut off before its end (${size} bytes received)` }), kept);
        });
        ures.on('aborted', () => {
          res.destroy();
          finish(observed({ error: `the response body was cut off before its end (${size} bytes received)` }), kept);
        });
        res.on('close', () => {
          if (!res.writableFinished) {
            finish(observed({ error: 'the client closed the connection before the response ended' }), kept);
            ures.destroy();
          }
        });
      });
      upstream.on('error', (e: Error & { code?: string }) => {
        if (done) return;
        // a kept-alive connection the target closed just as this request went out: a request without a body that
        // changes nothing is sent once more, on a new connection
        if (!again && bodiless && upstream.reusedSocket && !res.headersSent && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) {
          send(true);
          return;
        }
        const cause = e.code?.startsWith('HPE_') === true ? `its answer does not parse as HTTP (${e.code})` : `it could not be reached (${e.code ?? e.message})`;
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(`canton-conformance observe: the target failed: ${cause}\n`);
        } else res.destroy();
        finish(observed({ error: `the target failed: ${cause}` }), 0);
      });
      req.on('error', () => upstream.destroy());
      res.on('close', () => {
        if (!res.headersSent) {
          upstream.destroy();
          finish(observed({ error: 'the client closed the connection before the answer' }), 0);
        }
      });
      if (again) upstream.end();
      else req.pipe(upstream);
    };
    send(false);
  };

  const tunnel = (listenerApi: Api | undefined) => (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const r = route(listenerApi, req.url ?? '/');
    if (r === undefined) {
      socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    notJudged('an upgraded connection (WebSocket): tunnelled, not judged');
    const { up } = r;
    const target: Socket = up.https ? tlsConnect({ host: up.hostname, port: up.port, servername: up.hostname, ...up.tls }) : netConnect({ host: up.hostname, port: up.port });
    target.once(up.https ? 'secureConnect' : 'connect', () => {
      const lines = [`${req.method ?? 'GET'} ${r.upstreamPath} HTTP/1.1`];
      // an upgrade carries its Connection and Upgrade fields on: they are the request
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]!}: ${req.rawHeaders[i]!.toLowerCase() === 'host' ? up.host : req.rawHeaders[i + 1]!}`);
      target.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) target.write(head);
      socket.pipe(target);
      target.pipe(socket);
    });
    const end = () => {
      target.destroy();
      socket.destroy();
    };
    target.on('error', end);
    socket.on('error', end);
  };

  const servers: Server[] = [];
  const listening: Observer['listening'] = [];
  const bodyTimeoutMs = o.bodyTimeoutMs ?? OBSERVE_DEFAULTS.bodyTimeoutMs;
  // Node wants a head's bound within the whole request's
  const headerTimeoutMs = Math.min(o.headerTimeoutMs ?? OBSERVE_DEFAULTS.headerTimeoutMs, bodyTimeoutMs);
  const idleTimeoutMs = o.idleTimeoutMs ?? OBSERVE_DEFAULTS.idleTimeoutMs;
  try {
    for (const l of o.listeners) {
      if (l.api !== undefined && !upstreams.has(l.api)) throw new Error(`--${l.api}-listen: no ${l.api} target is configured`);
      const server = createServer(
        {
          ...(o.maxHeaderBytes !== undefined ? { maxHeaderSize: o.maxHeaderBytes } : {}),
          headersTimeout: headerTimeoutMs,
          requestTimeout: bodyTimeoutMs,
          // how often Node looks for requests past these bounds
          connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(headerTimeoutMs / 4))),
        },
        handle(l.api),
      );
      server.on('upgrade', tunnel(l.api));
      server.on('connect', (req: IncomingMessage, socket: Duplex) => {
        notJudged('a CONNECT request (refused with 405: observe is a reverse proxy, not a forward proxy)');
        socket.on('error', () => undefined);
        socket.end(`HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${CONNECT_REFUSED.length}\r\nConnection: close\r\n\r\n${CONNECT_REFUSED}`);
      });
      server.maxConnections = o.maxConnections ?? OBSERVE_DEFAULTS.maxConnections;
      server.on('drop', () => notJudged(`a client connection beyond the ${server.maxConnections} open at once (observe.maxConnections): closed unanswered`));
      // idle: nothing sent or received for idleTimeoutMs on a connection that awaits no answer of the target
      server.timeout = idleTimeoutMs;
      server.on('timeout', (socket: Socket) => {
        if ((busySockets.get(socket) ?? 0) > 0) return;
        socket.destroy();
      });
      server.on('clientError', (e: Error & { code?: string }, socket: Duplex) => {
        // a head that does not parse, or a request past its bounds: answered as Node does, counted
        const timedOut = e.code === 'ERR_HTTP_REQUEST_TIMEOUT';
        // a connection reset or broken by the client: nothing to answer
        if (!timedOut && e.code?.startsWith('HPE_') !== true) return socket.destroy();
        if (timedOut) notJudged('a client that did not send its whole request in time (observe.headerTimeoutMs, observe.bodyTimeoutMs): answered 408');
        else notJudged(`a request that does not parse as HTTP (${e.code}): answered ${e.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400}`);
        if (!socket.writable || (socket as Socket).destroyed) return socket.destroy();
        const status = e.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : e.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
        socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(l.port, l.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      servers.push(server);
      const a = server.address() as AddressInfo;
      const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
      listening.push({ ...(l.api !== undefined ? { api: l.api } : {}), url: `http://${host}:${a.port}` });
    }
  } catch (e) {
    for (const s of servers) s.close();
    throw e;
  }
  return {
    listening,
    inFlight: () => inFlight,
    connections: () => servers.reduce((n, s) => n + ((s as unknown as { _connections?: number })._connections ?? 0), 0),
    close: async (graceMs = OBSERVE_DEFAULTS.stopGraceMs, cut?: AbortSignal) => {
      const closed = Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      for (const s of servers) s.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < deadline && cut?.aborted !== true) await new Promise((r) => setTimeout(r, 20));
      for (const s of servers) s.closeAllConnections();
      await closed;
      agents.http.destroy();
      agents.https.destroy();
      for (const a of ownAgents) a.destroy();
      // the exchanges that ended last are judged on the next turn
      await new Promise((r) => setImmediate(r));
    },
  };
}
