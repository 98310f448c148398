import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, printableConfig } from '../../harness/config.js';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { redactText } from '../../harness/transport/redact.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('--header and --token', () => {
  it('give a target a header and a static token, per interface or for every configured target', () => {
    const c = loadConfig({
      env: {},
      flags: { ledgerUrl: 'http://127.0.0.1:1', scanUrl: 'http://127.0.0.1:2', header: ['X-Tenant=t-1,t-2', 'scan:X-Api-Key=k=v'], token: ['ledger:admin=tok-flag-1', 'user=tok-flag-2'] },
    });
    expect(c.targets.ledger?.headers).toEqual({ 'X-Tenant': 't-1,t-2' });
    expect(c.targets.scan?.headers).toEqual({ 'X-Tenant': 't-1,t-2', 'X-Api-Key': 'k=v' });
    expect(c.targets.ledger?.auth).toEqual({ kind: 'static', tokens: { admin: 'tok-flag-1', user: 'tok-flag-2' } });
    expect(c.targets.scan?.auth).toEqual({ kind: 'static', tokens: { user: 'tok-flag-2' } });
    const printed = JSON.stringify(printableConfig(c));
    expect(printed).not.toMatch(/tok-flag-|t-1,t-2/);
    expect(redactText('Authorization: Bearer tok-flag-1')).not.toContain('tok-flag-1');
  });

  it('refuse a malformed value, an unknown interface, a target not configured, and a token beside another auth kind', () => {
    expect(errorOf(() => loadConfig({ env: {}, flags: { ledgerUrl: 'http://127.0.0.1:1', header: ['X-Api-Key'] } }))).toContain('expected [api:]NAME=VALUE');
    expect(errorOf(() => loadConfig({ env: {}, flags: { ledgerUrl: 'http://127.0.0.1:1', header: ['ledgr:X-Api-Key=v'] } }))).toContain('unknown interface "ledgr"');
    expect(errorOf(() => loadConfig({ env: {}, flags: { ledgerUrl: 'http://127.0.0.1:1', token: ['scan:admin=secret-x'] } }))).toContain('no scan target is configured');
    expect(errorOf(() => loadConfig({ env: {}, flags: { token: ['admin=secret-x'] } }))).toContain('no target is configured');
    const message = errorOf(() => loadConfig({ env: {}, flags: { ledgerUrl: 'http://127.0.0.1:1', token: ['admin='] } }));
    expect(message).toContain('the value is empty');
  });

  it('are sent to the target and printed nowhere (doctor)', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not here"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const child = spawn(process.execPath, [bin, 'doctor', '--ledger-url', url, '--header', 'ledger:X-Api-Key=hdr-secret-value-1', '--token', 'admin=tok-secret-value-2'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let all = '';
      child.stdout.on('data', (d: Buffer) => (all += d.toString()));
      child.stderr.on('data', (d: Buffer) => (all += d.toString()));
      const code = await new Promise<number | null>((r) => child.on('close', r));
      expect(code, all).toBe(2);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]!['x-api-key']).toBe('hdr-secret-value-1');
      expect(seen[0]!.authorization).toBe('Bearer tok-secret-value-2');
      expect(all).toContain('404');
      expect(all).not.toMatch(/secret-value/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
