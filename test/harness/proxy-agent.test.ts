/**
 * Targets behind an HTTP proxy: a CONNECT proxy on loopback (a node:http server of the test) that tunnels, or refuses
 * with 403, or is not there; the `proxy` setting, and the HTTPS_PROXY / NO_PROXY variables (the proxy resolves the
 * target's name, so `ledger.test` reaches 127.0.0.1 through it and needs no DNS). Every request stays on loopback.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, TransportError } from '../../harness/transport/http.js';
import { TokenProvider } from '../../harness/transport/auth.js';
import { describeCertificateChain, proxyFor, type Transport } from '../../harness/transport/tls.js';
import { makePki, startTlsServer, type Pki, type TlsServer } from './tls-fixtures.js';
import { freePort } from '../robustness/harness.js';

let pki: Pki;
let target: TlsServer;
/** the same server's certificate, listening on 127.0.0.2: a loopback address the environment's proxy is not skipped for */
let second: TlsServer;
let proxy: Server;
let proxyUrl: string;
/** what the proxy was asked to CONNECT to */
const tunnels: string[] = [];
/** the proxy's answer to CONNECT instead of a tunnel: a status, or 'drop' (the connection closed without a word) */
let refuse: number | 'drop' | undefined;

beforeAll(async () => {
  pki = makePki();
  const opts = { cert: pki.read('server'), key: pki.read('serverKey') };
  target = await startTlsServer(opts, (req, res) => {
    if (req.url === '/token') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"tok-through-proxy","expires_in":300}');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"version":"3.4.0"}');
  });
  second = await startTlsServer(opts, undefined, '127.0.0.2');
  proxy = createServer((_req, res) => res.writeHead(400).end());
  proxy.on('connect', (req, socket, head) => {
    tunnels.push(req.url ?? '');
    if (refuse === 'drop') return void socket.destroy();
    if (refuse !== undefined) return void socket.end(`HTTP/1.1 ${refuse} Forbidden\r\nContent-Length: 0\r\n\r\n`);
    // every name is resolved here: ledger.test is this machine
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host === 'ledger.test' ? '127.0.0.1' : host!, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await Promise.all([target?.close(), second?.close()]);
  pki?.remove();
});

const ENV = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
afterEach(() => {
  tunnels.length = 0;
  refuse = undefined;
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});
const clearEnv = () => ENV.forEach((k) => delete process.env[k]);

/**
 * Each request gets a connection pool of its own (pools are kept per header bound, TLS settings and proxy, and a pool's
 * kept-alive tunnel would carry the next test's request without a new CONNECT): a header bound of its own.
 */
let pool = 0;
const fresh = () => 64 * 1024 + ++pool;
const send = (url: string, transport?: Transport) =>
  new HttpClient({ api: 'ledger', baseUrl: url, timeoutMs: 10_000, maxResponseBytes: 1 << 20, retries: 0, maxHeaderBytes: fresh(), ...(transport !== undefined ? { transport } : {}) }).send({ method: 'GET', path: '/v2/version' });

async function failure(url: string, transport?: Transport): Promise<string> {
  try {
    await send(url, transport);
  } catch (e) {
    expect(e).toBeInstanceOf(TransportError);
    return (e as Error).message;
  }
  throw new Error('expected the request to fail');
}


describe('the proxy setting', () => {
  it('tunnels to the target with CONNECT, TLS to the target inside the tunnel', async () => {
    clearEnv();
    const x = await send(`https://ledger.test:${target.port}`, { proxy: proxyUrl, tls: { ca: pki.read('ca') } });
    expect(x.status).toBe(200);
    expect(tunnels).toEqual([`ledger.test:${target.port}`]);
  });

  it('a proxy refusing CONNECT (403) is named, with its status and the setting', async () => {
    clearEnv();
    refuse = 403;
    const m = await failure(`https://ledger.test:${target.port}`, { proxy: proxyUrl, tls: { ca: pki.read('ca') } });
    expect(m).toMatch(/the proxy http:\/\/127\.0\.0\.1:\d+ \(targets\.ledger\.proxy\) refused to open a tunnel \(it answered 403 to CONNECT\)/);
    // undici reports the refusal as an abort: it must not read as a timeout
    expect(m).not.toMatch(/within/);
  });

  it('a proxy that closes the connection instead of answering CONNECT: an error, not a hang', async () => {
    clearEnv();
    refuse = 'drop';
    const m = await failure(`https://ledger.test:${target.port}`, { proxy: proxyUrl, tls: { ca: pki.read('ca') } });
    expect(m).toMatch(/the proxy http:\/\/127\.0\.0\.1:\d+ \(targets\.ledger\.proxy\)/);
  });

  it('a proxy that cannot be reached is named', async () => {
    clearEnv();
    const m = await failure(`https://ledger.test:${target.port}`, { proxy: `http://127.0.0.1:${await freePort()}`, tls: { ca: pki.read('ca') } });
    expect(m).toMatch(/the proxy http:\/\/127\.0\.0\.1:\d+ \(targets\.ledger\.proxy\) cannot be reached \(ECONNREFUSED\)/);
  });

  it('false connects directly, whatever HTTPS_PROXY says', async () => {
    clearEnv();
    process.env.HTTPS_PROXY = proxyUrl;
    expect((await send(`https://127.0.0.2:${second.port}`, { tls: { ca: pki.read('ca') } })).status).toBe(200);
    expect(tunnels).toEqual([`127.0.0.2:${second.port}`]);
    const x = await send(`https://127.0.0.2:${second.port}`, { proxy: false, tls: { ca: pki.read('ca') } });
    expect(x.status).toBe(200);
    expect(tunnels).toHaveLength(1);
  });

  it("doctor's certificate chain is fetched through the proxy too", async () => {
    clearEnv();
    const report = await describeCertificateChain(`https://ledger.test:${target.port}`, { proxy: proxyUrl, tls: { ca: pki.read('ca') } }, 'targets.ledger', 10_000);
    expect(report?.problem).toBeUndefined();
    expect(report?.chain[0]?.subject).toBe('CN=ledger.test');
    expect(tunnels.length).toBeGreaterThan(0);
    expect(tunnels.every((t) => t === `ledger.test:${target.port}`)).toBe(true);
  });

  it('the token request goes through the target\'s proxy', async () => {
    clearEnv();
    const auth = { kind: 'oauth2' as const, tokenUrl: `https://ledger.test:${target.port}/token`, clients: { admin: { clientId: 'c', clientSecret: 'client-secret-2' } }, tls: { ca: pki.read('ca') }, proxy: proxyUrl };
    expect(await new TokenProvider(auth, 10_000, undefined, fresh()).tokenFor('admin')).toBe('tok-through-proxy');
    expect(tunnels).toEqual([`ledger.test:${target.port}`]);
  });
});

