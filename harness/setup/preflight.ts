/**
 * The preflight: what must hold before any rule is judged (DESIGN.md principle 18), shared by `run` and `doctor`.
 * For each configured interface, one read per role the suite uses, with that role's credential: the connection, the
 * base path (a 200 that is not JSON, or a 404 on a read every such interface serves), the credentials (a refusal of a
 * configured token; a role with none), the version (read from the target where an endpoint says it, else required in
 * the configuration) and the fixture files. It judges no requirement: a problem here is a set-up problem, and a run
 * with one stops before any check starts (exit 2), every problem named at once.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Config, TargetConfig } from '../config.js';
import { ConfigError } from '../config.js';
import { AuthUnavailable, TokenProvider } from '../transport/auth.js';
import { HttpClient, TransportError, type Exchange, type HttpRequest } from '../transport/http.js';
import { RequestPace, processPaceMemory } from '../transport/pace.js';
import { redactText } from '../transport/redact.js';
import type { Api } from '../types.js';

/** What the preflight found on one interface: `problem` stops a run; `skip` names what the run will skip, and why. */
export interface PreflightFinding {
  kind: 'ok' | 'skip' | 'problem';
  text: string;
}

export interface PreflightTarget {
  api: Api;
  url: string;
  findings: PreflightFinding[];
  /** the version the run judges this target against, and where it was read */
  version?: { version: string; from: 'target' | 'configuration' };
}

export interface PreflightResult {
  targets: PreflightTarget[];
  /** every problem, as `<api>: <text>` */
  problems: string[];
}

/** A preflight that found problems: the CLI prints the message (every problem) and exits 2. */
export class PreflightFailed extends ConfigError {
  override name = 'PreflightFailed';
  constructor(readonly result: PreflightResult) {
    super(`preflight: ${result.problems.length} set-up problem${result.problems.length === 1 ? '' : 's'}; no check ran and no report was written:\n${result.problems.map((p) => `  ${redactText(p)}`).join('\n')}`);
  }
}

const LABEL: Record<Api, string> = { ledger: 'JSON Ledger API', scan: 'Scan API', validator: 'Validator API', registry: 'token registry API' };
const EXAMPLE_URL: Record<Api, string> = {
  ledger: 'http://localhost:7575, without /v2',
  scan: 'http://localhost:5012/api/scan',
  validator: 'http://localhost:5003/api/validator',
  registry: 'the registry base under which /registry/... is served',
};
/** An example `version` line per interface, for a message that asks for one. */
const EXAMPLE_VERSION: Record<Api, string> = { ledger: '"3.5"', scan: '"0.8.0"', validator: '"0.8.0"', registry: '"0.8.0"' };

/** the settings whose file a run reads: fixtures named `...File` (darFile, darFile2, ...) */
const FILE_FIXTURE = /File\d*$/;

/**
 * `version: "..."` of a target, as the suite compares it: the leading numeric parts of what a target says ("3.5.2" of
 * a participant, "0.8.0" of a scan, "3.5.0-SNAPSHOT.2026..." of a snapshot build), or undefined when it starts with none.
 */
export function numericVersion(s: string): string | undefined {
  const m = /^v?(\d+(?:\.\d+){0,2})/.exec(s.trim());
  return m?.[1];
}

/** The release line of a participant version: "3.5.2" is line 3.5, as `targets.ledger.version` names it. */
export function ledgerLine(v: string): string {
  return v.split('.').slice(0, 2).join('.');
}

/** A configured version agrees with the one a target reports when each part it names is the same ("3.5" and "3.5.2"). */
export function versionsAgree(configured: string, reported: string): boolean {
  const c = configured.split('.').map((n) => Number.parseInt(n, 10));
  const r = reported.split('.').map((n) => Number.parseInt(n, 10));
  return c.every((n, i) => n === (r[i] ?? 0));
}

/**
 * The problems a configuration shows without sending a request: versions that must be configured (the validator's and
 * the registry's, which no endpoint says; every one when `reads` is false, since none is read then), fixture files.
 */
