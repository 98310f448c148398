/**
 * The preflight (harness/setup/preflight.ts) against loopback servers: the embedded reference (clean, and with settings a
 * new user gets wrong), a web front page answering HTML to everything, a port where nothing listens.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, targetsFromBlock, type Config, type TargetConfig } from '../../harness/config.js';
import { preflight, numericVersion, versionsAgree } from '../../harness/setup/preflight.js';
import { startReference, type ReferenceServer } from '../../reference/index.js';
import type { Api } from '../../harness/types.js';
import { freePort } from '../robustness/harness.js';

let server: ReferenceServer;
let html: Server;
let htmlUrl: string;
let gateway: Server;
let gatewayUrl: string;

beforeAll(async () => {
  server = await startReference();
  // a web front page: 200 text/html whatever the path
  html = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html><body>Welcome</body></html>');
  });
  await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
  htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
  // an authenticating gateway: 401 to every request without its key
  gateway = createServer((req, res) => {
    if (req.headers['x-api-key'] === 'gateway-key') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"version":"0.8.0","commit_ts":"2025-06-02T09:30:00Z"}');
    }
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end('{"error":"unauthorized"}');
  });
  await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server.close();
  for (const s of [html, gateway]) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

/** The reference's own targets (as `serve --write-config` writes them), each changed by `edit`. */
function configOf(edit: (t: Partial<Record<Api, TargetConfig>>) => void, only: Api[] = ['ledger', 'scan', 'validator', 'registry']): Config {
  const targets = targetsFromBlock(server.targetConfig(), 'test');
  edit(targets);
  return { run: { ...DEFAULT_RUN, only, timeoutMs: 4000 }, targets, reference: { faults: [] }, useReference: false, sources: ['test'] } as Config;
}


