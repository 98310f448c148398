/**
 * TLS per target against real TLS servers on loopback, with certificates made by openssl for the test: a private CA
 * (accepted with tls.ca, named without it), a wrong CA, a host name the certificate does not list (tls.serverName),
 * an expired certificate, mTLS (a client certificate and key, one encrypted with a passphrase; named when missing or
 * refused), the settings read and checked at configuration load (exit 2 naming the setting), the token request's own
 * TLS settings, and doctor's certificate chain.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, loadConfig, printableConfig, type Config, type TargetConfig } from '../../harness/config.js';
import { doctor } from '../../harness/setup/doctor.js';
import { HttpClient, TransportError } from '../../harness/transport/http.js';
import { TokenProvider } from '../../harness/transport/auth.js';
import { certificateChainLine, describeCertificateChain, type Transport } from '../../harness/transport/tls.js';
import { redactText } from '../../harness/transport/redact.js';
import { errorOf } from './config-error.js';
import { makePki, startTlsServer, type Pki, type TlsServer } from './tls-fixtures.js';

let pki: Pki;
const servers: TlsServer[] = [];
let plain: TlsServer;
let nameOnly: TlsServer;
let expired: TlsServer;
let mtls: TlsServer;
let mtls12: TlsServer;

beforeAll(async () => {
  pki = makePki();
  const cert = pki.read('server');
  const key = pki.read('serverKey');
  plain = await startTlsServer({ cert, key });
  nameOnly = await startTlsServer({ cert: pki.read('nameOnly'), key: pki.read('nameOnlyKey') });
  expired = await startTlsServer({ cert: pki.read('expired'), key });
  mtls = await startTlsServer({ cert, key, ca: pki.read('ca'), requestCert: true, rejectUnauthorized: true });
  // over TLS 1.2 the server refuses a missing client certificate during the handshake, with an alert
  mtls12 = await startTlsServer({ cert, key, ca: pki.read('ca'), requestCert: true, rejectUnauthorized: true, maxVersion: 'TLSv1.2' });
  servers.push(plain, nameOnly, expired, mtls, mtls12);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  pki?.remove();
});

const client = (url: string, transport?: Transport) =>
  new HttpClient({ api: 'ledger', baseUrl: url, timeoutMs: 10_000, maxResponseBytes: 1 << 20, retries: 0, ...(transport !== undefined ? { transport } : {}) });

/** the TransportError message of GET /v2/version (the test fails when the request succeeds) */
async function failure(url: string, transport?: Transport): Promise<string> {
  try {
    await client(url, transport).send({ method: 'GET', path: '/v2/version' });
  } catch (e) {
    expect(e).toBeInstanceOf(TransportError);
    return (e as Error).message;
  }
  throw new Error('expected the request to fail');
}

const ok = async (url: string, transport?: Transport) => (await client(url, transport).send({ method: 'GET', path: '/v2/version' })).status;

describe('a server with a certificate of a private CA', () => {
  it('is reached with tls.ca set to that CA', async () => {
    expect(await ok(plain.url, { tls: { ca: pki.read('ca') } })).toBe(200);
  });

  it('without tls.ca: named, with the setting to change', async () => {
    const m = await failure(plain.url);
    expect(m).toMatch(/not signed by a CA you configured/);
    expect(m).toMatch(/set targets\.ledger\.tls\.ca/);
  });

  it('with the wrong CA in tls.ca: named as such', async () => {
    const m = await failure(plain.url, { tls: { ca: pki.read('otherCa') } });
    expect(m).toMatch(/targets\.ledger\.tls\.ca is set, but holds no CA of this certificate/);
  });

  it('with tls.rejectUnauthorized false: reached without any check', async () => {
    expect(await ok(plain.url, { tls: { rejectUnauthorized: false } })).toBe(200);
  });
});

