/**
 * Values read from `${NAME}` in a configuration file are secrets: a target header value, a static
 * token and a fixture sent in a query, all from the environment, against a target that echoes every request header
 * and its URL into its bodies; no output file of the run nor its console lines hold any of them. The target URL, also
 * read from the environment, is no secret and stays readable, but an API key read from `${NAME}` into its query or
 * into a token URL's is. Settings the schema marks `x-secret` (header values, tokens, an HS256 secret, a client secret)
 * are secrets when written in the file as they are, too, in every thread of the run.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, markedSecrets, printableConfig } from '../../harness/config.js';
import { runConformance, type RunResult } from '../../harness/run/runner.js';
import { startMiniServer } from './mini-server.js';

const ENV_VALUES = {
  GATEWAY_KEY: 'env-gateway-key-5e1b-must-not-leak',
  READER_TOKEN: 'env-static-token-9c7d-must-not-leak',
  API_KEY: 'env-fixture-key-2a6f-must-not-leak',
  URL_KEY: 'env-url-query-key-7b3c/must+not=leak',
  TOKEN_URL_KEY: 'env-token-url-key-4d8e-must-not-leak',
};
/** values of settings marked x-secret, written in the file as they are */
const MARKED_VALUES = {
  header: 'literal-header-value-3f9a-must-not-leak',
  token: 'literal-static-token-6c2d-must-not-leak',
  hs256: 'literal-hs256-secret-8e4b-must-not-leak',
  clientSecret: 'literal-client-secret-1a7f-must-not-leak',
};
const SECRETS = [...Object.values(ENV_VALUES), ...Object.values(MARKED_VALUES), encodeURIComponent(ENV_VALUES.URL_KEY)];
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'mini');

