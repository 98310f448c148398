/**
 * How the suite reaches a target: its TLS settings (a private CA, a client certificate and key for mTLS, the name the
 * certificate is checked against) and its HTTP proxy (a `proxy` setting, or the standard HTTPS_PROXY / HTTP_PROXY /
 * NO_PROXY variables). The connections themselves are undici's (harness/transport/http.ts builds its Agent or ProxyAgent from
 * these settings); this module reads and checks the settings at configuration load, decides which proxy a URL goes
 * through, turns a TLS or proxy failure into a message that names its cause and the setting to change, and describes a
 * target's certificate chain for `doctor`.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { Config } from '../config.js';
import type { Api } from '../types.js';

/** A target's (or a token URL's) TLS settings, as the configuration holds them once loaded: ca, cert and key are PEM text. */
export interface TlsSettings {
  /** the CA certificate(s) the server's certificate must chain to, instead of the system's CAs */
  ca?: string;
  /** the client certificate (chain) presented to a server that asks for one (mTLS) */
  cert?: string;
  /** the client certificate's private key */
  key?: string;
  /** decrypts an encrypted key */
  passphrase?: string;
  /** the host name sent (SNI) and checked against the certificate, instead of the URL's host */
  serverName?: string;
  /** false accepts any certificate (not checked at all); true by default */
  rejectUnauthorized?: boolean;
}

/** How requests to one URL travel: its TLS settings and its proxy (a URL; false: never through a proxy; unset: the environment's). */
export interface Transport {
  tls?: TlsSettings;
  proxy?: string | false;
}

