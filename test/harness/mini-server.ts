import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tiny loopback target for the harness's own tests: its answer depends on the `mode` query parameter. */
export async function startMiniServer(): Promise<{ url: string; tokenRequests: () => number; close: () => Promise<void> }> {
  const hanging = new Set<import('node:http').ServerResponse>();
  let tokenRequests = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const mode = url.searchParams.get('mode');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/token' && req.method === 'POST') {
      // an OAuth2 token endpoint: client "broken" is refused, client "short-lived" gets a new token living 20 s at each
      // request, any other an opaque token living 300 s
      tokenRequests++;
      let form = '';
      req.on('data', (d: Buffer) => (form += d.toString()));
      req.on('end', () => {
        const client = new URLSearchParams(form).get('client_id');
        if (client === 'broken') json(500, { error: 'token service down' });
        else if (client === 'short-lived') json(200, { access_token: `short-lived-token-${tokenRequests}`, token_type: 'Bearer', expires_in: 20 });
        else json(200, { access_token: 'opaque-oauth-access-token-1234', token_type: 'Bearer', expires_in: 300 });
      });
      return;
    }
    if (url.pathname !== '/v0/items') return json(404, { error: 'not found' });
    switch (mode) {
      case 'ok':
        return json(200, { items: [{ id: 'a', round: 1, expires_at: null }], extra: 'allowed' });
      case 'bad':
        return json(200, { items: [{ id: 7 }] });
      case 'busy':
        return json(503, { error: 'overloaded' });
      case 'busy-retry':
        // overloaded for good, asking every time for a retry in a second
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        return res.end(JSON.stringify({ error: 'overloaded' }));
      case 'teapot':
        return json(418, { error: 'teapot' });
      case 'big':
        return json(200, { items: Array.from({ length: 5000 }, (_, i) => ({ id: `item-${i}`, round: i })) });
      case 'echo-headers': {
        // a target that echoes every request header, the request line and the request body into its response body
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString()));
        req.on('end', () => json(200, { items: [], headers: req.headers, url: req.url, ...(body !== '' ? { body } : {}), error: `request had ${JSON.stringify(req.headers)}` }));
        return;
      }
      case 'echo-headers-encoded': {
        // echoes the request headers encoded as targets do: every slash escaped (PHP's json_encode), slash, plus and
        // equals as \u escapes (upper-case hex), and percent-encoded (encodeURIComponent, and with lower-case hex)
        const raw = JSON.stringify(req.headers);
        const unicode = raw.replace(/[/+=]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`);
        const percent = encodeURIComponent(raw);
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(`{"items":[],"slashes":${raw.replace(/\//g, '\\/')},"unicode":${unicode},"percent":${JSON.stringify(percent)},"lower":${JSON.stringify(percent.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()))}}`);
      }
      case 'vendor-secret':
        // a credential of the target's own under a name no default rule knows (run.redactNames lists it)
        return json(200, { items: [], vendorNonce: 'vendor-nonce-9d2e-must-not-leak' });
      case 'echo-auth':
        return json(200, { items: [], seen: req.headers.authorization ?? null });
      case 'hang':
        hanging.add(res);
        return;
      default:
        return json(400, { error: 'unknown mode' });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    tokenRequests: () => tokenRequests,
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Sends a request received by a test's proxy on to `upstream` (an origin) and its answer back, as they are. */
export function forwardTo(upstream: URL, req: IncomingMessage, res: ServerResponse): void {
  const up = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  up.on('error', () => res.destroy());
  req.pipe(up);
}