describe('HTTPS_PROXY and NO_PROXY', () => {
  it('HTTPS_PROXY carries an https target', async () => {
    clearEnv();
    process.env.HTTPS_PROXY = proxyUrl;
    const x = await send(`https://ledger.test:${target.port}`, { tls: { ca: pki.read('ca') } });
    expect(x.status).toBe(200);
    expect(tunnels).toEqual([`ledger.test:${target.port}`]);
  });

  it('a proxy refusing CONNECT names the variable', async () => {
    clearEnv();
    process.env.https_proxy = proxyUrl;
    refuse = 403;
    expect(await failure(`https://ledger.test:${target.port}`, { tls: { ca: pki.read('ca') } })).toMatch(/\(the environment variable https_proxy\) refused to open a tunnel \(it answered 403 to CONNECT\)/);
  });

  it('a host NO_PROXY lists is reached directly', async () => {
    clearEnv();
    process.env.HTTPS_PROXY = proxyUrl;
    expect((await send(`https://127.0.0.2:${second.port}`, { tls: { ca: pki.read('ca') } })).status).toBe(200);
    expect(tunnels).toEqual([`127.0.0.2:${second.port}`]);
    tunnels.length = 0;
    process.env.NO_PROXY = 'example.org, 127.0.0.2';
    expect((await send(`https://127.0.0.2:${second.port}`, { tls: { ca: pki.read('ca') } })).status).toBe(200);
    expect(tunnels).toEqual([]);
  });

  it('localhost and 127.0.0.1 (the embedded reference, serve) are never sent to the environment\'s proxy', async () => {
    clearEnv();
    process.env.HTTPS_PROXY = proxyUrl;
    expect((await send(`https://ledger.test:${target.port}`, { tls: { ca: pki.read('ca') } })).status).toBe(200);
    expect(tunnels).toEqual([`ledger.test:${target.port}`]);
    expect((await send(target.url, { tls: { ca: pki.read('ca') } })).status).toBe(200);
    expect(tunnels).toHaveLength(1);
  });

  it('chooses the proxy as documented', () => {
    const env = { HTTPS_PROXY: 'proxy.corp:3128', HTTP_PROXY: 'http://plain.corp:8080', NO_PROXY: '.internal.example,db.example:5432' };
    expect(proxyFor('https://node.example', undefined, 't', env)).toEqual({ uri: 'http://proxy.corp:3128', from: 'the environment variable HTTPS_PROXY' });
    expect(proxyFor('http://node.example', undefined, 't', env)?.uri).toBe('http://plain.corp:8080');
    expect(proxyFor('https://a.internal.example', undefined, 't', env)).toBeUndefined();
    expect(proxyFor('https://internal.example', undefined, 't', env)).toBeUndefined();
    expect(proxyFor('http://db.example:5432', undefined, 't', env)).toBeUndefined();
    expect(proxyFor('http://db.example:80', undefined, 't', env)?.uri).toBe('http://plain.corp:8080');
    expect(proxyFor('https://node.example', undefined, 't', { ...env, NO_PROXY: '*' })).toBeUndefined();
    expect(proxyFor('http://[::1]:80', undefined, 't', env)).toBeUndefined();
    expect(proxyFor('http://[fd00::5]:80', undefined, 't', { ...env, NO_PROXY: 'fd00::5' })).toBeUndefined();
    expect(proxyFor('http://[fd00::5]:80', undefined, 't', { ...env, NO_PROXY: '[fd00::5]:80' })).toBeUndefined();
    expect(proxyFor('http://[fd00::5]:80', undefined, 't', { ...env, NO_PROXY: '[fd00::5]:81' })?.uri).toBe('http://plain.corp:8080');
    expect(proxyFor('http://10.1.2.3:80', undefined, 't', { ...env, NO_PROXY: '10.1.2.3:80' })).toBeUndefined();
    expect(proxyFor('https://node.example', { proxy: 'http://set.corp:1' }, 'targets.scan', {})).toEqual({ uri: 'http://set.corp:1', from: 'targets.scan.proxy' });
  });
});