describe('values read from ${ENV} in the config file', () => {
  let server: Awaited<ReturnType<typeof startMiniServer>>;
  let result: RunResult;
  let dir: string;
  let consoleText = '';

  beforeAll(async () => {
    server = await startMiniServer();
    dir = mkdtempSync(join(tmpdir(), 'cc-env-secrets-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      [
        'run: { only: [scan], html: true, compare: false, timeoutMs: 1000, checkTimeoutMs: 5000, runs: 3 }',
        'targets:',
        '  scan:',
        '    url: ${TARGET_URL}?api_key=${URL_KEY}',
        "    version: '2.0'",
        `    headers: { x-gateway: "\${GATEWAY_KEY}", x-literal: "${MARKED_VALUES.header}" }`,
        `    auth: { kind: static, tokens: { reader: "\${READER_TOKEN}", other: "${MARKED_VALUES.token}" } }`,
        '    fixtures: { apiKey: "key=${API_KEY}" }',
        // targets of interfaces this run does not check: only the configuration knows their secrets
        '  ledger:',
        '    url: ${TARGET_URL}',
        `    auth: { kind: hs256, secret: "${MARKED_VALUES.hs256}", users: { admin: participant_admin } }`,
        '  validator:',
        '    url: ${TARGET_URL}',
        `    auth: { kind: oauth2, tokenUrl: "\${TARGET_URL}/token?api_key=\${TOKEN_URL_KEY}", clients: { reader: { clientId: reader, clientSecret: "${MARKED_VALUES.clientSecret}" } } }`,
        '',
      ].join('\n'),
    );
    const config = loadConfig({ flags: { config: file, reportsDir: join(dir, 'reports') }, env: { ...ENV_VALUES, TARGET_URL: server.url } });
    config.internal = { specsDir: fixtures, catalogueDir: join(fixtures, 'requirements'), include: ['test/fixtures/mini/env-secrets/*.check.ts'] };
    result = await runConformance(config, { write: (s) => void (consoleText += s) });
    consoleText += JSON.stringify(printableConfig(config));
  }, 120_000);

  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ran the check that quotes the echoing target', () => {
    const check = result.report.checks.find((c) => c.id === 'e.echo-env');
    expect(check?.verdict).toBe('fail');
    const echoed = check?.failures?.[0]?.exchange?.response?.body ?? '';
    expect(echoed).toContain('"x-gateway":"<redacted>"');
    expect(echoed).toContain('"x-literal":"<redacted>"');
    expect(echoed).toContain(`"x-quoted":"<redacted> <redacted> ${server.url}/token?api_key=<redacted>"`);
    // the request body, echoed back: a JSON string inside a JSON string
    expect(echoed).toContain(`"body":"{\\"quoted\\":[\\"<redacted>\\",\\"<redacted>\\",\\"${server.url}/token?api_key=<redacted>\\"]}"`);
    expect(check?.failures?.[0]?.exchange?.request.body).toBe(`{"quoted":["<redacted>","<redacted>","${server.url}/token?api_key=<redacted>"]}`);
    // the whole URL is printed, the key from the environment replaced
    const url = check?.failures?.[0]?.exchange?.request.url ?? '';
    expect(url).toMatch(new RegExp(`^${server.url}/v0/items\\?api_key=<redacted>&`));
    // a query parameter named key is redacted whole by its name
    expect(url).toMatch(/[?&]key=<redacted>(&|$)/);
  });

  it('registers every value of a setting marked x-secret, from the schema', () => {
    const config = loadConfig({ flags: { config: join(dir, 'config.yaml') }, env: { ...ENV_VALUES, TARGET_URL: server.url } });
    for (const v of [...Object.values(MARKED_VALUES), ENV_VALUES.GATEWAY_KEY, ENV_VALUES.READER_TOKEN]) expect(config.secrets).toContain(v);
    expect(markedSecrets(config).sort()).toEqual([ENV_VALUES.GATEWAY_KEY, ENV_VALUES.READER_TOKEN, ...Object.values(MARKED_VALUES)].sort());
    // the printed configuration hides them whatever their length, and keeps the header names and roles
    const printed = printableConfig({ ...config, targets: { scan: { ...config.targets.scan!, headers: { 'x-short': 'abc' }, auth: { kind: 'static', tokens: { reader: 'xyz' } } } } }) as { targets: { scan: { headers: unknown; auth: unknown } } };
    expect(printed.targets.scan.headers).toEqual({ 'x-short': '<redacted>' });
    expect(printed.targets.scan.auth).toEqual({ kind: 'static', tokens: { reader: '<redacted>' } });
    // the URL read from the environment is no secret, the key in its query is
    expect(config.secrets).not.toContain(server.url);
    expect(config.secrets).toContain(ENV_VALUES.URL_KEY);
    expect(config.secrets).toContain(ENV_VALUES.TOKEN_URL_KEY);
  });

  it('takes the query values of a whole URL read from one variable as secrets, not its address', () => {
    const file = join(dir, 'whole-url.yaml');
    writeFileSync(file, 'run:\n  alsoValidateAgainst: { scan: "${DOC_URL}" }\ntargets:\n  scan:\n    url: ${SCAN_URL}\n');
    const config = loadConfig({ flags: { config: file }, env: { SCAN_URL: 'https://scan.example:8443/api?api_key=whole-url-key-0b1c&tenant=acme-corp', DOC_URL: 'https://docs.example/scan.yaml?token=doc-url-token-9f3e' } });
    expect(config.secrets).toContain('whole-url-key-0b1c');
    expect(config.secrets).toContain('doc-url-token-9f3e');
    expect(config.secrets).toContain('acme-corp');
    expect(config.secrets?.some((s) => s.includes('scan.example'))).toBe(false);
    // by position: the scheme, host and path read from the environment are no secrets, the userinfo's password is
    writeFileSync(file, 'targets:\n  scan:\n    url: ${SCHEME}://reader:${PASSWORD}@${HOST}/${TENANT}/api\n');
    const parts = loadConfig({ flags: { config: file }, env: { SCHEME: 'https', PASSWORD: 'userinfo-pass-5d2e', HOST: 'scan.example', TENANT: 'tenant-one' } });
    expect(parts.secrets).toEqual(['userinfo-pass-5d2e']);
  });

  it('writes none of them into any report file (Allure results and HTML included) nor on the console', () => {
    const files = readdirSync(result.dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
    expect(files.some((f) => f.endsWith('summary.md'))).toBe(true);
    expect(files.some((f) => f.includes('allure-results'))).toBe(true);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const v of SECRETS) expect(text.includes(v), `${v} in ${f}`).toBe(false);
    }
    for (const v of SECRETS) expect(consoleText.includes(v), `${v} on the console`).toBe(false);
    // the URL, read from the environment too, is no secret
    expect(readFileSync(join(result.dir, 'conformance.json'), 'utf8')).toContain(server.url);
  });
});
