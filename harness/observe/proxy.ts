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
 */
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { Api } from '../types.js';
import { interfaceBases, under, type InterfaceBase } from './match.js';
import type { ObservedExchange } from './passive.js';

export interface ListenSpec {
  /** the interface this listener serves; undefined: every configured one, by base path */
  api?: Api;
  host: string;
  port: number;
}

export interface ObserverOptions {
  targets: Partial<Record<Api, { url: string }>>;
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
}

export interface Observer {
  /** each listener's URL, e.g. http://127.0.0.1:41234, with the interface it serves (none: all of them) */
  listening: Array<{ api?: Api; url: string }>;
  /** exchanges whose response has not ended yet */
  inFlight(): number;
  /** Stops accepting, lets the exchanges in flight end within `graceMs`, then closes what is left. */
  close(graceMs?: number): Promise<void>;
}

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
/** what a record keeps of a request body: 8 KiB and the room its redaction needs */
const KEEP_REQUEST_BYTES = 12 * 1024;

interface Upstream {
  base: InterfaceBase;
  https: boolean;
  hostname: string;
  port: number;
  host: string;
  agent: HttpAgent;
}

export async function startObserver(o: ObserverOptions): Promise<Observer> {
  const bases = interfaceBases(o.targets);
  if (bases.length === 0) throw new Error('observe needs at least one configured target');
  const agents = { http: new HttpAgent({ keepAlive: true, scheduling: 'lifo' }), https: new HttpsAgent({ keepAlive: true, scheduling: 'lifo' }) };
  const upstreams = new Map<Api, Upstream>();
  for (const b of bases) {
    const u = new URL(o.targets[b.api]!.url);
    const https = u.protocol === 'https:';
    upstreams.set(b.api, { base: b, https, hostname: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || (https ? 443 : 80)), host: u.host, agent: https ? agents.https : agents.http });
  }
  const maxKept = o.maxKeptBytes ?? Math.max(64 * 1024 * 1024, 4 * o.maxBodyBytes);
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
        ...(body !== undefined ? { requestBody: body } : {}),
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
    upstream.on('response', (ures) => {
      const status = ures.statusCode ?? 502;
      res.writeHead(status, ures.statusMessage, endToEnd(ures.rawHeaders));
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
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`canton-conformance observe: the target could not be reached (${e.code ?? e.message})\n`);
      } else res.destroy();
      finish(observed({ error: `the target could not be reached: ${e.code ?? e.message}` }), 0);
    });
    req.on('error', () => upstream.destroy());
    res.on('close', () => {
      if (!res.headersSent) {
        upstream.destroy();
        finish(observed({ error: 'the client closed the connection before the answer' }), 0);
      }
    });
    req.pipe(upstream);
  };

  const tunnel = (listenerApi: Api | undefined) => (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const r = route(listenerApi, req.url ?? '/');
    if (r === undefined) {
      socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    notJudged('an upgraded connection (WebSocket): tunnelled, not judged');
    const { up } = r;
    const target: Socket = up.https ? tlsConnect({ host: up.hostname, port: up.port, servername: up.hostname }) : netConnect({ host: up.hostname, port: up.port });
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
  try {
    for (const l of o.listeners) {
      if (l.api !== undefined && !upstreams.has(l.api)) throw new Error(`--${l.api}-listen: no ${l.api} target is configured`);
      const server = createServer({ ...(o.maxHeaderBytes !== undefined ? { maxHeaderSize: o.maxHeaderBytes } : {}), requestTimeout: 0 }, handle(l.api));
      server.on('upgrade', tunnel(l.api));
      server.timeout = 0;
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
    close: async (graceMs = 2000) => {
      const closed = Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      for (const s of servers) s.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const s of servers) s.closeAllConnections();
      await closed;
      agents.http.destroy();
      agents.https.destroy();
      // the exchanges that ended last are judged on the next turn
      await new Promise((r) => setImmediate(r));
    },
  };
}