/** The proxy a request goes through, and the setting or variable that chose it (for messages). */
export interface ProxyRoute {
  uri: string;
  from: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
const isPemText = (v: string) => v.trimStart().startsWith('-----BEGIN');

/**
 * A TLS settings block read at configuration load: each of ca, cert and key is the PEM text itself (as a `${VAR}`
 * holding it gives it) or a file path (relative to the working directory) whose content replaces it. Every problem is
 * a configuration error naming the setting: an unreadable file, content that is not PEM, a certificate that does not
 * parse, a key that does not decrypt with the passphrase, a certificate and key that do not belong together.
 */
export function loadTlsSettings(raw: TlsSettings, setting: string, fail: (message: string) => never): TlsSettings {
  const read = (name: 'ca' | 'cert' | 'key'): { text: string; what: string } | undefined => {
    const v = raw[name];
    if (v === undefined) return undefined;
    if (isPemText(v)) return { text: v, what: 'the PEM text' };
    const file = resolve(v);
    try {
      return { text: readFileSync(file, 'utf8'), what: `file ${file}` };
    } catch (e) {
      return fail(`${setting}.${name}: cannot read file ${file} (${(e as NodeJS.ErrnoException).code ?? String(e)}); give a PEM file's path or the PEM text itself`);
    }
  };
  const certificates = (name: 'ca' | 'cert'): X509Certificate[] | undefined => {
    const got = read(name);
    if (got === undefined) return undefined;
    const blocks = [...got.text.matchAll(PEM_BLOCK)].filter((m) => m[1] === 'CERTIFICATE' || m[1] === 'TRUSTED CERTIFICATE');
    if (blocks.length === 0) fail(`${setting}.${name}: ${got.what} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    return blocks.map((m, i) => {
      try {
        return new X509Certificate(m[0]);
      } catch {
        return fail(`${setting}.${name}: certificate ${i + 1} in ${got.what} does not parse`);
      }
    });
  };
  const out: TlsSettings = {};
  const ca = certificates('ca');
  if (ca !== undefined) out.ca = ca.map((c) => c.toString()).join('');
  const cert = certificates('cert');
  if (cert !== undefined) out.cert = cert.map((c) => c.toString()).join('');
  const key = read('key');
  if (key !== undefined) {
    const block = [...key.text.matchAll(PEM_BLOCK)].find((m) => m[1]!.endsWith('PRIVATE KEY'));
    if (block === undefined) fail(`${setting}.key: ${key.what} holds no PEM private key (-----BEGIN PRIVATE KEY-----)`);
    const encrypted = block[1] === 'ENCRYPTED PRIVATE KEY' || /Proc-Type:\s*4,ENCRYPTED/.test(block[0]);
    if (encrypted && raw.passphrase === undefined) fail(`${setting}.key: the key is encrypted: set ${setting}.passphrase`);
    let keyObject: KeyObject;
    try {
      keyObject = createPrivateKey({ key: block[0], format: 'pem', ...(raw.passphrase !== undefined ? { passphrase: raw.passphrase } : {}) });
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      return fail(encrypted && /DECRYPT/.test(code) ? `${setting}.passphrase does not decrypt ${setting}.key` : `${setting}.key: ${key.what} is not a private key Node.js can read (${code || (e as Error).message})`);
    }
    out.key = block[0];
    if (cert !== undefined && !cert[0]!.checkPrivateKey(keyObject)) fail(`${setting}.cert and ${setting}.key do not belong together: the key is not the certificate's (${cert[0]!.subject.replace(/\n/g, ', ')})`);
  }
  if (out.cert !== undefined && out.key === undefined) fail(`${setting}.cert is set without ${setting}.key: a client certificate needs its key`);
  if (out.key !== undefined && out.cert === undefined) fail(`${setting}.key is set without ${setting}.cert: a client key needs its certificate`);
  if (raw.passphrase !== undefined) {
    if (out.key === undefined) fail(`${setting}.passphrase is set without ${setting}.key`);
    out.passphrase = raw.passphrase;
  }
  if (raw.serverName !== undefined) out.serverName = raw.serverName;
  if (raw.rejectUnauthorized !== undefined) out.rejectUnauthorized = raw.rejectUnauthorized;
  return out;
}

/** A short description of PEM certificate text for a printed configuration: the subject and expiry of each certificate. */
export function pemSummary(text: string): string {
  const certs: string[] = [];
  for (const m of text.matchAll(PEM_BLOCK)) {
    try {
      const c = new X509Certificate(m[0]);
      certs.push(`${oneLine(c.subject)} (expires ${new Date(c.validTo).toISOString().slice(0, 10)})`);
    } catch {
      certs.push('an unreadable certificate');
    }
  }
  return `PEM: ${certs.length === 0 ? 'no certificate' : certs.join('; ')}`;
}

const oneLine = (dn: string) => dn.trim().split('\n').join(', ');

/** The options undici's connector (and node:tls) take for these settings. */
export function nodeTlsOptions(tls: TlsSettings | undefined): Record<string, unknown> {
  if (tls === undefined) return {};
  const o: Record<string, unknown> = {};
  if (tls.ca !== undefined) o.ca = tls.ca;
  if (tls.cert !== undefined) o.cert = tls.cert;
  if (tls.key !== undefined) o.key = tls.key;
  if (tls.passphrase !== undefined) o.passphrase = tls.passphrase;
  if (tls.serverName !== undefined) o.servername = tls.serverName;
  if (tls.rejectUnauthorized !== undefined) o.rejectUnauthorized = tls.rejectUnauthorized;
  return o;
}

/** Hosts the environment's proxy never applies to (as Go's net/http does): the embedded reference and `serve` listen there. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** A proxy given as host:port (as curl accepts it) is an http:// one. */
const withScheme = (uri: string) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri) ? uri : `http://${uri}`);

/**
 * The proxy requests to `url` go through: the transport's `proxy` setting (false: none), else for a URL whose host is
 * not loopback and not in NO_PROXY, HTTPS_PROXY (https URLs) or HTTP_PROXY, lower-case names first, as undici and
 * curl read them. NO_PROXY lists host names or addresses, comma- or space-separated, each matching itself and its
 * subdomains (a leading "." or "*." is the same), with an optional ":port"; "*" alone turns the proxy off.
 */
