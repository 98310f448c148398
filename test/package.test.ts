/**
 * The package installs and runs by itself: `npm pack` holds what a user runs and none of the project's own tests, CI
 * or fixtures; the tarball, installed into an empty project with the versions of this project's lockfile, answers
 * `npx canton-conformance list` and passes a small `run --only validator` against its embedded reference.
 *
 * The install uses npm's cache (`--prefer-offline`): after `npm ci` of this project every tarball it needs is there,
 * so nothing but a missing entry goes to the registry. Every step is bounded in time.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from '../harness/paths.js';
import { shellCommands } from './ci-commands.js';

type Json = Record<string, unknown>;
interface LockEntry {
  version?: string;
  dev?: boolean;
  devOptional?: boolean;
  [k: string]: unknown;
}

const INSTALL_MS = 180_000;
const RUN_MS = 120_000;
const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as Json & { name: string; version: string; dependencies: Record<string, string>; overrides?: Json; bin: Json; engines: Json; license: string };
const lock = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package-lock.json'), 'utf8')) as { lockfileVersion: number; packages: Record<string, LockEntry> };

/** npm's own variables of the `npm test` that started us would steer the child npm (its prefix, its script) */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  for (const k of Object.keys(env)) if (/^npm_(lifecycle_|package_|config_(prefix|global|local_prefix|workspace))/i.test(k)) delete env[k];
  return env;
}

function sh(cmd: string, args: string[], cwd: string, timeout: number, extraEnv: NodeJS.ProcessEnv = {}) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, killSignal: 'SIGKILL', env: { ...childEnv(), ...extraEnv }, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, signal: r.signal, out: r.stdout ?? '', err: r.stderr ?? '', ms: Date.now() - started, error: r.error };
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/**
 * A lockfile for a project whose one dependency is the tarball: every package this project's lockfile installs for
 * production (dev-only entries left out) at the same path and version, so the install resolves nothing anew.
 */
export function consumerLock(tarball: string, integrity: string): Json {
  const packages: Record<string, Json> = {
    '': { name: 'vendor-app', dependencies: { [pkg.name]: `file:${tarball}` } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: `file:${tarball}`,
      integrity,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || entry.devOptional === true) continue;
    packages[path] = entry;
  }
  return { name: 'vendor-app', lockfileVersion: lock.lockfileVersion, requires: true, packages };
}

let dir: string;
let packed: { filename: string; integrity: string; files: Array<{ path: string }>; entryCount: number; size: number };
let app: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cc-package-'));
  // --ignore-scripts: `prepare` builds the CLI bundle into this checkout's node_modules/.cache, which the tarball
  // does not hold; the installed package builds its own on its first start
  const r = sh(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], PACKAGE_ROOT, 60_000);
  if (r.code !== 0) throw new Error(`npm pack failed (${r.code ?? r.signal}): ${r.err}`);
  packed = (JSON.parse(r.out) as (typeof packed)[])[0]!;
}, 90_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('holds what a user runs: the CLI, harness, suites, generators, reference, specs, examples and docs', () => {
    const files = new Set(packed.files.map((f) => f.path));
    for (const f of [
      'package.json',
      'README.md',
      'bin/canton-conformance.mjs',
      'bin/build.mjs',
      'harness/cli.ts',
      'harness/config.schema.json',
      'reference/known-gaps.yaml',
      'specs/ledger.yaml',
      'specs/requirements/ledger.yaml',
      'tsconfig.json',
      'conformance.config.example.yaml',
      'conformance.baseline.example.yaml',
      'docs/ci/github-actions.yml',
      'docs/configuration.md',
      'CHANGELOG.md',
    ]) expect(files, f).toContain(f);
    expect([...files].some((f) => f.startsWith('suites/validator/'))).toBe(true);
    expect([...files].some((f) => f.startsWith('generators/'))).toBe(true);
  });

  it('holds none of the project’s own tests, CI, scripts, fixtures or reports', () => {
    const unwanted = packed.files.map((f) => f.path).filter((f) => /^(test|\.ci|scripts|reports|node_modules|\.git|specs\/mutation-triage)\//.test(f) || f === 'vitest.config.ts' || f.startsWith('.'));
    expect(unwanted).toEqual([]);
    expect(packed.entryCount).toBeLessThan(300);
  });
});

