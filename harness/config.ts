/**
 * One typed configuration object, loaded once from a YAML or JSON file, environment variables and CLI flags (in that
 * precedence), validated against config.schema.json. Suites receive it through vitest's provide/inject and never read
 * process.env themselves.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { APIS, type Api } from './types.js';
import { REDACTED, redactText, redactValue, registerSecret, registerUrlCredentials } from './transport/redact.js';
import type { LedgerVersion } from './judging/versions.js';
import { parseShard, type Shard } from './run/shard.js';
import { parseYaml } from './setup/lazy-yaml.js';
import { problemsMessage, schemaProblems } from './setup/config-errors.js';
import { checksDirProblem } from './run/vendor-checks.js';
import { resolve as resolvePath } from 'node:path';
import type { OwnDescriptionSource } from './spec-diff/validate.js';
import { loadTlsSettings, pemSummary, registerTransport, type TlsSettings } from './transport/tls.js';

const schema = JSON.parse(readFileSync(new URL('./config.schema.json', import.meta.url), 'utf8')) as object;

export type AuthConfig =
  | { kind: 'none' }
  | { kind: 'static'; tokens: Record<string, string> }
  | {
      kind: 'hs256';
      secret: string;
      users: Record<string, string>;
      audience?: string;
      issuer?: string;
      scope?: string;
      expiresInSeconds?: number;
    }
  | {
      kind: 'oauth2';
      tokenUrl: string;
      clients: Record<string, { clientId: string; clientSecret: string; scope?: string; audience?: string }>;
      /** the token URL's TLS settings (ca, cert and key as PEM text once loaded) */
      tls?: TlsSettings;
      /** the token request's proxy: its own setting, else the target's; false: none; unset: the environment's */
      proxy?: string | false;
    };

export interface TargetConfig {
  url: string;
  version?: string;
  auth: AuthConfig;
  features: Record<string, boolean>;
  fixtures: Record<string, unknown>;
  disabledRequirements: string[];
  headers: Record<string, string>;
  /** how the target's TLS is checked and which client certificate it is shown (ca, cert and key as PEM text once loaded) */
  tls?: TlsSettings;
  /** the proxy requests go through (a URL); false: none, whatever the environment says; unset: HTTPS_PROXY, HTTP_PROXY, NO_PROXY */
  proxy?: string | false;
}

export interface RunConfig {
  seed: number;
  runs: number;
  timeoutMs: number;
  checkTimeoutMs: number;
  maxResponseBytes: number;
  /** how often a 429 or 503 answer is retried; 0 = never */
  retries: number;
  /** the most one request waits across its retries */
  retryMaxWaitMs: number;
  /** JSON responses nested deeper are an error, before parsing */
  maxJsonDepth: number;
  /** run-wide deadline: after it no further check starts and the report says the run was cut (exit 3); unset = none */
  maxRunMs?: number;
  /** response headers larger than this (in bytes, all of them) are an error */
  maxHeaderBytes: number;
  /** read-only mode: only GETs and the operations marked x-read-only reach the target; checks that need more skip */
  readOnly: boolean;
  /** the most requests a second the run sends, all checks and interfaces together; unset = no limit */
  maxRequestsPerSecond?: number;
  /** the most requests in flight at once, across the whole run; 1 runs every check and request one after another */
  concurrency: number;
  /**
   * the worker threads that run the suite files (each a group of them, harness/run-groups.ts); unset: one per core, two
   * to four (harness/run/suite-vitest.ts, defaultWorkers)
   */
  workers?: number;
  reportsDir: string;
  only: Api[];
  requirements: string[];
  /** only these checks, by check id (empty: every check) */
  checks?: string[];
  /** only the checks that call one of these operations, by operationId (empty: every check) */
  operations?: string[];
  /** requirements left out: a check runs only when it cites one not left out; the reports leave them out */
  excludeRequirements?: string[];
  /** a folder of the user's own checks (*.check.ts) and requirements (requirements.yaml), as an absolute path */
  checksDir?: string;
  html: boolean;
  /** expectations file of known failures */
  baseline?: string;
  /** earlier conformance.json to diff against: true = reports/latest, false = no diff */
  compare: string | boolean;
  /** run only this share of the checks (--shard i/n); `canton-conformance merge` joins the shards' reports */
  shard?: Shard;
  /** which failures fail the run (exit 1): MUST ones only, or SHOULD ones too */
  failOn: 'must' | 'should';
  /** the least share (percent) of the selected MUST requirements a check covers that must be decided, else exit 3 */
  minDecided?: number;
  /** the preflight's reads before any check (harness/setup/preflight.ts); false: only what needs no request (versions, files) */
  preflight: boolean;
  /** per interface, the target's own OpenAPI document (file, URL, or `served`) every response is also judged against */
  alsoValidateAgainst?: Partial<Record<Api, string>>;
}