export function proxyFor(url: string, transport: Transport | undefined, setting: string, env: NodeJS.ProcessEnv = process.env): ProxyRoute | undefined {
  const proxy = transport?.proxy;
  if (proxy === false) return undefined;
  if (proxy !== undefined) return { uri: withScheme(proxy), from: `${setting}.proxy` };
  const u = new URL(url);
  const host = u.hostname.toLowerCase();
  if (LOOPBACK.has(host) || host.endsWith('.localhost')) return undefined;
  const https = u.protocol === 'https:';
  const pick = (...names: string[]) => {
    for (const n of names) if (env[n]) return { uri: withScheme(env[n]!), from: `the environment variable ${n}` };
    return undefined;
  };
  const route = (https ? pick('https_proxy', 'HTTPS_PROXY') : undefined) ?? pick('http_proxy', 'HTTP_PROXY');
  if (route === undefined) return undefined;
  const noProxy = (env.no_proxy ?? env.NO_PROXY ?? '').trim();
  if (noProxy === '*') return undefined;
  const port = Number(u.port) || (https ? 443 : 80);
  for (const entry of noProxy.split(/[,\s]+/)) {
    if (entry === '') continue;
    // a port follows a name, an IPv4 address or a bracketed IPv6 one ("[::1]:8080"); a bare IPv6 address has none
    const m = entry.startsWith('[') || !/:.*:/.test(entry) ? /^(.+):(\d+)$/.exec(entry) : null;
    if (m !== null && Number(m[2]) !== port) continue;
    const name = (m !== null ? m[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    const bare = name.replace(/^\[|\]$/g, '');
    if (host === name || host === `[${bare}]` || host.endsWith(`.${name}`)) return undefined;
  }
  return route;
}

/** Whether a transport needs anything but the default connection pool (a TLS setting, or a proxy for this URL). */
export function isPlain(transport: Transport | undefined): boolean {
  return transport === undefined || (transport.tls === undefined && transport.proxy === undefined);
}

/** the transports of the configured targets by their origin (registerTransport) */
const transports = new Map<string, Transport>();

/**
 * Tells every HTTP client made in this thread for `url`'s origin without a transport of its own to use this one: the
 * configuration loader registers each target's, so that every request to a target (doctor's, the preflight's, a
 * served OpenAPI document's) goes the way its settings say. The configuration loaded last decides.
 */
export function registerTransport(url: string, transport: Transport): void {
  const origin = new URL(url).origin;
  if (isPlain(transport)) transports.delete(origin);
  else transports.set(origin, transport);
}

/** The transport registered for `url`'s origin, if any. */
export function registeredTransport(url: string): Transport | undefined {
  return transports.size === 0 ? undefined : transports.get(new URL(url).origin);
}

/** What a failure's message needs to know of the request that failed. */
export interface FailureContext {
  /** the URL (already redacted) or the thing asked (e.g. "the ledger target https://..." ) */
  where: string;
  /** the settings block to name, e.g. `targets.ledger` (its `.tls.ca`, `.proxy` are named) or `targets.ledger.auth` */
  setting: string;
  tls?: TlsSettings;
  proxy?: ProxyRoute;
  https: boolean;
}

const errCode = (e: unknown): string | undefined => {
  const err = e as { code?: string; cause?: { code?: string } } | undefined;
  return err?.code ?? err?.cause?.code;
};

/** Verification failures meaning "no CA you trust signed this" (OpenSSL's names, as Node.js gives them). */
const UNTRUSTED = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE']);
/** TLS alerts a server sends when it refuses the client certificate, or wants one and got none. */
const CLIENT_CERT_ALERTS = new Set([
  'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
  'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_REVOKED',
  'ERR_SSL_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE',
  'ERR_SSL_TLSV1_ALERT_ACCESS_DENIED',
  'ERR_SSL_TLSV1_ALERT_DECRYPT_ERROR',
]);

/** The message of a client-certificate refusal, with what to set. */
function clientCertRefused(c: FailureContext, how: string): string {
  return c.tls?.cert !== undefined
    ? `${c.where}: the server refused the client certificate (${how}): check that ${c.setting}.tls.cert is signed by a CA the server trusts for clients`
    : `${c.where}: the server requires a client certificate (mTLS) (${how}): set ${c.setting}.tls.cert and ${c.setting}.tls.key`;
}

/**
 * The message of a TLS or proxy failure, naming its cause and the setting to change; undefined for any other failure
 * (the caller describes it). `e` is what undici or node:tls threw.
 */
export function describeTlsOrProxyFailure(e: unknown, c: FailureContext): string | undefined {
  const err = e as Error & { code?: string; address?: string; port?: number; hostname?: string; reason?: string; host?: string };
  const code = errCode(e);
  const message = err?.message ?? '';
  const tls = `${c.setting}.tls`;
  if (c.proxy !== undefined) {
    const proxyName = `the proxy ${safeProxy(c.proxy.uri)} (${c.proxy.from})`;
    const fromEnv = c.proxy.from.startsWith('the environment');
    const change = fromEnv ? `change ${c.proxy.from} or NO_PROXY, or set ${c.setting}.proxy (false: connect directly)` : `change ${c.proxy.from} (false: connect directly)`;
    const tunnel = /Proxy response \((\d+)\)/.exec(message);
    if (tunnel !== null) {
      const status = Number(tunnel[1]);
      const more = status === 407 ? ': it wants credentials; put them in the proxy URL (http://user:password@host:port)' : status === 403 ? ': it does not allow this destination' : '';
      return `${c.where}: ${proxyName} refused to open a tunnel (it answered ${status} to CONNECT)${more}; ${change}`;
    }
    const p = new URL(c.proxy.uri);
    const proxyPort = Number(p.port) || (p.protocol === 'https:' ? 443 : 80);
    const atProxy = (err?.port === proxyPort && err?.address !== undefined) || err?.hostname === p.hostname || message.includes(`${p.hostname}:${proxyPort}`);
    if (atProxy && code !== undefined && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ECONNRESET'].includes(code)) {
      return `${c.where}: ${proxyName} cannot be reached (${code}): ${change}`;
    }
    if (code === 'UND_ERR_PROXY_CLOSED') return `${c.where}: ${proxyName} closed the connection instead of answering CONNECT; ${change}`;
    if (code === 'UND_ERR_PRX_TLS') return `${c.where}: the TLS connection to ${proxyName} failed: ${(err as { cause?: Error }).cause?.message ?? message}`;
  }
  if (code === undefined) return undefined;
  if (UNTRUSTED.has(code)) {
    const how = code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ? 'it is self-signed' : code === 'SELF_SIGNED_CERT_IN_CHAIN' ? 'its chain ends in a root CA not configured' : code;
    return c.tls?.ca !== undefined
      ? `${c.where}: the server's certificate is not signed by a CA you configured (${how}): ${tls}.ca is set, but holds no CA of this certificate; check it is the CA that issued the server's certificate`
      : `${c.where}: the server's certificate is not signed by a CA you configured (${how}): set ${tls}.ca to the CA certificate (PEM) that issued it`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const names = (err as { cert?: { subjectaltname?: string } }).cert?.subjectaltname;
    return `${c.where}: the server's certificate is not valid for the name ${err.host ?? '?'}${names !== undefined ? ` (it names ${names})` : ''}: use a URL with a name it lists, or set ${tls}.serverName to one of them`;
  }
  if (code === 'CERT_HAS_EXPIRED') return `${c.where}: the server's certificate has expired (CERT_HAS_EXPIRED): the server must renew it (${tls}.rejectUnauthorized: false skips every check, for a test set-up only)`;
  if (code === 'CERT_NOT_YET_VALID') return `${c.where}: the server's certificate is not valid yet (CERT_NOT_YET_VALID): check this machine's clock and the server's`;
  if (CLIENT_CERT_ALERTS.has(code)) return clientCertRefused(c, `TLS alert ${code.replace(/^ERR_SSL_(SSLV3|TLSV1|TLSV13)_ALERT_/, '').toLowerCase().replace(/_/g, ' ')}`);
  if (code === 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE') {
    return c.tls?.cert === undefined
      ? `${c.where}: the server refused the TLS handshake (alert handshake failure), as servers that require a client certificate do: set ${tls}.cert and ${tls}.key (mTLS)`
      : `${c.where}: the server refused the TLS handshake (alert handshake failure): it did not accept ${tls}.cert, or shares no TLS version or cipher with this client`;
  }
  if (c.https && code === 'ECONNRESET' && /before secure TLS connection/.test(message)) {
    return `${c.where}: the server closed the connection during the TLS handshake${c.tls?.cert === undefined ? `: if it requires a client certificate (mTLS), set ${tls}.cert and ${tls}.key` : `: it may not accept ${tls}.cert`}`;
  }
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || (code === 'EPROTO' && /wrong version number|http request/i.test(message))) return `${c.where}: the server does not speak TLS there (${code}): is the URL http:// rather than https://?`;
  if (code === 'ERR_OSSL_BAD_DECRYPT' || code === 'ERR_OSSL_EVP_BAD_DECRYPT') return `${c.where}: ${tls}.passphrase does not decrypt ${tls}.key`;
  if (code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH') return `${c.where}: ${tls}.cert and ${tls}.key do not belong together`;
  return undefined;
}

/** A proxy URL as printed: its credentials left out. */
function safeProxy(uri: string): string {
  try {
    const u = new URL(uri);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(unreadable URL)';
  }
}

/** A connection closed before any answer, over TLS: the server may have refused the client certificate after the handshake (TLS 1.3). */
export function mayBeClientCertRefusal(e: unknown, https: boolean): boolean {
  const code = errCode(e);
  return https && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET');
}

const nodeRequire = createRequire(import.meta.url);
/** node:tls, loaded when first needed (a run over plain HTTP never loads it). */
const nodeTls = () => nodeRequire('node:tls') as typeof import('node:tls');

/**
 * A TLS connection to the URL's host with the transport's settings (through its proxy, by undici's CONNECT, when it
 * has one), bounded by `timeoutMs`; resolved with the socket once the handshake is done (verified or not: with
 * `verify` false the chain is fetched whoever signed it), rejected with the connection's error.
 */
async function connectTls(url: string, transport: Transport | undefined, setting: string, timeoutMs: number, verify: boolean): Promise<TLSSocket> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port) || 443;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    let socket: import('node:net').Socket | undefined;
    const route = proxyFor(url, transport, setting);
    if (route !== undefined) {
      const { Client } = await import('./undici-core.js').then((m) => ({ Client: m.undiciClient() }));
      const p = new URL(route.uri);
      const client = new Client(`${p.protocol}//${p.host}`, { connect: { timeout: timeoutMs } });
      const auth = p.username !== '' ? { 'proxy-authorization': `Basic ${Buffer.from(`${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`).toString('base64')}` } : {};
      try {
        const r = await client.connect({ path: `${u.hostname}:${port}`, headers: { host: `${u.hostname}:${port}`, ...auth }, signal: abort.signal });
        if (r.statusCode !== 200) {
          r.socket.destroy();
          throw Object.assign(new Error(`Proxy response (${r.statusCode}) !== 200 when HTTP Tunneling`), { code: 'UND_ERR_ABORTED' });
        }
        socket = r.socket as import('node:net').Socket;
      } finally {
        // the tunnel's socket is handed over: the client that opened it is not needed, whatever happened
        void client.destroy().catch(() => {});
      }
    }
    const options: Record<string, unknown> = { ...nodeTlsOptions(transport?.tls), ...(verify ? {} : { rejectUnauthorized: false }) };
    const servername = (options.servername as string | undefined) ?? (/^[\d.]+$|:/.test(host) ? undefined : host);
    return await new Promise<TLSSocket>((resolve, reject) => {
      const s = nodeTls().connect({ host, port, ...options, ...(servername !== undefined ? { servername } : {}), ...(socket !== undefined ? { socket } : {}), ALPNProtocols: ['http/1.1'] });
      const onAbort = () => s.destroy(Object.assign(new Error(`no TLS handshake within ${timeoutMs} ms (run.timeoutMs)`), { code: 'UND_ERR_CONNECT_TIMEOUT' }));
      abort.signal.addEventListener('abort', onAbort, { once: true });
      s.once('secureConnect', () => {
        abort.signal.removeEventListener('abort', onAbort);
        resolve(s);
      });
      s.once('error', (e) => {
        abort.signal.removeEventListener('abort', onAbort);
        reject(e);
      });
    });
  } finally {
    clearTimeout(timer);
  }
}