export function staticProblems(config: Config, apis: readonly Api[], reads = true): Array<{ api: Api; text: string }> {
  const out: Array<{ api: Api; text: string }> = [];
  for (const api of apis) {
    const t = config.targets[api];
    if (t === undefined) continue;
    if ((api === 'validator' || api === 'registry') && t.version === undefined) {
      out.push({
        api,
        text: `targets.${api}.version is not set, and the ${LABEL[api]} serves no endpoint that says its version: set the Splice release it runs (rules are bound to releases, and none is assumed), e.g. add version: ${EXAMPLE_VERSION[api]} under targets.${api}`,
      });
    } else if (!reads && t.version === undefined) {
      out.push({ api, text: `targets.${api}.version is not set, and without the preflight (--no-preflight, run.preflight: false) it is not read from the target: set it (none is assumed), e.g. add version: ${EXAMPLE_VERSION[api]} under targets.${api}` });
    }
    for (const [key, value] of Object.entries(t.fixtures)) {
      if (!FILE_FIXTURE.test(key) || typeof value !== 'string') continue;
      const why = fileProblem(value);
      if (why !== undefined) out.push({ api, text: `targets.${api}.fixtures.${key}: ${why}` });
    }
  }
  return out;
}

/** Why a fixture file cannot be read (a relative path is read from the working directory), or undefined. */
function fileProblem(file: string): string | undefined {
  const path = isAbsolute(file) ? file : resolve(process.cwd(), file);
  const where = path === file ? file : `${file} (${path})`;
  const st = statSync(path, { throwIfNoEntry: false });
  if (st === undefined) return `the file ${where} does not exist`;
  if (!st.isFile()) return `${where} is not a file`;
  try {
    accessSync(path, constants.R_OK);
  } catch (e) {
    return `the file ${where} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
  }
  return undefined;
}

/** The client a probe uses: the target's address, headers and the run's bounds, as the checks' client has them. */
function probeClient(api: Api, target: TargetConfig, config: Config): HttpClient {
  const r = config.run;
  // run.maxRequestsPerSecond holds for the preflight's reads too, in the window of the run that follows
  const pace = r.maxRequestsPerSecond !== undefined ? { pace: new RequestPace(r.maxRequestsPerSecond, 1, 0, Date.now, Promise.resolve(processPaceMemory())) } : {};
  return new HttpClient({ api, baseUrl: target.url, timeoutMs: r.timeoutMs, maxResponseBytes: r.maxResponseBytes, retries: r.retries, retryMaxWaitMs: r.retryMaxWaitMs, maxJsonDepth: r.maxJsonDepth, maxHeaderBytes: r.maxHeaderBytes, headers: target.headers, ...pace, ...(config.secrets !== undefined ? { secrets: config.secrets } : {}) });
}

type Answer = { x: Exchange } | { failed: string };

async function send(client: HttpClient, req: HttpRequest): Promise<Answer> {
  try {
    return { x: await client.send(req) };
  } catch (e) {
    return { failed: e instanceof TransportError ? e.message : (e as Error).message };
  }
}

const isJson = (x: Exchange) => x.json !== undefined && (x.mediaType === undefined || x.mediaType === 'application/json' || x.mediaType.endsWith('+json'));

/** A credential for a role: the token, `missing` (none configured for it), or why it could not be had. */
type Credential = { token: string } | { missing: string } | { failed: string };

async function credential(tokens: TokenProvider, target: TargetConfig, api: Api, role: string): Promise<Credential> {
  if (target.auth.kind === 'none') return { missing: `targets.${api}.auth is "none": no credential for role "${role}"` };
  try {
    return { token: await tokens.tokenFor(role) };
  } catch (e) {
    if (e instanceof AuthUnavailable) return { missing: `targets.${api}.auth: ${e.message}` };
    return { failed: `cannot get a token for role "${role}" (targets.${api}.auth): ${(e as Error).message}` };
  }
}

interface Read {
  /** e.g. "GET /v2/version" */
  what: string;
  req: HttpRequest;
  role?: string;
  /** statuses that show the interface answered the read as it should (200 by default) */
  ok?: number[];
}

/**
 * What an answer to a read says about the set-up: undefined when it is the interface's answer; else the problem,
 * naming the setting to change. `sentToken` says whether a credential went with it.
 */
function setUpProblem(api: Api, url: string, read: Read, a: Answer, sentToken: boolean): string | undefined {
  if ('failed' in a) return `${read.what}: no answer from ${url}: ${a.failed}`;
  const x = a.x;
  const base = `is ${url} the ${LABEL[api]}'s base URL (e.g. ${EXAMPLE_URL[api]})?`;
  const status = x.status;
  if (status === 401 || status === 403) {
    if (sentToken) return `the ${read.role} token was refused on ${read.what} (${status}): check targets.${api}.auth (role "${read.role}")`;
    const set = api === 'scan' || api === 'registry' ? `the suite sends the ${LABEL[api]} no bearer token: a gateway's key goes in targets.${api}.headers` : `set targets.${api}.auth, or targets.${api}.headers for a gateway's key`;
    return `${read.what} was refused (${status}) without a credential: the target asks for one (${set})`;
  }
  if (status >= 300 && status < 400) return `${read.what} was redirected (${status}${x.headers.location !== undefined ? ` to ${x.headers.location}` : ''}): ${base}`;
  if (status === 404 && !(read.ok ?? [200]).includes(404)) return `${read.what} answered 404 (not found): ${base}`;
  if (status === 429 || status === 503) return `${read.what} answered ${status}: the target is overloaded or not ready; try again later`;
  if ((read.ok ?? [200]).includes(status) && !isJson(x)) {
    return `${read.what} answered ${status} with ${x.mediaType ?? 'no content type'}${x.mediaType === 'application/json' ? ' that does not parse' : ''}, not the API's JSON: ${base}`;
  }
  return undefined;
}

/** A target's own string as a message quotes it: at most 80 characters. */
const quoted = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}...` : s);

/** The target's version, its configured one, or a problem: never one assumed. */
function settleVersion(api: Api, target: TargetConfig, reported: string | undefined, where: string, why: string | undefined): { version?: PreflightTarget['version']; finding: PreflightFinding } {
  const said = reported !== undefined ? numericVersion(reported) : undefined;
  const read = said === undefined ? undefined : api === 'ledger' ? ledgerLine(said) : said;
  const configured = target.version;
  if (read !== undefined && configured !== undefined) {
    if (!versionsAgree(configured, said!)) {
      return { finding: { kind: 'problem', text: `targets.${api}.version is "${configured}", but ${where} says ${quoted(reported!)}: correct the setting, or remove it (the version is read from the target)` } };
    }
    return { version: { version: configured, from: 'configuration' }, finding: { kind: 'ok', text: `version ${configured} (${where} says ${quoted(reported!)})` } };
  }
  if (read !== undefined) return { version: { version: read, from: 'target' }, finding: { kind: 'ok', text: `version ${read}, read from ${where} (${quoted(reported!)})` } };
  const unread = reported !== undefined ? `${where} says ${quoted(reported)}, which is no version` : `${where} ${why ?? 'names no version'}`;
  if (configured !== undefined) return { version: { version: configured, from: 'configuration' }, finding: { kind: 'ok', text: `version ${configured} (configured; ${unread})` } };
  return { finding: { kind: 'problem', text: `the ${api}'s version is unknown: ${unread}, and targets.${api}.version is not set (e.g. add version: ${EXAMPLE_VERSION[api]} under targets.${api}); no version is assumed` } };
}

