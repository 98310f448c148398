/**
 * Every configured secret is redacted everywhere: values of a target's `headers`, credentials inside a target URL or
 * an OAuth2 tokenUrl, client secrets and fetched tokens, against a target that echoes every request header into its
 * response bodies. Every output file of the run (conformance.json, summary.md, junit.xml, Allure results) and the
 * console are searched for each secret.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, printableConfig, type Config } from '../../harness/config.js';
import { redactText } from '../../harness/transport/redact.js';
import { runConformance, type RunResult } from '../../harness/run/runner.js';
import { startMiniServer } from './mini-server.js';
import { cleanup, freePort, spawnCli, tempDir } from '../robustness/harness.js';

const HEADER_SECRET = 'gateway-key-7f3a9c-must-not-leak';
const URL_PASSWORD = 'url-password-b81d-must-not-leak';
const TOKEN_URL_PASSWORD = 'token-url-password-c42e-must-not-leak';
const CLIENT_SECRET = 'client-secret-d93f-must-not-leak';
const ACCESS_TOKEN = 'opaque-oauth-access-token-1234';
/** a gateway key with the characters JSON and percent-encoding write otherwise: a target echoes it encoded */
const GATEWAY_KEY = 'gw/key+e07b/must-not-leak==';
const GATEWAY_KEY_FORMS = [
  'gw\\/key+e07b\\/must-not-leak==',
  'gw\\u002Fkey\\u002Be07b\\u002Fmust-not-leak\\u003D\\u003D',
  encodeURIComponent(GATEWAY_KEY),
  encodeURIComponent(GATEWAY_KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  // the part between its encoded characters, in whatever form
  'must-not-leak',
];
const SECRETS = [HEADER_SECRET, URL_PASSWORD, TOKEN_URL_PASSWORD, CLIENT_SECRET, ACCESS_TOKEN, 'urluser', 'tokuser', GATEWAY_KEY, ...GATEWAY_KEY_FORMS];
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'mini');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
}

function leaks(text: string): string[] {
  return SECRETS.filter((s) => text.includes(s));
}