/** One certificate of a chain as doctor prints it. */
export interface ChainEntry {
  subject: string;
  issuer: string;
  validTo: string;
  expired: boolean;
}

/** What doctor says of an https target's certificates: the chain the server sent, and whether the configured settings accept it. */
export interface ChainReport {
  chain: ChainEntry[];
  /** undefined when the settings accept the chain; else why not (the message a request would get) */
  problem?: string;
  /** the protocol agreed (TLSv1.3, ...) */
  protocol?: string;
}

/**
 * The certificate chain of an https URL (leaf first), fetched with the transport's settings and through its proxy,
 * within `timeoutMs`, and whether those settings accept it. For an http URL: undefined.
 */
export async function describeCertificateChain(url: string, transport: Transport | undefined, setting: string, timeoutMs: number): Promise<ChainReport | undefined> {
  if (!url.startsWith('https:')) return undefined;
  const context: FailureContext = { where: new URL(url).origin, setting, https: true, ...(transport?.tls !== undefined ? { tls: transport.tls } : {}) };
  const route = proxyFor(url, transport, setting);
  if (route !== undefined) context.proxy = route;
  let socket: TLSSocket;
  try {
    socket = await connectTls(url, transport, setting, timeoutMs, false);
  } catch (e) {
    return { chain: [], problem: describeTlsOrProxyFailure(e, context) ?? `${context.where}: ${(e as Error).message}` };
  }
  const chain: ChainEntry[] = [];
  const protocol = socket.getProtocol();
  try {
    let cert = socket.getPeerCertificate(true) as import('node:tls').DetailedPeerCertificate | undefined;
    const seen = new Set<string>();
    while (cert !== undefined && cert.raw !== undefined && !seen.has(cert.fingerprint256) && chain.length < 10) {
      seen.add(cert.fingerprint256);
      const x = new X509Certificate(cert.raw);
      chain.push({ subject: oneLine(x.subject), issuer: oneLine(x.issuer), validTo: new Date(x.validTo).toISOString(), expired: Date.parse(x.validTo) < Date.now() });
      cert = cert.issuerCertificate;
    }
  } finally {
    socket.destroy();
  }
  const report: ChainReport = { chain, ...(protocol ? { protocol } : {}) };
  // the verdict of the settings themselves: a second handshake that verifies (the first fetched the chain whatever it was)
  if (transport?.tls?.rejectUnauthorized !== false) {
    try {
      const verified = await connectTls(url, transport, setting, timeoutMs, true);
      const refusal = await clientCertVerdict(verified, new URL(url).host, timeoutMs);
      if (refusal !== undefined) report.problem = describeTlsOrProxyFailure(refusal, context) ?? clientCertRefused(context, 'the connection was closed before any answer');
    } catch (e) {
      report.problem = describeTlsOrProxyFailure(e, context) ?? `${context.where}: ${(e as Error).message}`;
    }
  }
  return report;
}