describe('a certificate that does not name the host of the URL', () => {
  it('is named, suggesting tls.serverName, with the names it lists', async () => {
    const m = await failure(nameOnly.url, { tls: { ca: pki.read('ca') } });
    expect(m).toMatch(/not valid for the name 127\.0\.0\.1/);
    expect(m).toMatch(/DNS:ledger\.test/);
    expect(m).toMatch(/targets\.ledger\.tls\.serverName/);
  });

  it('is accepted with tls.serverName set to a name it lists', async () => {
    expect(await ok(nameOnly.url, { tls: { ca: pki.read('ca'), serverName: 'ledger.test' } })).toBe(200);
  });
});

describe('an expired certificate', () => {
  it('is named as expired', async () => {
    const m = await failure(expired.url, { tls: { ca: pki.read('ca') } });
    expect(m).toMatch(/certificate has expired/);
  });
});

describe('a server that requires a client certificate (mTLS)', () => {
  const ca = () => pki.read('ca');

  it('is reached with tls.cert and tls.key', async () => {
    expect(await ok(mtls.url, { tls: { ca: ca(), cert: pki.read('client'), key: pki.read('clientKey') } })).toBe(200);
  });

  it('is reached with an encrypted key and its passphrase', async () => {
    expect(await ok(mtls.url, { tls: { ca: ca(), cert: pki.read('client'), key: pki.read('clientKeyEncrypted'), passphrase: pki.passphrase } })).toBe(200);
  });

  it('without a client certificate (TLS 1.3: refused after the handshake): named, with the settings to set', async () => {
    const m = await failure(mtls.url, { tls: { ca: ca() } });
    expect(m).toMatch(/requires a client certificate \(mTLS\)/);
    expect(m).toMatch(/set targets\.ledger\.tls\.cert and targets\.ledger\.tls\.key/);
  });

  it('without a client certificate (TLS 1.2: refused in the handshake): named', async () => {
    const m = await failure(mtls12.url, { tls: { ca: ca() } });
    expect(m).toMatch(/targets\.ledger\.tls\.cert and targets\.ledger\.tls\.key/);
  });

  it('with a client certificate of a CA the server does not trust: named as refused', async () => {
    const m = await failure(mtls.url, { tls: { ca: ca(), cert: pki.read('stranger'), key: pki.read('strangerKey') } });
    expect(m).toMatch(/refused the client certificate/);
    expect(m).toMatch(/targets\.ledger\.tls\.cert/);
  });
});

