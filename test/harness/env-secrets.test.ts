/**
 * Values read from `${NAME}` in a configuration file are secrets (issue 12 item 5): a target header value, a static
 * token and a fixture sent in a query, all from the environment, against a target that echoes every request header
 * and its URL into its bodies; no output file of the run nor its console lines hold any of them. The target URL, also
 * read from the environment, is no secret and stays readable.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, printableConfig } from '../../harness/config.js';
import { runConformance, type RunResult } from '../../harness/runner.js';
import { startMiniServer } from './mini-server.js';

const ENV_VALUES = { GATEWAY_KEY: 'env-gateway-key-5e1b-must-not-leak', READER_TOKEN: 'env-static-token-9c7d-must-not-leak', API_KEY: 'env-fixture-key-2a6f-must-not-leak' };
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
        '    url: ${TARGET_URL}',
        "    version: '2.0'",
        '    headers: { x-gateway: "${GATEWAY_KEY}" }',
        '    auth: { kind: static, tokens: { reader: "${READER_TOKEN}" } }',
        '    fixtures: { apiKey: "key=${API_KEY}" }',
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
    expect(check?.failures?.[0]?.exchange?.request.url).toContain('key=key%3D<redacted>');
  });

  it('writes none of them into any report file (Allure results and HTML included) nor on the console', () => {
    const files = readdirSync(result.dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
    expect(files.some((f) => f.endsWith('summary.md'))).toBe(true);
    expect(files.some((f) => f.includes('allure-results'))).toBe(true);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const v of Object.values(ENV_VALUES)) expect(text.includes(v), `${v} in ${f}`).toBe(false);
    }
    for (const v of Object.values(ENV_VALUES)) expect(consoleText.includes(v), `${v} on the console`).toBe(false);
    // the URL, read from the environment too, is no secret
    expect(readFileSync(join(result.dir, 'conformance.json'), 'utf8')).toContain(server.url);
  });
});