/**
 * Over TLS 1.3 a server checks the client certificate after the handshake, so its refusal (a TLS alert, or the
 * connection closed) comes only once something is sent: a HEAD request is sent on the socket, and the first event
 * decides, within `timeoutMs`: an answer (accepted; resolved undefined), an error (the alert, resolved with it) or the
 * connection closed without a word (resolved with a socket error). The socket is destroyed either way.
 */
export function clientCertVerdict(socket: TLSSocket, host: string, timeoutMs: number): Promise<Error | undefined> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (v: Error | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.once('data', () => finish(undefined));
    socket.once('error', (e) => finish(e));
    socket.once('close', () => finish(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })));
    socket.write(`HEAD / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}

/**
 * Why a request over TLS was closed before any answer, found by a TLS connection of its own with the same settings:
 * the server's refusal of the client certificate (an alert, or a close right after the handshake), as a message; or
 * undefined when that connection is answered (the failure was something else).
 */
export async function diagnoseClosedTls(url: string, transport: Transport | undefined, context: FailureContext, timeoutMs: number): Promise<string | undefined> {
  try {
    const socket = await connectTls(url, transport, context.setting, timeoutMs, true);
    const refusal = await clientCertVerdict(socket, new URL(url).host, timeoutMs);
    if (refusal === undefined) return undefined;
    return describeTlsOrProxyFailure(refusal, context) ?? clientCertRefused(context, 'the connection was closed right after the TLS handshake');
  } catch (e) {
    return describeTlsOrProxyFailure(e, context);
  }
}

/**
 * doctor's line on an https target's certificates: the chain the server sends (subject, expiry, issuer of each, leaf
 * first) and, when the target's settings do not accept it, why. undefined for an http target, or when no TLS
 * connection could be made at all (the preflight names that).
 */
export async function certificateChainLine(config: Pick<Config, 'targets' | 'run'>, api: Api): Promise<string | undefined> {
  const target = config.targets[api];
  if (target === undefined) return undefined;
  const transport: Transport = { ...(target.tls !== undefined ? { tls: target.tls } : {}), ...(target.proxy !== undefined ? { proxy: target.proxy } : {}) };
  const report = await describeCertificateChain(target.url, transport, `targets.${api}`, config.run.timeoutMs).catch(() => undefined);
  if (report === undefined || report.chain.length === 0) return undefined;
  const certs = report.chain.map((c, i) => `${i === 0 ? '' : '<- '}${c.subject} (${c.expired ? 'EXPIRED' : 'expires'} ${c.validTo.slice(0, 10)}${i === report.chain.length - 1 && c.issuer !== c.subject ? `, issued by ${c.issuer}` : ''})`);
  return `certificate chain${report.protocol !== undefined ? ` (${report.protocol})` : ''}: ${certs.join(' ')}${report.problem !== undefined ? `; not accepted: ${report.problem}` : ''}`;
}