export interface ReferenceSettings {
  faults: string[];
  ledgerVersion?: LedgerVersion;
  scanVersion?: string;
  registryVersion?: string;
  trafficEnforcement?: boolean;
  transferLegs?: number;
  ansEntries?: number;
  validatorLicenses?: number;
  /** a reference variant's seed: the server makes every choice the specification leaves open at random from it */
  variant?: number;
}

export interface Config {
  run: RunConfig;
  targets: Partial<Record<Api, TargetConfig>>;
  reference: ReferenceSettings;
  /** true when no target URL was configured: the CLI starts the embedded reference server and fills targets */
  useReference: boolean;
  /** where the configuration came from, for the report */
  sources: string[];
  /**
   * Values that are secrets although no setting's name says so: those read from `${NAME}` in the file. Registered for
   * redaction in every thread that records exchanges; never printed (printableConfig leaves them out).
   */
  secrets?: string[];
  /** the documents of run.alsoValidateAgainst, read and bundled by the runner before the checks start */
  alsoValidate?: Partial<Record<Api, OwnDescriptionSource>>;
  /** for the project's own tests: other specs, catalogue and suite files than the shipped ones */
  internal?: {
    specsDir?: string;
    catalogueDir?: string;
    include?: string[];
    /**
     * Self-test batching: only the checks named in a route are declared, and each runs against its route's targets,
     * so one run can prove many planted faults, each on its own reference server.
     */
    routes?: Array<{ checks: string[]; targets: Partial<Record<Api, TargetConfig>> }>;
    /**
     * A test's run: every answer's time counts for the run's latency signal however busy this machine is (the project's
     * tests run beside each other, and harness/transport/in-flight.ts's MachineLoad would discount them all).
     */
    latencyIgnoresMachineLoad?: boolean;
  };
}

export const DEFAULT_RUN: RunConfig = {
  seed: 42,
  runs: 25,
  timeoutMs: 5000,
  checkTimeoutMs: 60_000,
  maxResponseBytes: 16 * 1024 * 1024,
  retries: 2,
  retryMaxWaitMs: 5000,
  maxJsonDepth: 512,
  maxHeaderBytes: 64 * 1024,
  readOnly: false,
  concurrency: 32,
  reportsDir: 'reports',
  only: [...APIS],
  requirements: [],
  html: true,
  compare: true,
  failOn: 'must',
  preflight: true,
};

/** A configuration problem: the CLI prints the message and exits 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Overrides from the command line; undefined means "not given". */
export interface ConfigFlags {
  config?: string;
  ledgerUrl?: string;
  scanUrl?: string;
  validatorUrl?: string;
  registryUrl?: string;
  only?: string;
  requirement?: string[];
  /** --check: check ids */
  check?: string[];
  /** --operation: operationIds */
  operation?: string[];
  /** --exclude-requirement: requirement ids */
  excludeRequirement?: string[];
  /** --checks-dir: a folder of the user's own checks and requirements */
  checksDir?: string;
  seed?: string;
  runs?: string;
  timeoutMs?: string;
  concurrency?: string;
  reportsDir?: string;
  html?: boolean;
  fault?: string[];
  referenceVariant?: string;
  /** embedded reference only: the ledger release line it claims */
  ledgerVersion?: string;
  /** embedded reference only: the Splice release its scan and validator claim */
  scanVersion?: string;
  /** embedded reference only: the token-standard registry release it claims */
  registryVersion?: string;
  baseline?: string;
  compare?: string | boolean;
  readOnly?: boolean;
  maxRequestsPerSecond?: string;
  workers?: string;
  /** i/n: run only the checks of shard i of n */
  shard?: string;
  /** `[api=]FILE|URL|served` (ledger when no api is named) */
  alsoValidateAgainst?: string[];
  /** `must` or `should`: which failures fail the run */
  failOn?: string;
  /** a percentage: the least share of the selected MUST requirements to decide */
  minDecided?: string;
  /** false (--no-preflight): no preflight reads */
  preflight?: boolean;
  /** `[api:]NAME=VALUE`: a header sent with every request to that target (every configured target without api:) */
  header?: string[];
  /** `[api:]ROLE=TOKEN`: a static bearer token of a role for that target (every configured target without api:) */
  token?: string[];
}

/** The environment variables read, each the same as the flag in its comment. */
export const ENV_VARS = {
  CONFORMANCE_CONFIG: '--config',
  CONFORMANCE_LEDGER_URL: '--ledger-url',
  CONFORMANCE_SCAN_URL: '--scan-url',
  CONFORMANCE_VALIDATOR_URL: '--validator-url',
  CONFORMANCE_REGISTRY_URL: '--registry-url',
  CONFORMANCE_ONLY: '--only',
  CONFORMANCE_SEED: '--seed',
  CONFORMANCE_RUNS: '--runs',
  CONFORMANCE_TIMEOUT_MS: '--timeout-ms',
  CONFORMANCE_CONCURRENCY: '--concurrency',
  CONFORMANCE_REPORTS_DIR: '--reports-dir',
} as const;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Settings whose `${NAME}` values are not secrets: versions, the run and reference sections (numbers, flags, paths),
 * and the public parts of TLS settings (a CA or client certificate, as a path or PEM text; the server name).
 * Addresses (URL_SETTING, proxies among them) are secret only in their query and userinfo.
 */
