/**
 * Certificates for the TLS tests, made with the openssl CLI in a temporary directory: a private CA, a server
 * certificate it signs (for ledger.test, localhost, 127.0.0.1 and 127.0.0.2), one for ledger.test only, an expired
 * one, a second CA that signs nothing the servers use, a client certificate for mTLS and its key encrypted with a
 * passphrase; and HTTPS servers on loopback that present them.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer, type ServerOptions } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const OPENSSL = '/usr/bin/openssl';

export interface Pki {
  dir: string;
  /** file paths */
  files: Record<'ca' | 'otherCa' | 'server' | 'serverKey' | 'nameOnly' | 'nameOnlyKey' | 'expired' | 'client' | 'clientKey' | 'clientKeyEncrypted' | 'stranger' | 'strangerKey', string>;
  /** the passphrase of clientKeyEncrypted */
  passphrase: string;
  read(name: keyof Pki['files']): string;
  remove(): void;
}

function ssl(dir: string, args: string[]): void {
  // each step bounded: a prompt or a hang fails the set-up instead of the whole test file's time
  execFileSync(OPENSSL, args, { cwd: dir, timeout: 20_000, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Makes the certificates (a few hundred milliseconds of openssl; EC P-256 keys). */
export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'cc-tls-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  const ca = (name: string, cn: string) =>
    ssl(dir, ['req', '-x509', ...ec, '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '30', '-subj', `/CN=${cn}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  ca('ca', 'Conformance Test CA');
  ca('other-ca', 'Some Other CA');
  const signed = (name: string, cn: string, ext: string, caName = 'ca') => {
    ssl(dir, ['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`]);
    writeFileSync(join(dir, `${name}.ext`), ext);
    ssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${caName}.pem`, '-CAkey', `${caName}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '20', '-extfile', `${name}.ext`]);
  };
  signed('server', 'ledger.test', 'subjectAltName=DNS:ledger.test,DNS:localhost,IP:127.0.0.1,IP:127.0.0.2\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  signed('name-only', 'ledger.test', 'subjectAltName=DNS:ledger.test\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  signed('client', 'conformance client', 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n');
  signed('stranger', 'stranger client', 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n', 'other-ca');
  // an expired certificate: `openssl ca` takes explicit validity dates, in the past
  mkdirSync(join(dir, 'db'));
  writeFileSync(join(dir, 'db', 'index.txt'), '');
  writeFileSync(join(dir, 'db', 'serial'), '01\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    '[ca]\ndefault_ca = c\n[c]\ndatabase = db/index.txt\nnew_certs_dir = db\nserial = db/serial\ndefault_md = sha256\npolicy = p\nunique_subject = no\n[p]\ncommonName = supplied\n[ext]\nsubjectAltName = DNS:ledger.test,DNS:localhost,IP:127.0.0.1\n',
  );
  ssl(dir, ['ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.pem', '-keyfile', 'ca.key', '-in', 'server.csr', '-out', 'expired.pem', '-startdate', '20200101000000Z', '-enddate', '20200201000000Z', '-extensions', 'ext', '-notext']);
  const passphrase = 'correct horse battery';
  ssl(dir, ['pkcs8', '-topk8', '-in', 'client.key', '-out', 'client-encrypted.key', '-passout', `pass:${passphrase}`, '-v2', 'aes-256-cbc']);
  const files = {
    ca: 'ca.pem',
    otherCa: 'other-ca.pem',
    server: 'server.pem',
    serverKey: 'server.key',
    nameOnly: 'name-only.pem',
    nameOnlyKey: 'name-only.key',
    expired: 'expired.pem',
    client: 'client.pem',
    clientKey: 'client.key',
    clientKeyEncrypted: 'client-encrypted.key',
    stranger: 'stranger.pem',
    strangerKey: 'stranger.key',
  };
  const abs = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, join(dir, f)])) as Pki['files'];
  return {
    dir,
    files: abs,
    passphrase,
    read: (name) => readFileSync(abs[name], 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TlsServer {
  url: string;
  port: number;
  server: HttpsServer;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 (or `host`) answering every request with `handler` (by default 200 and a small JSON body). */
export async function startTlsServer(options: ServerOptions, handler?: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1'): Promise<TlsServer> {
  const server = createHttpsServer(options, handler ?? ((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"version":"3.4.0"}')));
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://${host}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