async function ledgerPreflight(target: TargetConfig, config: Config, details: boolean): Promise<PreflightTarget> {
  const api: Api = 'ledger';
  const out: PreflightTarget = { api, url: target.url, findings: [] };
  const client = probeClient(api, target, config);
  const tokens = new TokenProvider(target.auth, config.run.timeoutMs, config.run.maxResponseBytes, config.run.maxHeaderBytes, config.run.maxJsonDepth);
  const cred = await credential(tokens, target, api, 'admin');
  if ('missing' in cred) out.findings.push({ kind: 'problem', text: `${cred.missing}: every ledger check needs the token of a user with ParticipantAdmin (role "admin"), so nothing could run` });
  if ('failed' in cred) out.findings.push({ kind: 'problem', text: cred.failed });
  const token = 'token' in cred ? cred.token : undefined;
  const read: Read = { what: 'GET /v2/version', req: { method: 'GET', path: '/v2/version' }, role: 'admin' };
  const a = await send(client, { ...read.req, ...(token !== undefined ? { token } : {}) });
  const refusedWithout = token === undefined && 'x' in a && (a.x.status === 401 || a.x.status === 403);
  const problem = refusedWithout ? undefined : setUpProblem(api, target.url, read, a, token !== undefined);
  if (problem !== undefined) out.findings.push({ kind: 'problem', text: problem });
  if ('x' in a && a.x.status === 200 && isJson(a.x) && problem === undefined) {
    out.findings.push({ kind: 'ok', text: `${read.what} as admin: 200 in ${a.x.record.durationMs} ms` });
    const v = (a.x.json as { version?: unknown }).version;
    const settled = settleVersion(api, target, typeof v === 'string' ? v : undefined, 'GET /v2/version', typeof v === 'string' ? undefined : 'answers no version field (which the API requires: with targets.ledger.version set, the run judges that too)');
    out.findings.push(settled.finding);
    if (settled.version !== undefined) out.version = settled.version;
    if (details) {
      // what the set-up steps and the reassignment checks will find (FACTS.md): informative, never a problem
      const syncs = await send(client, { method: 'GET', path: '/v2/state/connected-synchronizers', ...(token !== undefined ? { token } : {}) });
      const list = 'x' in syncs ? (syncs.x.json as { connectedSynchronizers?: unknown } | undefined)?.connectedSynchronizers : undefined;
      const n = Array.isArray(list) ? list.length : undefined;
      out.findings.push({
        kind: 'ok',
        text: n === undefined
          ? `GET /v2/state/connected-synchronizers: ${'x' in syncs ? syncs.x.status : syncs.failed}`
          : `${n} connected synchronizer(s)${n < 2 ? ' (the reassignment checks need two and will be skipped)' : ' (party allocation and vetting uploads will name one: fixture synchronizerId, else the first)'}`,
      });
    }
  } else if (problem === undefined && !refusedWithout && 'x' in a) {
    // an answer that is no set-up problem but no version either (a 500, say): the run judges it, but needs a version
    const settled = settleVersion(api, target, undefined, 'GET /v2/version', `answered ${a.x.status}`);
    out.findings.push(settled.finding);
    if (settled.version !== undefined) out.version = settled.version;
  }
  return out;
}