const NOT_SECRET_SETTING = /^(run|reference)(\.|$)|\.version$|\.tls\.(ca|cert|serverName)$/;
const URL_SETTING = /\.(url|tokenUrl|proxy)$|^run\.alsoValidateAgainst\.[a-z]+$/;

/** A value as written and in the forms a URL may carry it (percent-encoded, decoded), to register them all. */
function urlForms(value: string): string[] {
  const forms = [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)];
  try {
    forms.push(decodeURIComponent(value.replace(/\+/g, ' ')), decodeURIComponent(value));
  } catch {
    // not validly percent-encoded: the forms above are enough
  }
  return [...new Set(forms)];
}

/**
 * The secrets of a URL setting read (in part) from `${NAME}`: an address read from the environment is no secret, but a
 * value that lands in its userinfo or its query (`?api_key=${KEY}`) is; a whole URL read from one variable gives up the
 * values of its query parameters (its userinfo is registered by shape where the targets are read).
 */
function urlSecrets(url: string, spans: Array<{ start: number; end: number; value: string }>): string[] {
  const hash = url.indexOf('#');
  const query = url.indexOf('?');
  const queryAt = query >= 0 && (hash < 0 || query < hash) ? query : hash >= 0 ? hash : url.length;
  const userinfo = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i.exec(url);
  const userinfoStart = userinfo === null ? -1 : userinfo[1]!.length;
  const userinfoEnd = userinfo === null ? -1 : userinfo[0].length - 1;
  const out: string[] = [];
  for (const s of spans) {
    if (s.start >= queryAt || (s.start >= userinfoStart && s.end <= userinfoEnd)) out.push(...urlForms(s.value));
    else if (s.end > queryAt + 1) {
      // the query (or part of it) came from this variable: every parameter value in that part is a secret
      for (const pair of url.slice(queryAt + 1, Math.min(s.end, hash > queryAt ? hash : url.length)).split('&')) {
        const eq = pair.indexOf('=');
        if (eq >= 0) out.push(...urlForms(pair.slice(eq + 1)));
      }
    }
  }
  return out;
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * `${NAME}` in any string of the file is replaced by the environment variable NAME, so secrets stay out of files. The
 * values read are secrets (outside NOT_SECRET_SETTING; in a URL, those in its query or userinfo): pushed to `secrets`.
 */
function interpolate(v: unknown, env: NodeJS.ProcessEnv, path: string, secrets: string[]): unknown {
  if (typeof v === 'string') {
    const spans: Array<{ start: number; end: number; value: string }> = [];
    let out = '';
    let last = 0;
    for (const m of v.matchAll(ENV_REFERENCE)) {
      const value = env[m[1]!];
      if (value === undefined) throw new ConfigError(`${path}: environment variable ${m[1]} is not set`);
      out += v.slice(last, m.index);
      spans.push({ start: out.length, end: out.length + value.length, value });
      out += value;
      last = m.index + m[0].length;
    }
    out += v.slice(last);
    if (URL_SETTING.test(path)) secrets.push(...urlSecrets(out, spans));
    else if (!NOT_SECRET_SETTING.test(path)) secrets.push(...spans.map((s) => s.value));
    return out;
  }
  if (Array.isArray(v)) return v.map((x, i) => interpolate(x, env, `${path}[${i}]`, secrets));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, interpolate(x, env, path ? `${path}.${k}` : k, secrets)]));
  return v;
}

/**
 * Reads a configuration file, `${NAME}` replaced by the environment; the values so read that are secrets are pushed to
 * `secrets` (and registered for redaction).
 */
export function readConfigFile(file: string, env: NodeJS.ProcessEnv = process.env, secrets: string[] = []): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read config file ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  let data: unknown;
  try {
    data = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text, { prettyErrors: true });
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0];
    throw new ConfigError(`config file ${file} does not parse: ${msg}`);
  }
  if (data === null || data === undefined) return {};
  if (!isObject(data)) throw new ConfigError(`config file ${file}: the top level must be a mapping`);
  const out = interpolate(data, env, '', secrets) as Json;
  for (const v of secrets) registerSecret(v);
  return out;
}

function parseInteger(value: string, what: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new ConfigError(`${what}: "${value}" is not an integer`);
  return Number(value.trim());
}

/** A variant seed: a non-negative integer, or "random" for a fresh one. */
export function parseVariantSeed(value: string, what: string): number {
  if (value.trim() === 'random') return Math.floor(Math.random() * 2 ** 31);
  const n = parseInteger(value, what);
  if (n < 0 || n > 2147483647) throw new ConfigError(`${what}: ${n} is not between 0 and 2147483647`);
  return n;
}

/** A shard setting "i/n" (flag or file): 1 <= i <= n, integers. */
function shardSetting(value: string, what: string): Shard {
  const shard = parseShard(value);
  if (typeof shard === 'string') throw new ConfigError(`${what}: ${shard}`);
  return shard;
}