describe('preflight', () => {
  it('passes on the embedded reference, and reads the ledger and scan versions from the targets', async () => {
    const config = configOf((t) => {
      delete t.ledger!.version;
      delete t.scan!.version;
    });
    const r = await preflight(config);
    expect(r.problems).toEqual([]);
    expect(r.targets.map((t) => t.api)).toEqual(['ledger', 'scan', 'validator', 'registry']);
    // read, not assumed: the run judges the version-bound rules against these
    expect(config.targets.ledger!.version).toBe(server.options.ledgerVersion);
    expect(config.targets.scan!.version).toBe(server.options.scanVersion);
    expect(r.targets.find((t) => t.api === 'scan')!.version).toEqual({ version: server.options.scanVersion, from: 'target' });
  });

  it('names an HTML front page as a wrong base URL, on every interface', async () => {
    const config = configOf((t) => {
      for (const api of ['ledger', 'scan', 'validator', 'registry'] as const) t[api]!.url = htmlUrl;
    });
    const r = await preflight(config);
    expect(r.problems.length).toBeGreaterThanOrEqual(4);
    for (const api of ['ledger', 'scan', 'validator', 'registry']) {
      expect(r.problems.find((p) => p.startsWith(`${api}: `)), api).toMatch(/text\/html.*is http:\/\/127\.0\.0\.1:\d+ the .*base URL/);
    }
  });

  it('names a 404 on the read as a wrong base URL', async () => {
    const config = configOf((t) => void (t.ledger!.url = `${t.ledger!.url}/v2`), ['ledger']);
    const r = await preflight(config);
    expect(r.problems).toEqual([expect.stringMatching(/^ledger: GET \/v2\/version answered 404 .*is http:\/\/127\.0\.0\.1:\d+\/v2 the JSON Ledger API's base URL/)]);
  });

  it('names a registry URL where no registry route is served (a 404 without the registry\'s JSON error)', async () => {
    // a Splice app's HTTP framework answers a path no route serves with a text/plain 404 (FACTS.md)
    const noRoute = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=UTF-8' });
      res.end('The requested resource could not be found.');
    });
    await new Promise<void>((r) => noRoute.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(noRoute.address() as AddressInfo).port}/api/scan`;
      const r = await preflight(configOf((t) => void (t.registry!.url = url), ['registry']));
      expect(r.problems).toEqual([expect.stringMatching(/^registry: POST a transfer-instruction withdraw context for an unknown id answered 404 with text\/plain, not the API's JSON: is http:\/\/127\.0\.0\.1:\d+\/api\/scan the token registry API's base URL/)]);
    } finally {
      noRoute.closeAllConnections();
      await new Promise<void>((r) => noRoute.close(() => r()));
    }
  });

  it('names a refused token with the setting to check, and a missing one as missing, not refused', async () => {
    const wrong = await preflight(configOf((t) => {
      t.ledger!.auth = { kind: 'hs256', secret: 'not-the-secret', users: { admin: server.auth.adminUser } };
      t.validator!.auth = { kind: 'static', tokens: { user: 'not-a-token' } };
    }));
    expect(wrong.problems).toContain('ledger: the admin token was refused on GET /v2/version (401): check targets.ledger.auth (role "admin")');
    expect(wrong.problems.some((p) => /^validator: the user token was refused on GET \/v0\/entry\/all \((401|403)\): check targets\.validator\.auth/.test(p))).toBe(true);

    const none = await preflight(configOf((t) => {
      t.ledger!.auth = { kind: 'none' };
      t.validator!.auth = { kind: 'none' };
    }));
    // the ledger can run nothing without its admin token: a problem; the validator still has checks that need none
    expect(none.problems).toEqual([expect.stringMatching(/^ledger: targets\.ledger\.auth is "none": no credential for role "admin": every ledger check needs/)]);
    expect(none.problems.join('\n')).not.toMatch(/refused/);
    const validator = none.targets.find((t) => t.api === 'validator')!;
    expect(validator.findings.filter((f) => f.kind === 'skip').map((f) => f.text).join('\n')).toMatch(/no credential for role "user".*skipped/);
  });

  it('names a gateway that refuses the scan without its key, and passes with the key in headers', async () => {
    const refused = await preflight(configOf((t) => void (t.scan!.url = gatewayUrl), ['scan']));
    expect(refused.problems).toEqual(['scan: GET /version was refused (401) without a credential: the target asks for one (the suite sends the Scan API no bearer token: a gateway\'s key goes in targets.scan.headers)']);
    const passed = await preflight(configOf((t) => {
      t.scan!.url = gatewayUrl;
      t.scan!.headers = { 'x-api-key': 'gateway-key' };
    }, ['scan']));
    expect(passed.problems).toEqual([]);
  });

  it('asks the validator and the registry for a version (no endpoint says it), with an example', async () => {
    const r = await preflight(configOf((t) => {
      delete t.validator!.version;
      delete t.registry!.version;
    }));
    expect(r.problems).toEqual([
      expect.stringMatching(/^validator: targets\.validator\.version is not set.*e\.g\. add version: "\d+\.\d+\.\d+" under targets\.validator/),
      expect.stringMatching(/^registry: targets\.registry\.version is not set.*e\.g\. add version: "\d+\.\d+\.\d+" under targets\.registry/),
    ]);
  });

  it('names a configured version that disagrees with the one the target reports', async () => {
    const r = await preflight(configOf((t) => {
      t.ledger!.version = '3.4';
      t.scan!.version = '0.7.0';
    }));
    expect(r.problems).toEqual([
      `ledger: targets.ledger.version is "3.4", but GET /v2/version says "${server.options.ledgerVersion}.0": correct the setting, or remove it (the version is read from the target)`,
      `scan: targets.scan.version is "0.7.0", but GET /version says "${server.options.scanVersion}": correct the setting, or remove it (the version is read from the target)`,
    ]);
  });

  it('a participant that names no version needs targets.ledger.version, which the run then uses (and judges the missing field)', async () => {
    const faulty = await startReference({ faults: ['ledger-get-version-version-missing'] });
    try {
      const targets = targetsFromBlock(faulty.targetConfig(), 'test');
      const config = (version: string | undefined) => {
        const t = structuredClone(targets);
        if (version === undefined) delete t.ledger!.version;
        else t.ledger!.version = version;
        return { run: { ...DEFAULT_RUN, only: ['ledger'], timeoutMs: 4000 }, targets: t, reference: { faults: [] }, useReference: false, sources: ['test'] } as Config;
      };
      const unknown = await preflight(config(undefined));
      expect(unknown.problems).toEqual([expect.stringMatching(/^ledger: the ledger's version is unknown: GET \/v2\/version answers no version field \(which the API requires.*\), and targets\.ledger\.version is not set \(e\.g\. add version: "3\.5" under targets\.ledger\); no version is assumed$/)]);
      const configured = await preflight(config('3.5'));
      expect(configured.problems).toEqual([]);
      expect(configured.targets[0]!.version).toEqual({ version: '3.5', from: 'configuration' });
    } finally {
      await faulty.close();
    }
  });

  it('names a fixture file that does not exist, by its setting', async () => {
    const r = await preflight(configOf((t) => void (t.ledger!.fixtures.darFile2 = 'no/such/file.dar'), ['ledger']));
    expect(r.problems).toEqual([expect.stringMatching(/^ledger: targets\.ledger\.fixtures\.darFile2: the file no\/such\/file\.dar .*does not exist$/)]);
  });

  it('names every unreachable target at once, with the transport error', async () => {
    const port = await freePort();
    const r = await preflight(configOf((t) => {
      t.ledger!.url = `http://127.0.0.1:${port}`;
      t.scan!.url = `http://127.0.0.1:${port}/api/scan`;
    }, ['ledger', 'scan']));
    expect(r.problems).toHaveLength(2);
    for (const p of r.problems) expect(p).toMatch(/no answer from .*connection refused/);
  });
});

describe('versions a target reports', () => {
  it('are read by their leading numeric parts and agree with a configured prefix', () => {
    expect(numericVersion('3.5.2')).toBe('3.5.2');
    expect(numericVersion('3.5.0-SNAPSHOT.20261101.7')).toBe('3.5.0');
    expect(numericVersion('dev')).toBeUndefined();
    expect(versionsAgree('3.5', '3.5.2')).toBe(true);
    expect(versionsAgree('0.8.0', '0.8')).toBe(true);
    expect(versionsAgree('3.4', '3.5.0')).toBe(false);
    expect(versionsAgree('0.8.0', '0.8.1')).toBe(false);
  });
});