describe('the tarball installed into an empty project', () => {
  beforeAll(() => {
    app = join(dir, 'app');
    mkdirSync(app);
    const tarball = `../${packed.filename}`;
    const manifest: Json = { name: 'vendor-app', version: '1.0.0', private: true, dependencies: { [pkg.name]: `file:${tarball}` } };
    // the same overrides as this project (an override applies only from the root project)
    if (pkg.overrides !== undefined) manifest.overrides = pkg.overrides;
    writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(app, 'package-lock.json'), `${JSON.stringify(consumerLock(tarball, packed.integrity), null, 2)}\n`);
    const r = sh(npm, ['ci', '--prefer-offline', '--no-audit', '--no-fund'], app, INSTALL_MS);
    if (r.code !== 0) throw new Error(`npm ci of the tarball failed (${r.code ?? r.signal} after ${r.ms} ms): ${r.error?.message ?? ''}\n${r.err}`);
  }, INSTALL_MS + 10_000);

  it('installs the lockfile’s versions', () => {
    for (const name of Object.keys(pkg.dependencies)) {
      const installed = JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
      expect(installed.version, name).toBe(lock.packages[`node_modules/${name}`]?.version);
    }
    expect(existsSync(join(app, 'node_modules', pkg.name, 'test'))).toBe(false);
  });

  it('lists the catalogue with npx canton-conformance list', () => {
    const r = sh(npx, ['--no-install', 'canton-conformance', 'list'], app, RUN_MS);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('validator.list-owned-ans-entries');
  }, RUN_MS + 10_000);

  it('passes run --only validator against the embedded reference, reports in the project', () => {
    const r = sh(npx, ['--no-install', 'canton-conformance', 'run', '--only', 'validator', '--no-html', '--reports-dir', 'reports'], app, RUN_MS);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.code, `${r.out}\n${r.err}`).toBe(0);
    const result = JSON.parse(readFileSync(join(app, 'reports', 'latest', 'conformance.json'), 'utf8')) as { exitCode: number; counts: Record<string, { ALL: { pass: number } }> };
    expect(result.exitCode).toBe(0);
    expect(result.counts.validator?.ALL.pass).toBeGreaterThan(0);
  }, RUN_MS + 10_000);
});

describe('the CI examples in the project that installed the tarball', () => {
  // the commands exactly as the examples write them, the CI's placeholders filled in; CONFORMANCE_ONLY keeps it short
  const env = { CONFORMANCE_ONLY: 'validator' };
  const suiteCommands = (scripts: string[], vars: Record<string, string>) =>
    scripts
      .map((s) => Object.entries(vars).reduce((t, [k, v]) => t.split(k).join(v), s))
      .flatMap((s) => shellCommands(s))
      .filter((c) => c[0] === 'npx' && c.includes('canton-conformance'));
  /** a shell's expansion of `dir/*` */
  const glob = (words: string[], cwd: string) =>
    words.flatMap((w) => (w.endsWith('/*') ? readdirSync(join(cwd, w.slice(0, -2))).sort().map((f) => `${w.slice(0, -1)}${f}`) : [w]));
  const npxRun = (words: string[], cwd: string) => {
    const r = sh(npx, ['--no-install', ...glob(words.slice(1), cwd)], cwd, RUN_MS, env);
    return { ...r, line: words.join(' ') };
  };

  it('GitHub Actions: three shards, their artifacts laid out as download-artifact does, and the merge pass', () => {
    const wf = parse(readFileSync(join(PACKAGE_ROOT, 'docs/ci/github-actions.yml'), 'utf8')) as { jobs: Record<string, { steps: Array<{ run?: string }> }> };
    const runs = (job: string) => wf.jobs[job]!.steps.map((s) => s.run).filter((r): r is string => typeof r === 'string');
    const cwd = join(app, 'gh');
    mkdirSync(cwd);
    for (const shard of [1, 2, 3]) {
      const commands = suiteCommands(runs('shard'), { '${{ matrix.shard }}': String(shard) });
      expect(commands).toHaveLength(1);
      const r = npxRun(commands[0]!, cwd);
      expect(r.err, r.line).not.toMatch(/\n\s+at /);
      expect([0, 3], `${r.line}: ${r.err}`).toContain(r.code);
      // the artifact holds the reports directory but its latest link; download-artifact puts it in shards/<name>/
      const reports = join(cwd, 'shard-reports');
      for (const d of readdirSync(reports).filter((d) => d !== 'latest')) cpSync(join(reports, d), join(cwd, 'shards', `conformance-shard-${shard}`, d), { recursive: true });
      rmSync(reports, { recursive: true, force: true });
    }
    const merge = suiteCommands(runs('merge'), {});
    expect(merge).toHaveLength(1);
    const r = npxRun(merge[0]!, cwd);
    expect(r.code, `${r.line}: ${r.out}\n${r.err}`).toBe(0);
    expect(readFileSync(join(cwd, 'reports', 'latest', 'summary.md'), 'utf8')).toContain('PASSED');
  }, 4 * RUN_MS);

  it('GitLab CI: parallel shards in shards/$CI_NODE_INDEX, and the merge pass', () => {
    const ci = parse(readFileSync(join(PACKAGE_ROOT, 'docs/ci/gitlab-ci.yml'), 'utf8')) as Record<string, { script?: string[] }>;
    const shardJob = ci['conformance-shard'] as { parallel: number; script: string[] };
    const cwd = join(app, 'gl');
    mkdirSync(cwd);
    for (let i = 1; i <= shardJob.parallel; i++) {
      const commands = suiteCommands(shardJob.script, { $CI_NODE_INDEX: String(i), $CI_NODE_TOTAL: String(shardJob.parallel) });
      expect(commands).toHaveLength(1);
      const r = npxRun(commands[0]!, cwd);
      expect([0, 3], `${r.line}: ${r.err}`).toContain(r.code);
    }
    const merge = suiteCommands(ci['conformance-merge']!.script ?? [], {});
    const r = npxRun(merge[0]!, cwd);
    expect(r.code, `${r.line}: ${r.out}\n${r.err}`).toBe(0);
    expect(existsSync(join(cwd, 'reports', 'latest', 'junit.xml'))).toBe(true);
  }, 4 * RUN_MS);
});