function parseApis(value: string, what: string): Api[] {
  const list = value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  const bad = list.filter((s) => !(APIS as readonly string[]).includes(s));
  if (bad.length > 0) throw new ConfigError(`${what}: unknown interface ${bad.join(', ')} (expected ${APIS.join(', ')})`);
  if (list.length === 0) throw new ConfigError(`${what}: names no interface (expected ${APIS.join(', ')})`);
  return [...new Set(list)] as Api[];
}

function setTargetUrl(raw: Json, api: Api, url: string): void {
  const targets = (isObject(raw.targets) ? raw.targets : (raw.targets = {})) as Json;
  const t = (isObject(targets[api]) ? targets[api] : (targets[api] = {})) as Json;
  t.url = url;
}

function ensureRun(raw: Json): Json {
  if (!isObject(raw.run)) raw.run = {};
  return raw.run as Json;
}

type SettingKey = keyof typeof ENV_VARS;

function flagValues(flags: ConfigFlags): Partial<Record<SettingKey, string>> {
  return {
    CONFORMANCE_LEDGER_URL: flags.ledgerUrl,
    CONFORMANCE_SCAN_URL: flags.scanUrl,
    CONFORMANCE_VALIDATOR_URL: flags.validatorUrl,
    CONFORMANCE_REGISTRY_URL: flags.registryUrl,
    CONFORMANCE_ONLY: flags.only,
    CONFORMANCE_SEED: flags.seed,
    CONFORMANCE_RUNS: flags.runs,
    CONFORMANCE_TIMEOUT_MS: flags.timeoutMs,
    CONFORMANCE_CONCURRENCY: flags.concurrency,
    CONFORMANCE_REPORTS_DIR: flags.reportsDir,
  };
}

/**
 * --header [api:]NAME=VALUE and --token [api:]ROLE=TOKEN: a header name holds no ":" (RFC 9110), so a prefix up to the
 * first ":" names the interface; without one, the setting goes to every configured target. The values are secrets like
 * those of targets.<api>.headers and static tokens (the schema marks them x-secret: redacted wherever printed).
 */
function applyHeaderAndTokenFlags(raw: Json, flags: ConfigFlags): void {
  const entries = [
    ...(flags.header ?? []).map((v) => ({ flag: '--header', what: 'NAME', v })),
    ...(flags.token ?? []).map((v) => ({ flag: '--token', what: 'ROLE', v })),
  ];
  if (entries.length === 0) return;
  const targets = isObject(raw.targets) ? raw.targets : {};
  const configured = APIS.filter((a) => isObject(targets[a]));
  for (const { flag, what, v } of entries) {
    const m = /^(?:([a-z]+):)?([^=:\s]+)=([\s\S]*)$/.exec(v);
    // the value is never echoed: it is a secret
    if (m === null) throw new ConfigError(`flag ${flag}: expected [api:]${what}=VALUE (e.g. ${flag === '--header' ? 'ledger:X-Api-Key=$KEY' : 'admin=$TOKEN'}), got ${v.includes('=') ? `"${redactText(v.slice(0, v.indexOf('=')))}=..."` : 'no "="'}`);
    const [, api, name, value] = m as unknown as [string, string | undefined, string, string];
    if (api !== undefined && !(APIS as readonly string[]).includes(api)) throw new ConfigError(`flag ${flag}: unknown interface "${api}" before "${name}" (expected ${APIS.join(', ')})`);
    if (value === '') throw new ConfigError(`flag ${flag} ${api !== undefined ? `${api}:` : ''}${name}: the value is empty`);
    const apis = api !== undefined ? [api as Api] : configured;
    if (configured.length === 0) throw new ConfigError(`flag ${flag}: no target is configured (the embedded reference server mints its own tokens and needs no header); give a target URL first`);
    for (const a of apis) {
      const t = targets[a];
      if (!isObject(t)) throw new ConfigError(`flag ${flag} ${a}:${name}: no ${a} target is configured (configured: ${configured.join(', ')})`);
      if (flag === '--header') {
        t.headers = { ...(isObject(t.headers) ? t.headers : {}), [name]: value };
        continue;
      }
      const auth = isObject(t.auth) ? t.auth : undefined;
      if (auth !== undefined && auth.kind !== 'static' && auth.kind !== 'none') {
        throw new ConfigError(`flag --token ${a}:${name}: targets.${a}.auth is of kind ${String(auth.kind)}, which makes its own tokens; --token gives static tokens (auth kind static): drop the flag, or that auth setting`);
      }
      t.auth = { kind: 'static', tokens: { ...(auth !== undefined && isObject(auth.tokens) ? auth.tokens : {}), [name]: value } };
    }
  }
}

