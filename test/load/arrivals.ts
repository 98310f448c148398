/**
 * A loopback target that only counts: each request's arrival time, answered 200 `{"items":[]}` at once, or, given an
 * upstream, forwarded there as it came (a counting proxy in front of a real target). The rate-limit tests read the
 * busiest window of arrivals from it, measured where a real target would count them.
 */
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ArrivalCounter {
  url: string;
  /** Date.now() of each request's arrival, in order */
  arrivals: number[];
  close(): Promise<void>;
}

/**
 * Counts arrivals on a free loopback port. `upstream` (an http:// origin on loopback): every request is forwarded there
 * (method, path and query, headers but Host, body) and its answer sent back as it came; an upstream that cannot be
 * reached is answered 502. Without it every request is answered 200 `{"items":[]}`.
 */
export async function arrivalCounter(options: { upstream?: string } = {}): Promise<ArrivalCounter> {
  const arrivals: number[] = [];
  const upstream = options.upstream !== undefined ? loopbackOrigin(options.upstream) : undefined;
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    arrivals.push(Date.now());
    if (upstream === undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items":[]}');
      return;
    }
    const headers = { ...req.headers, host: upstream.host };
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    out.on('error', (e) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`counting proxy: upstream ${upstream.origin} failed: ${e.message}`);
      } else res.destroy();
    });
    req.pipe(out);
    // a client that went away takes its upstream request with it
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The origin of a plain-HTTP loopback URL; anything else is refused (the counting proxy sends nothing off this machine). */
function loopbackOrigin(url: string): URL {
  const u = new URL(url);
  if (u.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) throw new Error(`counting proxy: upstream must be an http:// loopback URL, got ${url}`);
  return new URL(u.origin);
}

/** The most arrivals within any window of `ms` milliseconds. */
export function busiestWindow(arrivals: number[], ms: number): number {
  const a = [...arrivals].sort((x, y) => x - y);
  let most = 0;
  for (let i = 0, j = 0; i < a.length; i++) {
    while (a[i]! - a[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