async function scanPreflight(target: TargetConfig, config: Config): Promise<PreflightTarget> {
  const api: Api = 'scan';
  const out: PreflightTarget = { api, url: target.url, findings: [] };
  const client = probeClient(api, target, config);
  const read: Read = { what: 'GET /version', req: { method: 'GET', path: '/version' } };
  const a = await send(client, read.req);
  const v = 'x' in a && a.x.status === 200 && isJson(a.x) ? (a.x.json as { version?: unknown }).version : undefined;
  if (typeof v === 'string') {
    out.findings.push({ kind: 'ok', text: `${read.what}: 200 in ${(a as { x: Exchange }).x.record.durationMs} ms` });
    const settled = settleVersion(api, target, v, 'GET /version', undefined);
    out.findings.push(settled.finding);
    if (settled.version !== undefined) out.version = settled.version;
    return out;
  }
  const problem = setUpProblem(api, target.url, read, a, false);
  // a 404 on /version alone does not say the base is wrong: a read every scan serves decides
  if (problem !== undefined && !('x' in a && a.x.status === 404)) {
    out.findings.push({ kind: 'problem', text: problem });
    return out;
  }
  const list: Read = { what: 'GET /v0/ans-entries?page_size=1', req: { method: 'GET', path: '/v0/ans-entries', query: { page_size: 1 } } };
  const b = await send(client, list.req);
  const listProblem = setUpProblem(api, target.url, list, b, false);
  if (listProblem !== undefined) {
    out.findings.push({ kind: 'problem', text: listProblem });
    return out;
  }
  if ('x' in b) out.findings.push({ kind: 'ok', text: `${list.what}: ${b.x.status} in ${b.x.record.durationMs} ms` });
  const why = 'x' in a ? `answered ${a.x.status}${a.x.status === 200 ? ' without a version field' : ''}` : 'did not answer';
  const settled = settleVersion(api, target, undefined, 'GET /version', why);
  out.findings.push(settled.finding);
  if (settled.version !== undefined) out.version = settled.version;
  return out;
}