/** Applies environment variables, then flags, on top of the file's content (the file is the lowest precedence). */
function applyOverrides(raw: Json, env: NodeJS.ProcessEnv, flags: ConfigFlags): void {
  const envValues = Object.fromEntries(Object.keys(ENV_VARS).map((k) => [k, env[k] || undefined]));
  const layers = [
    { values: envValues as Partial<Record<SettingKey, string>>, label: (k: SettingKey) => `environment variable ${k}` },
    { values: flagValues(flags), label: (k: SettingKey) => `flag ${ENV_VARS[k]}` },
  ];
  // the layer that asked for a random seed, if one did: a shard must not (see below)
  let randomSeed: string | undefined;
  for (const { values, label } of layers) {
    for (const api of APIS) {
      const v = values[`CONFORMANCE_${api.toUpperCase()}_URL` as SettingKey];
      if (v !== undefined) setTargetUrl(raw, api, v);
    }
    const { CONFORMANCE_ONLY: only, CONFORMANCE_SEED: seed, CONFORMANCE_RUNS: runs } = values;
    const { CONFORMANCE_TIMEOUT_MS: timeout, CONFORMANCE_REPORTS_DIR: reportsDir } = values;
    if (only !== undefined) ensureRun(raw).only = parseApis(only, label('CONFORMANCE_ONLY'));
    if (seed !== undefined) {
      randomSeed = seed === 'random' ? label('CONFORMANCE_SEED') : undefined;
      ensureRun(raw).seed = seed === 'random' ? Math.floor(Math.random() * 2 ** 31) : parseInteger(seed, label('CONFORMANCE_SEED'));
    }
    if (runs !== undefined) ensureRun(raw).runs = parseInteger(runs, label('CONFORMANCE_RUNS'));
    if (timeout !== undefined) ensureRun(raw).timeoutMs = parseInteger(timeout, label('CONFORMANCE_TIMEOUT_MS'));
    if (values.CONFORMANCE_CONCURRENCY !== undefined) ensureRun(raw).concurrency = parseInteger(values.CONFORMANCE_CONCURRENCY, label('CONFORMANCE_CONCURRENCY'));
    if (reportsDir !== undefined) ensureRun(raw).reportsDir = reportsDir;
  }
  applyHeaderAndTokenFlags(raw, flags);
  if (flags.requirement !== undefined && flags.requirement.length > 0) ensureRun(raw).requirements = flags.requirement;
  if (flags.check !== undefined && flags.check.length > 0) ensureRun(raw).checks = flags.check;
  if (flags.operation !== undefined && flags.operation.length > 0) ensureRun(raw).operations = flags.operation;
  if (flags.excludeRequirement !== undefined && flags.excludeRequirement.length > 0) ensureRun(raw).excludeRequirements = flags.excludeRequirement;
  if (flags.checksDir !== undefined) ensureRun(raw).checksDir = flags.checksDir;
  if (flags.html !== undefined) ensureRun(raw).html = flags.html;
  if (flags.baseline !== undefined) ensureRun(raw).baseline = flags.baseline;
  if (flags.compare !== undefined) ensureRun(raw).compare = flags.compare;
  if (flags.readOnly === true) ensureRun(raw).readOnly = true;
  if (flags.preflight === false) ensureRun(raw).preflight = false;
  // both checked by the schema below, like run.failOn and run.minDecided in a file
  if (flags.failOn !== undefined) ensureRun(raw).failOn = flags.failOn;
  if (flags.minDecided !== undefined) {
    const n = Number(flags.minDecided.trim().replace(/%$/, ''));
    if (flags.minDecided.trim() === '' || !Number.isFinite(n)) throw new ConfigError(`flag --min-decided: "${flags.minDecided}" is not a percentage (0 to 100)`);
    ensureRun(raw).minDecided = n;
  }
  if (flags.workers !== undefined) ensureRun(raw).workers = parseInteger(flags.workers, 'flag --workers');
  if (flags.maxRequestsPerSecond !== undefined) {
    const n = Number(flags.maxRequestsPerSecond);
    if (flags.maxRequestsPerSecond.trim() === '' || !Number.isFinite(n)) throw new ConfigError(`flag --max-requests-per-second: "${flags.maxRequestsPerSecond}" is not a number`);
    // the range is checked by the schema below, like run.maxRequestsPerSecond in a file
    ensureRun(raw).maxRequestsPerSecond = n;
  }
  if (flags.shard !== undefined) {
    shardSetting(flags.shard, 'flag --shard');
    ensureRun(raw).shard = flags.shard;
  }
  // every shard of a run must draw the same inputs, and merge refuses shards of different seeds: a random seed would
  // give each shard its own, found only once all of them had run
  const shard = isObject(raw.run) ? raw.run.shard : undefined;
  if (randomSeed !== undefined && shard !== undefined) {
    throw new ConfigError(`${randomSeed}: "random" cannot be used with a shard (${flags.shard !== undefined ? '--shard' : 'run.shard'} ${String(shard)}): every shard of a run needs the same seed, and "canton-conformance merge" refuses shards of different seeds; give every shard the same integer seed (e.g. --seed ${Math.floor(Math.random() * 2 ** 31)})`);
  }
  for (const v of flags.alsoValidateAgainst ?? []) {
    const m = /^(ledger|scan|validator|registry)=(.+)$/.exec(v);
    const run = ensureRun(raw);
    run.alsoValidateAgainst = { ...(isObject(run.alsoValidateAgainst) ? run.alsoValidateAgainst : {}), [m?.[1] ?? 'ledger']: m?.[2] ?? v };
  }
  if (flags.fault !== undefined && flags.fault.length > 0) {
    if (!isObject(raw.reference)) raw.reference = {};
    (raw.reference as Json).faults = flags.fault;
  }
  if (flags.referenceVariant !== undefined) {
    if (!isObject(raw.reference)) raw.reference = {};
    (raw.reference as Json).variant = parseVariantSeed(flags.referenceVariant, 'flag --reference-variant');
  }
  if (flags.ledgerVersion !== undefined) {
    if (!isObject(raw.reference)) raw.reference = {};
    // checked against the enum of the schema below, like reference.ledgerVersion in a file
    (raw.reference as Json).ledgerVersion = flags.ledgerVersion;
  }
  for (const k of ['scanVersion', 'registryVersion'] as const) {
    if (flags[k] === undefined) continue;
    if (!isObject(raw.reference)) raw.reference = {};
    (raw.reference as Json)[k] = flags[k];
  }
}

