import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN, loadConfig, printableConfig, targetsFromBlock } from '../../harness/config.js';
import { errorOf } from './config-error.js';
import { redactText } from '../../harness/transport/redact.js';

const dir = mkdtempSync(join(tmpdir(), 'cc-config-'));
function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}
const load = (flags = {}, env = {}) => loadConfig({ flags, env });

describe('configuration', () => {
  it('defaults to the embedded reference server with a fixed seed', () => {
    const c = load();
    expect(c.useReference).toBe(true);
    expect(c.run).toEqual(DEFAULT_RUN);
  });

  it('reads a YAML file with per-interface settings', () => {
    const p = file('ok.yaml', `
run: { seed: 9, runs: 5 }
targets:
  ledger:
    url: http://127.0.0.1:7575/
    version: "3.4"
    auth: { kind: hs256, secret: s3cret-value, users: { admin: participant_admin } }
    features: { trafficEnforcement: false }
    fixtures: { synchronizerId: "sync::1" }
`);
    const c = load({ config: p });
    expect(c.useReference).toBe(false);
    expect(c.run.seed).toBe(9);
    expect(c.targets.ledger).toMatchObject({ url: 'http://127.0.0.1:7575', version: '3.4', features: { trafficEnforcement: false } });
  });

  it('applies file, then environment, then flags', () => {
    const p = file('prec.yaml', 'run: { seed: 1, runs: 3 }\ntargets: { scan: { url: "http://127.0.0.1:1" } }\n');
    const c = load({ config: p, seed: '3' }, { CONFORMANCE_SEED: '2', CONFORMANCE_RUNS: '8', CONFORMANCE_SCAN_URL: 'http://127.0.0.1:2' });
    expect(c.run.seed).toBe(3);
    expect(c.run.runs).toBe(8);
    expect(c.targets.scan?.url).toBe('http://127.0.0.1:2');
  });

  it('expands ${VAR} from the environment so secrets stay out of files', () => {
    const p = file('env.yaml', 'targets: { ledger: { url: "http://127.0.0.1:1", auth: { kind: static, tokens: { admin: "${LEDGER_TOKEN}" } } } }\n');
    expect(load({ config: p }, { LEDGER_TOKEN: 'abcdefgh' }).targets.ledger?.auth).toEqual({ kind: 'static', tokens: { admin: 'abcdefgh' } });
    expect(errorOf(() => load({ config: p }, {}))).toContain('environment variable LEDGER_TOKEN is not set');
  });

  it.each([
    ['a URL that is not http', 'targets: { ledger: { url: "ftp://x" } }', 'targets.ledger.url'],
    ['an unknown setting', 'run: { sede: 3 }', 'unknown setting "sede"'],
    ['a wrong type', 'run: { runs: "many" }', 'run.runs: must be integer'],
    ['a missing url', 'targets: { scan: { version: "0.7.0" } }', 'missing required setting "url"'],
    ['an unknown auth kind', 'targets: { scan: { url: "http://127.0.0.1:1", auth: { kind: magic } } }', 'auth.kind must be one of'],
    ['hs256 without a secret', 'targets: { scan: { url: "http://127.0.0.1:1", auth: { kind: hs256, users: { a: b } } } }', 'missing required setting "secret"'],
    ['an unknown interface in only', 'run: { only: [ledger, ftp] }', 'run.only.1'],
  ])('names the bad field for %s', (_, yaml, fragment) => {
    expect(errorOf(() => load({ config: file('bad.yaml', yaml) }))).toContain(fragment);
  });

  it('rejects a file that does not parse, or does not exist, with a clear message', () => {
    expect(errorOf(() => load({ config: file('broken.yaml', 'run: [unclosed') }))).toContain('does not parse');
    expect(errorOf(() => load({ config: join(dir, 'missing.yaml') }))).toContain('cannot read config file');
    expect(errorOf(() => load({ config: file('list.yaml', '- a\n- b\n') }))).toContain('must be a mapping');
  });

  it('rejects bad flag values naming the flag, and bad environment values naming the variable', () => {
    expect(errorOf(() => load({ seed: 'abc' }))).toContain('flag --seed');
    expect(errorOf(() => load({}, { CONFORMANCE_RUNS: '1.5' }))).toContain('CONFORMANCE_RUNS');
    expect(errorOf(() => load({ only: 'ledger,nope' }))).toContain('unknown interface nope');
    expect(errorOf(() => load({ ledgerUrl: 'not a url' }))).toContain('targets.ledger.url');
  });

  it('takes a reference variant from the file or --reference-variant, and a generated targets block like a file\'s', async () => {
    expect(load().reference.variant).toBeUndefined();
    expect(load({ referenceVariant: '7' }).reference.variant).toBe(7);
    expect(loadConfig({ flags: { config: file('variant.yaml', 'reference:\n  variant: 12\n') }, env: {} }).reference.variant).toBe(12);
    expect(errorOf(() => load({ referenceVariant: 'seven' }))).toContain('flag --reference-variant');
    expect(errorOf(() => loadConfig({ flags: { config: file('bad-variant.yaml', 'reference:\n  variant: -1\n') }, env: {} }))).toContain('reference.variant');
    const targets = targetsFromBlock({ scan: { url: 'http://127.0.0.1:1/api/scan/' } }, 'a test');
    expect(targets.scan).toMatchObject({ url: 'http://127.0.0.1:1/api/scan', auth: { kind: 'none' }, fixtures: {}, disabledRequirements: [] });
    expect(errorOf(() => targetsFromBlock({ scan: { url: 'nope' } }, 'a test'))).toContain('a test');
  });

  it('prints no secret', () => {
    const p = file('secrets.yaml', `
targets:
  ledger: { url: "http://127.0.0.1:1", auth: { kind: hs256, secret: "top-secret-1", users: { admin: adm } } }
  scan: { url: "http://127.0.0.1:2", auth: { kind: oauth2, tokenUrl: "http://127.0.0.1:3/token", clients: { reader: { clientId: id1, clientSecret: "top-secret-2" } } } }
  validator: { url: "http://127.0.0.1:4", auth: { kind: static, tokens: { user: "top-secret-3" } } }
  registry: { url: "http://127.0.0.1:5", headers: { X-Auth-Token: "top-secret-4", X-Tenant: "t1" } }
`);
    const config = load({ config: p });
    const text = JSON.stringify(printableConfig(config));
    expect(text).not.toMatch(/top-secret|"t1"/);
    expect(text).toContain('"X-Auth-Token":"<redacted>"');
    // a header value is a secret everywhere, not only in the printed config
    expect(redactText('curl -H "X-Auth-Token: top-secret-4"')).not.toContain('top-secret-4');
    expect(text).toContain('adm');
    expect(text).toContain('"user":"<redacted>"');
  });
});

describe('shipped example files', () => {
  it('conformance.config.example.yaml is a valid configuration', async () => {
    const { PACKAGE_ROOT } = await import('../../harness/paths.js');
    const env = { LEDGER_JWT_SECRET: 'x-secret', VALIDATOR_USER_TOKEN: 'x-token', REGISTRY_CLIENT_SECRET: 'x-client' };
    const c = loadConfig({ flags: { config: join(PACKAGE_ROOT, 'conformance.config.example.yaml') }, env });
    expect(Object.keys(c.targets)).toEqual(['ledger', 'scan', 'validator', 'registry']);
  });

  it('conformance.baseline.example.yaml names catalogue requirements', async () => {
    const { PACKAGE_ROOT } = await import('../../harness/paths.js');
    const { loadBaseline } = await import('../../harness/reporting/baseline.js');
    const { loadCatalogue } = await import('../../harness/judging/catalogue.js');
    expect(loadBaseline(join(PACKAGE_ROOT, 'conformance.baseline.example.yaml'), loadCatalogue()).length).toBeGreaterThan(0);
  });
});