const VALIDATOR_NEEDS_TOKEN =
  'every validator route, the scan-proxy routes included, needs the validator user\'s token: the checks that need it are skipped with this reason (configure targets.validator.auth with a token, secret or client for role "user")';

async function validatorPreflight(target: TargetConfig, config: Config): Promise<PreflightTarget> {
  const api: Api = 'validator';
  const out: PreflightTarget = { api, url: target.url, findings: [], ...(target.version !== undefined ? { version: { version: target.version, from: 'configuration' as const } } : {}) };
  const client = probeClient(api, target, config);
  const tokens = new TokenProvider(target.auth, config.run.timeoutMs, config.run.maxResponseBytes, config.run.maxHeaderBytes, config.run.maxJsonDepth);
  const user = await credential(tokens, target, api, 'user');
  const entries: Read = { what: 'GET /v0/entry/all', req: { method: 'GET', path: '/v0/entry/all' }, role: 'user' };
  if ('token' in user) {
    const a = await send(client, { ...entries.req, token: user.token });
    const problem = setUpProblem(api, target.url, entries, a, true);
    if (problem !== undefined) out.findings.push({ kind: 'problem', text: problem });
    else if ('x' in a) {
      out.findings.push({ kind: 'ok', text: `${entries.what} as user: ${a.x.status} in ${a.x.record.durationMs} ms` });
      // the scan-proxy routes need the token too (FACTS.md), whatever user it names
      const proxy: Read = { what: 'GET /v0/scan-proxy/open-and-issuing-mining-rounds', req: { method: 'GET', path: '/v0/scan-proxy/open-and-issuing-mining-rounds' }, role: 'user' };
      const p = await send(client, { ...proxy.req, token: user.token });
      const pp = setUpProblem(api, target.url, proxy, p, true);
      if (pp !== undefined) out.findings.push({ kind: 'problem', text: pp });
      else if ('x' in p) out.findings.push({ kind: 'ok', text: `${proxy.what} as user: ${p.x.status}` });
    }
  } else {
    if ('failed' in user) out.findings.push({ kind: 'problem', text: user.failed });
    else out.findings.push({ kind: 'skip', text: `${user.missing}: ${VALIDATOR_NEEDS_TOKEN}` });
    // the checks that need no token still run: the interface must be there
    const a = await send(client, { method: 'GET', path: '/v0/entry/all' });
    const refused = 'x' in a && (a.x.status === 401 || a.x.status === 403);
    const problem = refused ? undefined : setUpProblem(api, target.url, { ...entries, what: 'GET /v0/entry/all without a token' }, a, false);
    if (problem !== undefined) out.findings.push({ kind: 'problem', text: problem });
    else if ('x' in a) out.findings.push({ kind: 'ok', text: `GET /v0/entry/all without a token: ${a.x.status}` });
  }
  // a second validator user is optional (one check needs it); a configured one must be accepted (asked once the
  // validator answered the first)
  if (out.findings.some((f) => f.kind === 'problem')) return out;
  if (tokens.roles().includes('secondUser')) {
    const second = await credential(tokens, target, api, 'secondUser');
    if ('token' in second) {
      const read: Read = { ...entries, role: 'secondUser' };
      const problem = setUpProblem(api, target.url, read, await send(client, { ...read.req, token: second.token }), true);
      out.findings.push(problem !== undefined ? { kind: 'problem', text: problem } : { kind: 'ok', text: `${read.what} as secondUser: accepted` });
    } else out.findings.push({ kind: 'problem', text: 'failed' in second ? second.failed : second.missing });
  } else if ('token' in user) {
    out.findings.push({ kind: 'skip', text: 'no credential for role "secondUser": the check of whose entries a token lists is skipped' });
  }
  return out;
}