/** The options the configuration schema is compiled with (bin/build.mjs precompiles it into the CLI bundle with these). */
export const CONFIG_AJV_OPTIONS = { allErrors: true, strict: false, discriminator: true, verbose: true } as const;
/**
 * The configuration's validator, compiled on first use (compiling takes about 0.3 s, which every import of this module
 * would pay, in the main thread and in every suite worker, which never validate a configuration). The CLI bundle
 * replaces `undefined` below by the validator precompiled at build time from config.schema.json (bin/build.mjs).
 */
const PRECOMPILED_VALIDATOR: ValidateFunction | undefined = undefined;
let validator: ValidateFunction | undefined = PRECOMPILED_VALIDATOR;
function validateSchema(raw: unknown): boolean {
  if (validator === undefined) {
    const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    validator = new Ajv2020(CONFIG_AJV_OPTIONS).compile(schema);
  }
  return validator(raw) as boolean;
}

function describeError(e: ErrorObject): string {
  const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(top level)';
  switch (e.keyword) {
    case 'additionalProperties':
      return `${at}: unknown setting "${(e.params as { additionalProperty: string }).additionalProperty}"`;
    case 'required':
      return `${at}: missing required setting "${(e.params as { missingProperty: string }).missingProperty}"`;
    case 'pattern':
      return `${at}: ${redactText(JSON.stringify(e.data))} is not valid here (${at.endsWith('url') || at.endsWith('Url') || at.endsWith('proxy') ? 'expected an http:// or https:// URL' : `expected to match ${(e.params as { pattern: string }).pattern}`})`;
    case 'enum':
      return `${at}: ${JSON.stringify(e.data)} is not one of ${((e.params as { allowedValues: unknown[] }).allowedValues).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'discriminator':
      return `${at}: auth.kind must be one of "none", "static", "hs256", "oauth2"`;
    default:
      return `${at}: ${e.message ?? 'is invalid'}`;
  }
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  flags?: ConfigFlags;
}

/** Loads, merges and validates the configuration; throws ConfigError naming the bad field. */
export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const flags = opts.flags ?? {};
  const sources: string[] = [];
  const file = flags.config ?? (env.CONFORMANCE_CONFIG || undefined);
  const secrets: string[] = [];
  const raw: Json = file !== undefined ? readConfigFile(file, env, secrets) : {};
  const fileEmpty = Object.keys(raw).length === 0;
  if (file !== undefined) sources.push(`file ${file}`);
  applyOverrides(raw, env, flags);
  if (Object.keys(env).some((k) => k in ENV_VARS && k !== 'CONFORMANCE_CONFIG' && env[k])) sources.push('environment');
  if (Object.entries(flags).some(([name, v]) => name !== 'config' && v !== undefined && (!Array.isArray(v) || v.length > 0))) {
    sources.push('flags');
  }

  if (!validateSchema(raw)) {
    // every problem at once, each with its line in the file and, for an unknown setting, the closest known ones
    throw new ConfigError(problemsMessage('invalid configuration', schemaProblems(validator?.errors ?? [], describeError, file)));
  }
  const run = { ...DEFAULT_RUN, ...(raw.run as Partial<RunConfig> | undefined) };
  if (typeof run.shard === 'string') run.shard = shardSetting(run.shard, 'run.shard');
  // read from the current directory, and passed on as an absolute path (the suite workers resolve it alike)
  if (run.checksDir !== undefined) run.checksDir = checkChecksDir(run.checksDir, flags.checksDir !== undefined ? '--checks-dir' : 'run.checksDir');
  const targets = normalizeTargets(raw.targets);
  // every value of a setting the schema marks x-secret reaches the workers too, whose redaction set starts empty
  secrets.push(...markedSecrets({ targets: raw.targets }));
  const reference = { faults: [], ...(raw.reference as Partial<ReferenceSettings> | undefined) };
  checkTargetSelection(file, fileEmpty, raw, run, targets);
  return { run, targets, reference, useReference: Object.keys(targets).length === 0, sources, ...(secrets.length > 0 ? { secrets: [...new Set(secrets)] } : {}) };
}

/** A checks folder that exists and holds what it must (harness/run/vendor-checks.ts), as an absolute path. */
function checkChecksDir(dir: string, setting: string): string {
  const problem = checksDirProblem(dir);
  if (problem !== undefined) throw new ConfigError(`${setting}: ${problem}`);
  return resolvePath(dir);
}

/**
 * Nothing tested is never a pass: a configuration file that names no target (an empty file: a failed template, an
 * unset variable) is no request to check the embedded reference server, unless it says so with a `reference` section;
 * an interface selected by name (--only, CONFORMANCE_ONLY, run.only) needs a target when others are configured. With
 * targets configured and no interface named, the run selects the configured ones.
 */
function checkTargetSelection(file: string | undefined, fileEmpty: boolean, raw: Json, run: RunConfig, targets: Partial<Record<Api, TargetConfig>>): void {
  const configured = APIS.filter((a) => targets[a] !== undefined);
  if (configured.length === 0) {
    if (file !== undefined && !isObject(raw.reference)) {
      const what = fileEmpty ? `${file} is empty (a failed template, an unset variable?)` : `${file} names none`;
      throw new ConfigError(`the configuration names no target: ${what}; name one, e.g. "targets: { ledger: { url: http://localhost:7575 } }" (a --ledger-url, --scan-url, --validator-url or --registry-url flag does too); to check the embedded reference server, run without --config, or give the file a "reference:" section`);
    }
    return;
  }
  const named = isObject(raw.run) && Array.isArray(raw.run.only);
  if (!named) {
    run.only = run.only.filter((a) => targets[a] !== undefined);
    return;
  }
  const missing = run.only.filter((a) => targets[a] === undefined);
  if (missing.length > 0) {
    throw new ConfigError(`the selection (--only, CONFORMANCE_ONLY or run.only) names ${missing.join(', ')}, but no ${missing.join(' or ')} target is configured (configured: ${configured.join(', ')}), so nothing of it would be tested: configure its URL (targets.${missing[0]}.url or --${missing[0]}-url), or leave it out of the selection`);
  }
}

/**
 * The files a run reads (the baseline, an explicit --compare report) must exist: a setting naming a missing file is a
 * configuration error (exit 2), found before anything runs. The default comparison against reports/latest is not
 * checked: the first run has no earlier one.
 */
export function checkRunFiles(config: Config, flags: ConfigFlags = {}): void {
  const need = (file: string | undefined, setting: string, what: string) => {
    if (file === undefined) return;
    if (!existsSync(file)) throw new ConfigError(`${setting}: file ${file} does not exist (${what})`);
    if (!statSync(file).isFile()) throw new ConfigError(`${setting}: ${file} is not a file (${what})`);
  };
  need(config.run.baseline, flags.baseline !== undefined ? '--baseline' : 'run.baseline', 'a YAML "expectations:" list of known failures');
  if (typeof config.run.compare === 'string') {
    need(config.run.compare, typeof flags.compare === 'string' ? '--compare' : 'run.compare', 'an earlier conformance.json to diff against; --no-compare runs without one');
  }
}

/** The `targets` block of a validated configuration, with every default filled in. */
function normalizeTargets(raw: unknown): Partial<Record<Api, TargetConfig>> {
  const targets: Partial<Record<Api, TargetConfig>> = {};
  const rawTargets = (raw ?? {}) as Partial<Record<Api, Partial<TargetConfig> & { url: string }>>;
  // the settings marked x-secret (header values, tokens, the HS256 secret, client secrets) are never printed
  for (const v of markedSecrets({ targets: rawTargets })) registerSecret(v);
  for (const api of APIS) {
    const t = rawTargets[api];
    if (t === undefined) continue;
    targets[api] = {
      url: t.url.replace(/\/+$/, ''),
      version: t.version,
      auth: t.auth ?? { kind: 'none' },
      features: t.features ?? {},
      fixtures: t.fixtures ?? {},
      disabledRequirements: t.disabledRequirements ?? [],
      headers: t.headers ?? {},
    };
    const target = targets[api]!;
    const fail = (message: string): never => {
      throw new ConfigError(message);
    };
    if ((t.proxy as unknown) === true) fail(`targets.${api}.proxy: true is not a proxy; give its URL (http://host:port), or false for none`);
    if (t.proxy !== undefined) target.proxy = t.proxy;
    // the files named are read once, here: a missing one, or one that holds no PEM, is a configuration error
    if (t.tls !== undefined) target.tls = loadTlsSettings(t.tls, `targets.${api}.tls`, fail);
    if (t.auth?.kind === 'oauth2' && (t.auth.tls !== undefined || t.auth.proxy !== undefined || t.proxy !== undefined)) {
      if ((t.auth.proxy as unknown) === true) fail(`targets.${api}.auth.proxy: true is not a proxy; give its URL (http://host:port), or false for none`);
      const proxy = t.auth.proxy ?? t.proxy;
      target.auth = { ...t.auth, ...(t.auth.tls !== undefined ? { tls: loadTlsSettings(t.auth.tls, `targets.${api}.auth.tls`, fail) } : {}), ...(proxy !== undefined ? { proxy } : {}) };
    }
    // requests to the target's origin made without its settings at hand (doctor's, the preflight's) use them too
    registerTransport(target.url, { ...(target.tls !== undefined ? { tls: target.tls } : {}), ...(target.proxy !== undefined ? { proxy: target.proxy } : {}) });
    if (t.proxy) registerUrlCredentials(t.proxy);
    if (t.auth?.kind === 'oauth2' && typeof t.auth.proxy === 'string') registerUrlCredentials(t.auth.proxy);
    // credentials in a URL (http://user:password@host) are redacted by shape, and their values wherever else they show
    registerUrlCredentials(t.url);
    if (t.auth?.kind === 'oauth2') registerUrlCredentials(t.auth.tokenUrl);
  }
  return targets;
}

/**
 * A generated `targets` block (the embedded reference's, or any other) read exactly as the same block of a
 * configuration file: validated against the configuration schema, defaults filled in, secrets registered.
 */
export function targetsFromBlock(block: unknown, source: string): Partial<Record<Api, TargetConfig>> {
  if (!validateSchema({ targets: block })) {
    const errs = (validator?.errors ?? []).map(describeError);
    throw new ConfigError(`invalid target configuration from ${source}: ${errs.join('; ')}`);
  }
  return normalizeTargets(block);
}

/** The configuration as it may appear in a report or a log: every secret replaced. */
export function printableConfig(config: Config): unknown {
  // the settings marked x-secret are hidden whatever their length (a header's name stays, to show it was sent), then
  // every registered secret wherever it is
  const { secrets: _values, ...rest } = config;
  return redactValue(withPemSummaries(mapMarked(schema, rest, () => REDACTED)));
}

/** A printed configuration's CA and client certificates as their subjects and expiry, rather than pages of PEM. */
function withPemSummaries(printable: unknown): unknown {
  if (!isObject(printable) || !isObject(printable.targets)) return printable;
  const summarized = (tls: unknown): unknown => {
    if (!isObject(tls)) return tls;
    const out = { ...tls };
    for (const k of ['ca', 'cert'] as const) if (typeof out[k] === 'string') out[k] = pemSummary(out[k] as string);
    return out;
  };
  const targets = Object.fromEntries(
    Object.entries(printable.targets).map(([api, t]) => {
      if (!isObject(t)) return [api, t];
      const auth = isObject(t.auth) && 'tls' in t.auth ? { ...t.auth, tls: summarized(t.auth.tls) } : t.auth;
      return [api, { ...t, ...('tls' in t ? { tls: summarized(t.tls) } : {}), ...(auth !== undefined ? { auth } : {}) }];
    }),
  );
  return { ...printable, targets };
}

/** The schema node a `$ref` (local, `#/...`) points to. */
function resolveRef(node: unknown): unknown {
  let n = node;
  for (let i = 0; i < 8 && isObject(n) && typeof n.$ref === 'string'; i++) {
    n = (n.$ref as string).replace(/^#\/?/, '').split('/').filter(Boolean).reduce<unknown>((at, k) => (isObject(at) ? at[k] : undefined), schema);
  }
  return n;
}

/**
 * `value`, described by the schema `node`, with every value of a setting marked `"x-secret": true` replaced by
 * `replace(value)`: walks properties, additionalProperties, items, and the oneOf branch whose `const` properties (the
 * auth kind) the value matches.
 */
function mapMarked(node: unknown, value: unknown, replace: (v: unknown) => unknown): unknown {
  const n = resolveRef(node);
  if (!isObject(n) || value === undefined) return value;
  if (n['x-secret'] === true) return replace(value);
  if (Array.isArray(n.oneOf) && isObject(value)) {
    const branch = n.oneOf.map(resolveRef).find((b) => isObject(b) && isObject(b.properties) && Object.entries(b.properties).every(([k, p]) => !isObject(p) || !('const' in p) || p.const === value[k]));
    return branch === undefined ? value : mapMarked(branch, value, replace);
  }
  if (isObject(value)) {
    const props = isObject(n.properties) ? n.properties : {};
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapMarked(k in props ? props[k] : n.additionalProperties, v, replace)]));
  }
  if (Array.isArray(value)) return value.map((v) => mapMarked(n.items, v, replace));
  return value;
}

/** Every string value of the settings marked `"x-secret": true` in the schema, in a configuration (or part of one). */
export function markedSecrets(config: unknown): string[] {
  const found: string[] = [];
  const strings = (v: unknown): void => {
    if (typeof v === 'string') found.push(v);
    else if (Array.isArray(v)) v.forEach(strings);
    else if (isObject(v)) Object.values(v).forEach(strings);
  };
  mapMarked(schema, config, (v) => (strings(v), v));
  return found;
}