describe('an https URL to a server that does not speak TLS', () => {
  it('is named, asking whether the URL should be http://', async () => {
    const { createServer } = await import('node:http');
    const http = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
    try {
      const m = await failure(`https://127.0.0.1:${(http.address() as { port: number }).port}`);
      expect(m).toMatch(/does not speak TLS there .*is the URL http:\/\/ rather than https:\/\//);
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});

describe('TLS settings at configuration load', () => {
  const yaml = (name: string, tls: string, extra = '') => {
    const p = join(pki.dir, name);
    writeFileSync(p, `targets:\n  ledger:\n    url: ${mtls.url}\n    tls: ${tls}\n${extra}`);
    return p;
  };
  const load = (file: string, env: NodeJS.ProcessEnv = {}) => loadConfig({ flags: { config: file }, env });

  it('reads ca, cert and key files into PEM text, and the requests use them', async () => {
    const c = load(yaml('files.yaml', `{ ca: ${pki.files.ca}, cert: ${pki.files.client}, key: ${pki.files.clientKeyEncrypted}, passphrase: "${pki.passphrase}" }`));
    const tls = c.targets.ledger!.tls!;
    expect(tls.ca).toContain('-----BEGIN CERTIFICATE-----');
    expect(tls.key).toContain('PRIVATE KEY-----');
    // a client made for the target's origin without settings of its own (doctor's, the preflight's) uses the target's
    expect(await ok(mtls.url)).toBe(200);
  });

  it('takes the PEM text itself from ${VAR}', async () => {
    const c = load(yaml('env.yaml', '{ ca: "${CA_PEM}", cert: "${CLIENT_PEM}", key: "${CLIENT_KEY}" }'), { CA_PEM: pki.read('ca'), CLIENT_PEM: pki.read('client'), CLIENT_KEY: pki.read('clientKey') });
    expect(c.targets.ledger!.tls!.cert).toContain('-----BEGIN CERTIFICATE-----');
    expect(await ok(mtls.url, { tls: c.targets.ledger!.tls! })).toBe(200);
  });

  it('a missing file is a configuration error naming the setting', () => {
    expect(errorOf(() => load(yaml('missing.yaml', `{ ca: ${join(pki.dir, 'no-such.pem')} }`)))).toMatch(/^targets\.ledger\.tls\.ca: cannot read file .*no-such\.pem \(ENOENT\)/);
  });

  it('a file that holds no PEM certificate is a configuration error naming the setting', () => {
    writeFileSync(join(pki.dir, 'not-pem.txt'), 'hello');
    expect(errorOf(() => load(yaml('not-pem.yaml', `{ ca: ${join(pki.dir, 'not-pem.txt')} }`)))).toMatch(/^targets\.ledger\.tls\.ca: .* holds no PEM certificate/);
    expect(errorOf(() => load(yaml('key-not-pem.yaml', `{ cert: ${pki.files.client}, key: ${pki.files.client} }`)))).toMatch(/^targets\.ledger\.tls\.key: .* holds no PEM private key/);
  });

  it('an encrypted key without its passphrase, or with a wrong one, is a configuration error', () => {
    expect(errorOf(() => load(yaml('nopass.yaml', `{ cert: ${pki.files.client}, key: ${pki.files.clientKeyEncrypted} }`)))).toMatch(/targets\.ledger\.tls\.key: the key is encrypted: set targets\.ledger\.tls\.passphrase/);
    expect(errorOf(() => load(yaml('badpass.yaml', `{ cert: ${pki.files.client}, key: ${pki.files.clientKeyEncrypted}, passphrase: wrong-one }`)))).toMatch(/targets\.ledger\.tls\.passphrase does not decrypt targets\.ledger\.tls\.key/);
  });

  it('a certificate without its key, or a key that is not the certificate\'s, is a configuration error', () => {
    expect(errorOf(() => load(yaml('nokey.yaml', `{ cert: ${pki.files.client} }`)))).toMatch(/targets\.ledger\.tls\.cert is set without targets\.ledger\.tls\.key/);
    expect(errorOf(() => load(yaml('mismatch.yaml', `{ cert: ${pki.files.client}, key: ${pki.files.strangerKey} }`)))).toMatch(/do not belong together/);
  });

  it('an unknown TLS setting is a configuration error', () => {
    expect(errorOf(() => load(yaml('unknown.yaml', '{ cafile: x }')))).toMatch(/unknown setting "cafile"/);
  });

  it('the key and passphrase never reach the printed configuration; certificates show as subject and expiry', () => {
    const c = load(yaml('printed.yaml', `{ ca: ${pki.files.ca}, cert: ${pki.files.client}, key: ${pki.files.clientKeyEncrypted}, passphrase: "${pki.passphrase}" }`));
    const printed = JSON.stringify(printableConfig(c));
    expect(printed).not.toContain('PRIVATE KEY');
    expect(printed).not.toContain(pki.passphrase);
    expect(printed).not.toContain('-----BEGIN');
    expect(printed).toContain('Conformance Test CA');
    expect(redactText(`passphrase ${pki.passphrase}`)).not.toContain(pki.passphrase);
  });
});

describe('the OAuth2 token request', () => {
  let idp: TlsServer;
  beforeAll(async () => {
    idp = await startTlsServer({ cert: pki.read('server'), key: pki.read('serverKey'), ca: pki.read('ca'), requestCert: true, rejectUnauthorized: true }, (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"tok-from-the-idp","expires_in":300}'),
    );
    servers.push(idp);
  });
  const auth = (tls?: TargetConfig['tls']): TargetConfig['auth'] => ({ kind: 'oauth2', tokenUrl: `${idp.url}/token`, clients: { admin: { clientId: 'c', clientSecret: 'client-secret-1' } }, ...(tls !== undefined ? { tls } : {}) });

  it('uses auth.tls (CA and client certificate)', async () => {
    const t = await new TokenProvider(auth({ ca: pki.read('ca'), cert: pki.read('client'), key: pki.read('clientKey') }), 10_000).tokenFor('admin');
    expect(t).toBe('tok-from-the-idp');
  });

  it('names auth.tls.ca when the identity provider\'s certificate is of a CA not configured', async () => {
    await expect(new TokenProvider(auth(), 10_000, undefined, undefined, undefined, { attempts: 1 }).tokenFor('admin')).rejects.toThrow(/not signed by a CA you configured.*set auth\.tls\.ca/);
  });
});

describe("doctor's certificate chain", () => {
  it('lists the subjects and expiry of the chain, leaf first, with the issuer', async () => {
    const report = await describeCertificateChain(plain.url, { tls: { ca: pki.read('ca') } }, 'targets.ledger', 10_000);
    expect(report?.problem).toBeUndefined();
    expect(report?.chain[0]?.subject).toBe('CN=ledger.test');
    expect(report?.chain[0]?.issuer).toBe('CN=Conformance Test CA');
    expect(report?.chain[0]?.validTo).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('prints a line for an https target, naming why its settings do not accept the chain', async () => {
    const config = { run: { timeoutMs: 10_000 }, targets: { ledger: { url: expired.url, tls: { ca: pki.read('ca') } } } } as never;
    const line = await certificateChainLine(config, 'ledger');
    expect(line).toMatch(/^certificate chain \(TLSv1\.3\): CN=ledger\.test \(EXPIRED 2020-02-01\) <- CN=Conformance Test CA \(expires \d{4}-\d\d-\d\d\)/);
    expect(line).toMatch(/not accepted: .*expired/);
  });

  it('doctor shows it among an https target\'s findings', async () => {
    const ledger: TargetConfig = { url: plain.url, version: '3.4', auth: { kind: 'none' }, features: {}, fixtures: {}, disabledRequirements: [], headers: {}, tls: { ca: pki.read('ca') } };
    const config = { run: { ...DEFAULT_RUN, only: ['ledger'], timeoutMs: 10_000 }, targets: { ledger }, reference: { faults: [] }, useReference: false, sources: ['test'] } as Config;
    const [line] = await doctor(config);
    expect(line?.findings.map((f) => f.text)).toContainEqual(expect.stringMatching(/^certificate chain \(TLSv1\.3\): CN=ledger\.test \(expires/));
  });

  it('prints nothing for an http target', async () => {
    expect(await certificateChainLine({ run: { timeoutMs: 1000 }, targets: { ledger: { url: 'http://127.0.0.1:9' } } } as never, 'ledger')).toBeUndefined();
  });
});

describe('observe in front of an mTLS target', () => {
  it('forwards upstream with the target\'s CA and client certificate', async () => {
    const { startObserver } = await import('../../harness/observe/proxy.js');
    const tls = { ca: pki.read('ca'), cert: pki.read('client'), key: pki.read('clientKey') };
    const withTls = await startObserver({ targets: { ledger: { url: mtls.url, tls } }, listeners: [{ api: 'ledger', host: '127.0.0.1', port: 0 }], maxBodyBytes: 1 << 20, onExchange: () => {} });
    const without = await startObserver({ targets: { ledger: { url: mtls.url } }, listeners: [{ api: 'ledger', host: '127.0.0.1', port: 0 }], maxBodyBytes: 1 << 20, onExchange: () => {} });
    try {
      expect((await fetch(`${withTls.listening[0]!.url}/v2/version`)).status).toBe(200);
      // without the settings the upstream TLS fails: the client gets the proxy's 502
      expect((await fetch(`${without.listening[0]!.url}/v2/version`)).status).toBe(502);
    } finally {
      await withTls.close(500);
      await without.close(500);
    }
  });
});