async function registryPreflight(target: TargetConfig, config: Config): Promise<PreflightTarget> {
  const api: Api = 'registry';
  const out: PreflightTarget = { api, url: target.url, findings: [], ...(target.version !== undefined ? { version: { version: target.version, from: 'configuration' as const } } : {}) };
  const client = probeClient(api, target, config);
  // an unknown instruction: a registry answers 404 with its JSON error body (FACTS.md), where a path no route serves is
  // answered 404 without one; a 400 (an id its parser refuses), whatever its body, comes from the route
  const read: Read = {
    what: 'POST a transfer-instruction withdraw context for an unknown id',
    req: { method: 'POST', path: '/registry/transfer-instruction/v1/00preflight/choice-contexts/withdraw', json: {} },
    ok: [404],
  };
  const a = await send(client, read.req);
  let problem = 'x' in a && a.x.status === 400 ? undefined : setUpProblem(api, target.url, read, a, false);
  if (problem === undefined && 'x' in a && a.x.status === 200 && !isJson(a.x)) problem = `${read.what} answered 200 with ${a.x.mediaType ?? 'no content type'}: is ${target.url} the ${LABEL[api]}'s base URL (${EXAMPLE_URL[api]})?`;
  if (problem !== undefined) out.findings.push({ kind: 'problem', text: problem });
  else if ('x' in a) out.findings.push({ kind: 'ok', text: `${read.what}: ${a.x.status} in ${a.x.record.durationMs} ms` });
  return out;
}

export interface PreflightOptions {
  /** doctor: informative extras (the ledger's connected synchronizers) */
  details?: boolean;
}

/**
 * Runs the preflight on every selected interface with a target, all at once, and fills in each target's version where
 * it was read from the target. Never throws for what it finds: the result holds every problem.
 */
export async function preflight(config: Config, o: PreflightOptions = {}): Promise<PreflightResult> {
  const apis = config.run.only.filter((api) => config.targets[api] !== undefined);
  const statics = staticProblems(config, apis);
  const targets = await Promise.all(
    apis.map((api) => {
      const t = config.targets[api]!;
      switch (api) {
        case 'ledger':
          return ledgerPreflight(t, config, o.details === true);
        case 'scan':
          return scanPreflight(t, config);
        case 'validator':
          return validatorPreflight(t, config);
        case 'registry':
          return registryPreflight(t, config);
      }
    }),
  );
  for (const s of statics) targets.find((t) => t.api === s.api)!.findings.unshift({ kind: 'problem', text: s.text });
  for (const t of targets) if (t.version !== undefined) config.targets[t.api]!.version = t.version.version;
  const problems = targets.flatMap((t) => t.findings.filter((f) => f.kind === 'problem').map((f) => `${t.api}: ${f.text}`));
  return { targets, problems };
}

/**
 * The preflight of a run: the versions read are filled in; any problem throws PreflightFailed (exit 2). With
 * run.preflight false, only what needs no request: every target's version configured, the fixture files.
 */
export async function preflightOrStop(config: Config, o: PreflightOptions = {}): Promise<PreflightResult> {
  const result = config.run.preflight === false ? staticOnly(config) : await preflight(config, o);
  if (result.problems.length > 0) throw new PreflightFailed(result);
  return result;
}

function staticOnly(config: Config): PreflightResult {
  const apis = config.run.only.filter((api) => config.targets[api] !== undefined);
  const statics = staticProblems(config, apis, false);
  const targets: PreflightTarget[] = apis.map((api) => {
    const t = config.targets[api]!;
    return {
      api,
      url: t.url,
      findings: [...statics.filter((s) => s.api === api).map((s) => ({ kind: 'problem' as const, text: s.text })), { kind: 'skip' as const, text: 'no preflight read (run.preflight: false)' }],
      ...(t.version !== undefined ? { version: { version: t.version, from: 'configuration' as const } } : {}),
    };
  });
  return { targets, problems: statics.map((s) => `${s.api}: ${s.text}`) };
}

/** One line per interface for a run's console: the version judged against, and what will be skipped. */
export function preflightSummary(result: PreflightResult): string {
  return result.targets
    .map((t) => {
      const skips = t.findings.filter((f) => f.kind === 'skip').map((f) => f.text);
      const v = t.version !== undefined ? `version ${t.version.version}${t.version.from === 'target' ? ' (read from the target)' : ''}` : 'no version';
      return `preflight: ${t.api} ok, ${v}${skips.length > 0 ? `; ${skips.join('; ')}` : ''}\n`;
    })
    .map((s) => redactText(s))
    .join('');
}