describe('secrets in a target that echoes request headers', () => {
  let server: Awaited<ReturnType<typeof startMiniServer>>;
  let result: RunResult;
  let reports: string;
  let consoleText = '';

  beforeAll(async () => {
    server = await startMiniServer();
    reports = mkdtempSync(join(tmpdir(), 'cc-secrets-'));
    const withUser = (user: string, password: string) => server.url.replace('http://', `http://${user}:${password}@`);
    const config: Config = {
      run: { ...DEFAULT_RUN, only: ['scan'], reportsDir: reports, html: false, timeoutMs: 1500, checkTimeoutMs: 8000, runs: 5, seed: 7 },
      targets: {
        scan: {
          url: withUser('urluser', URL_PASSWORD),
          version: '2.0',
          auth: {
            kind: 'oauth2',
            tokenUrl: `${withUser('tokuser', TOKEN_URL_PASSWORD)}/token`,
            clients: { reader: { clientId: 'reader', clientSecret: CLIENT_SECRET }, broken: { clientId: 'broken', clientSecret: CLIENT_SECRET } },
          },
          features: {},
          fixtures: {},
          disabledRequirements: [],
          headers: { 'x-auth-token': HEADER_SECRET, 'x-gateway-key': GATEWAY_KEY },
        },
      },
      reference: { faults: [] },
      useReference: false,
      sources: ['test'],
      internal: { specsDir: fixtures, catalogueDir: join(fixtures, 'requirements'), include: ['test/fixtures/mini/secrets/*.check.ts'] },
    };
    // the configuration as it reaches the workers: built here, never passed through loadConfig (as the self-test does)
    result = await runConformance(config, { write: (s) => void (consoleText += s) });
  }, 60_000);

  afterAll(async () => {
    await server.close();
    rmSync(reports, { recursive: true, force: true });
    await cleanup();
  });

  const check = (id: string) => result.report.checks.find((c) => c.id === id);

  it('ran the checks that quote the echoing target', () => {
    expect(check('s.echo-fail')?.verdict).toBe('fail');
    expect(check('s.echo-schema')?.verdict).toBe('error');
    expect(check('s.echo-skip')?.verdict).toBe('skipped');
    expect(check('s.token-refused')?.verdict).toBe('error');
    expect(check('s.token-refused')?.error).toContain(`http://<redacted>@127.0.0.1`);
    expect(check('s.timeout')?.verdict).toBe('error');
    // the target did echo the header: the recorded body shows where it was, redacted
    const echoed = check('s.echo-fail')?.failures?.[0]?.exchange?.response?.body ?? '';
    expect(echoed).toContain('"x-auth-token":"<redacted>"');
    expect(echoed).toContain('"authorization":"Bearer <redacted>"');
    // and echoed it encoded: each form redacted where it stood
    expect(check('s.echo-encoded')?.verdict).toBe('fail');
    const encoded = check('s.echo-encoded')?.failures?.[0]?.exchange?.response?.body ?? '';
    expect(encoded).toContain('"x-gateway-key":"<redacted>"');
    expect(encoded).toContain('x-gateway-key%22%3A%22<redacted>%22');
    expect(encoded).toContain('x-gateway-key%22%3a%22<redacted>%22');
  });

  it('writes no configured secret into any report file, nor on the console', () => {
    const files = filesUnder(result.dir);
    expect(files.some((f) => f.includes('allure-results'))).toBe(true);
    expect(files.some((f) => f.endsWith('junit.xml'))).toBe(true);
    for (const f of files) expect(leaks(readFileSync(f, 'utf8')), f).toEqual([]);
    expect(leaks(consoleText)).toEqual([]);
    const report = readFileSync(join(result.dir, 'conformance.json'), 'utf8');
    expect(report).toContain('http://<redacted>@127.0.0.1');
  });

  it('redacts URL credentials by shape and by value, the scheme and host kept', () => {
    expect(redactText('GET http://alice:s3cr%40t@host:1/x and https://tok@h/y')).toBe('GET http://<redacted>@host:1/x and https://<redacted>@h/y');
    expect(redactText('mail alice@example.com, http://host/a@b')).toBe('mail alice@example.com, http://host/a@b');
    const printed = JSON.stringify(printableConfig({ run: DEFAULT_RUN, targets: { ledger: { url: 'http://u:p4ssw0rd@h', auth: { kind: 'oauth2', tokenUrl: 'https://c:zz-secret@idp/t', clients: {} }, features: {}, fixtures: {}, disabledRequirements: [], headers: {} } }, reference: { faults: [] }, useReference: false, sources: [] }));
    expect(printed).not.toContain('p4ssw0rd');
    expect(printed).not.toContain('zz-secret');
  });

  it('keeps credentials of a --scan-url out of stderr, stdout and every report file of a CLI run', async () => {
    // a port nothing listens on: every request is refused, and the error names the URL
    const port = await freePort();
    const dir = tempDir('secrets-cli');
    // the preflight stops at the refused connection (exit 2), naming the URL
    const stopped = await spawnCli(
      ['run', '--scan-url', `http://urluser:${URL_PASSWORD}@127.0.0.1:${port}`, '--only', 'scan', '--timeout-ms', '300', '--no-html', '--no-compare', '--reports-dir', 'out'],
      { cwd: dir, limitMs: 60_000 },
    );
    expect(stopped.code).toBe(2);
    expect(stopped.err).toContain('http://<redacted>@127.0.0.1');
    expect(leaks(stopped.out + stopped.err)).toEqual([]);
    // past the preflight, the run's own errors name it in the console and the reports
    writeFileSync(join(dir, 'url.yaml'), `targets: { scan: { url: "http://urluser:${URL_PASSWORD}@127.0.0.1:${port}", version: "0.8.0" } }\n`);
    const r = await spawnCli(
      ['run', '--config', 'url.yaml', '--no-preflight', '--only', 'scan', '--requirement', 'scan.get-event-by-id.response-schema', '--timeout-ms', '300', '--no-html', '--no-compare', '--reports-dir', 'out'],
      { cwd: dir, limitMs: 60_000 },
    );
    expect(r.killed).toBe(false);
    expect(r.code).toBe(3);
    expect(r.err).toContain('http://<redacted>@127.0.0.1');
    expect(leaks(r.out + r.err)).toEqual([]);
    const files = filesUnder(join(dir, 'out'));
    expect(files.some((f) => f.endsWith('conformance.json'))).toBe(true);
    for (const f of files) expect(leaks(readFileSync(f, 'utf8')), f).toEqual([]);
  }, 60_000);
});
