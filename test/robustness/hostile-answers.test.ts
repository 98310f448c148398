/**
 * Answers that decide nothing: the CLI runs against the embedded reference through fault-injecting
 * loopback proxies (fault-proxy.ts), one class of hostile answer per interface. The reference behind the damaged
 * interfaces carries planted faults, so that a rule that passed on the damage would be a planted fault reported as
 * pass; the ledger of the later runs is a clean reference that loses one answer, where a failure would be a clean target
 * reported as fail. In every run: it ends by itself, writes its reports and prints no stack trace.
 *
 * Runs (each a CLI process, four interfaces behind four proxies; they run at once, as fault-classes.test.ts's do):
 * - overload: 429 and 503 to everything in the Splice error form ({error}), the error-body faults planted: no
 *   error-body rule passes; a gateway answering 401 to every ledger request, user-id faults planted: no "...rejected"
 *   rule passes (a 401 refuses the caller, not the input)
 * - 200s that are not the JSON they declare (an HTML page, a body cut short but framed whole, a body behind `)]}'`)
 *   on scan and the registry, a list fault and a choice-context fault planted: no rule of theirs passes
 * - a body that is not UTF-8, a number 1e400: the body rule fails on them, and nothing passes on them
 * - one 429, 503, 502 or 504 on a comparison (POST /v2/dars beside POST /v2/packages) and on a read-back (the user read
 *   after an update) of a clean ledger: never a fail
 * And, in this process, a run whose OAuth2 tokens live 20 s: one token fetched for many requests.
 *
 * Covered elsewhere, not repeated here: two and three SIGTERMs, and SIGINTs (test/harness/signals.test.ts), a secret
 * holding '/' echoed as '\/' and in its other encoded forms (test/harness/secrets.test.ts,
 * test/harness/redact-encoded.test.ts), the token provider's reuse, sharing and bounds (test/harness/token-fetch.test.ts).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../../harness/types.js';
import type { ReferenceServer } from '../../reference/index.js';
import { startMiniServer } from '../harness/mini-server.js';
import { SHORT_LIVED_REQUESTS } from '../fixtures/mini/token/requests.js';
import type { FaultClass, FaultOptions, FaultProxy } from './fault-proxy.js';
import {
  APIS,
  behindProxy,
  cleanup,
  expectEndedWithReports,
  expectNoneFail,
  expectNonePass,
  miniConfig,
  readReport,
  reference,
  requirementArgs,
  runQuietly,
  spawnCli,
  targetsOf,
  tempDir,
  writeConfig,
  type CliRun,
  type ReportJson,
} from './harness.js';

const tmp = tempDir('hostile');

/** The faults planted in the reference behind the damaged interfaces: each breaks a rule the runs below judge. */
const PLANTED = [
  'scan-errors-message-field',
  'validator-errors-message-field',
  'registry-errors-error-as-message',
  'ledger-users-id-slash-accepted',
  'ledger-users-id-129-accepted',
  'scan-list-ans-entries-page-size-exceeded',
  'registry-choice-context-empty-created-event-blob',
];

/** What an interface of a run meets: a fault class, on the faulty or the clean reference. */
interface Side {
  fault: FaultClass;
  on: 'faulty' | 'clean';
  options?: FaultOptions;
}

/** The first request of each kind: POST /v2/dars (the comparison's other side), GET /v2/users/{id} (the read-back). */
function firstComparisonAndReadBack(): FaultOptions['match'] {
  const seen = new Set<string>();
  return (method, path) => {
    const kind = method === 'POST' && path === '/v2/dars' ? 'dars' : method === 'GET' && /^\/v2\/users\/[^/]+$/.test(path) ? 'read-back' : undefined;
    if (kind === undefined || seen.has(kind)) return false;
    seen.add(kind);
    return true;
  };
}
const oneAnswer = (status: number): Side => ({ fault: 'status', on: 'clean', options: { status, match: firstComparisonAndReadBack() } });

interface Run {
  name: string;
  sides: Record<Api, Side>;
  /** the requirements of each interface the run judges */
  requirements: Record<Api, string[]>;
  exit: number;
}

const OVERLOAD_REQUIREMENTS: Record<Api, string[]> = {
  ledger: ['ledger.users.id-invalid-character-rejected', 'ledger.users.id-too-long-rejected'],
  scan: ['scan.errors.error-body'],
  validator: ['validator.errors.error-body'],
  registry: ['registry.errors.error-body'],
};

/** a list rule with its fault planted, a choice-context rule with its fault planted, and the body rules */
const UNDECIDED_REQUIREMENTS: Record<Api, string[]> = {
  ledger: ['ledger.upload-package.same-as-dars-upload', 'ledger.update-user.id-never-changes'],
  scan: ['scan.list-ans-entries.at-most-page-size', 'scan.list-ans-entries.response-schema'],
  validator: ['validator.get-open-and-issuing-mining-rounds.response-schema'],
  registry: ['registry.choice-context.disclosed-contract-fields', 'registry.get-transfer-instruction-withdraw-context.response-schema'],
};

const RUNS: Run[] = [
  {
    name: 'overload',
    sides: { ledger: { fault: 'gateway-401', on: 'faulty' }, scan: { fault: 'overload-json', on: 'faulty' }, validator: { fault: 'overload-json', on: 'faulty' }, registry: { fault: 'overload-json', on: 'faulty' } },
    requirements: OVERLOAD_REQUIREMENTS,
    exit: 3,
  },
  {
    name: 'undecided-a',
    sides: { ledger: oneAnswer(429), scan: { fault: 'html-200', on: 'faulty' }, validator: { fault: 'invalid-utf8', on: 'clean' }, registry: { fault: 'cut-json-200', on: 'faulty' } },
    requirements: UNDECIDED_REQUIREMENTS,
    exit: 1,
  },
  {
    name: 'undecided-b',
    sides: { ledger: oneAnswer(503), scan: { fault: 'cut-json-200', on: 'faulty' }, validator: { fault: 'huge-number', on: 'clean' }, registry: { fault: 'not-json-200', on: 'faulty' } },
    requirements: UNDECIDED_REQUIREMENTS,
    exit: 1,
  },
  {
    name: 'undecided-c',
    sides: { ledger: oneAnswer(502), scan: { fault: 'not-json-200', on: 'faulty' }, validator: { fault: 'none', on: 'clean' }, registry: { fault: 'html-200', on: 'faulty' } },
    requirements: UNDECIDED_REQUIREMENTS,
    exit: 1,
  },
  {
    name: 'undecided-d',
    sides: { ledger: oneAnswer(504), scan: { fault: 'huge-number', on: 'clean' }, validator: { fault: 'none', on: 'clean' }, registry: { fault: 'invalid-utf8', on: 'clean' } },
    requirements: UNDECIDED_REQUIREMENTS,
    exit: 1,
  },
];

/** CC_ROBUST_RUNS=overload,undecided-b runs only those runs (to look at one by hand). */
const selectedRuns = process.env.CC_ROBUST_RUNS === undefined ? RUNS : RUNS.filter((r) => process.env.CC_ROBUST_RUNS!.split(',').includes(r.name));

/**
 * A hang detector, far above what a run needs (some 10 s of CPU each; the runs share two cores with whatever else runs).
 * The requests each proxy sees are bounded too: no retry storm.
 */
const RUN_TIME_LIMIT_MS = 300_000;
const MAX_REQUESTS_PER_PROXY = 600;

interface Outcome {
  run: CliRun;
  dir: string;
  proxies: Record<Api, FaultProxy>;
}
const outcomes = new Map<string, Outcome>();

async function runThrough(run: Run, faulty: ReferenceServer, clean: ReferenceServer): Promise<Outcome> {
  const targets = targetsOf(clean);
  const faultyTargets = targetsOf(faulty);
  const proxies = {} as Record<Api, FaultProxy>;
  for (const api of APIS) {
    const side = run.sides[api];
    if (side.on === 'faulty') targets[api] = faultyTargets[api];
    proxies[api] = await behindProxy(targets, api, side.fault, side.options ?? {});
  }
  const dir = join(tmp, run.name);
  // retries 0: a single 429 or 503 reaches the check instead of being retried away
  // no preflight: its reads would meet the hostile answers first and stop the run (exit 2); how the checks judge them is the subject
  const config = writeConfig(join(tmp, `${run.name}.json`), { run: { only: APIS, reportsDir: dir, retries: 0, runs: 2, preflight: false }, targets });
  const cli = await spawnCli(['run', '--config', config, ...requirementArgs(APIS.flatMap((a) => run.requirements[a]))], { cwd: tmp, limitMs: RUN_TIME_LIMIT_MS });
  return { run: cli, dir, proxies };
}

beforeAll(async () => {
  const [faulty, clean] = await Promise.all([reference({ faults: PLANTED }), reference()]);
  for (const [i, o] of (await Promise.all(selectedRuns.map((r) => runThrough(r, faulty, clean)))).entries()) outcomes.set(selectedRuns[i]!.name, o);
}, RUN_TIME_LIMIT_MS + 30_000);

afterAll(cleanup);

const ofApi = (api: Api) => (id: string) => id.startsWith(`${api}.`);
const reportOf = (name: string): ReportJson => readReport(outcomes.get(name)!.dir);

describe.each(selectedRuns)('a run through hostile proxies ($name)', (run) => {
  it('ends by itself within the bound, writes its reports and prints no stack trace; every proxy saw a bounded number of requests', () => {
    const o = outcomes.get(run.name)!;
    expectEndedWithReports(o.run, o.dir, run.exit, JSON.stringify(Object.fromEntries(APIS.map((a) => [a, run.sides[a].fault]))));
    for (const api of APIS) {
      expect(o.proxies[api].counts.requests, api).toBeLessThan(MAX_REQUESTS_PER_PROXY);
      if (run.sides[api].fault !== 'none') expect(o.proxies[api].counts.faulted, `${api}: the fault was met`).toBeGreaterThan(0);
    }
  });

  for (const api of APIS) {
    const side = run.sides[api];
    const fault = side.fault;
    if (fault === 'none') {
      it(`${api} behind a proxy that damages nothing (the control): its requirements pass`, () => {
        const rep = reportOf(run.name);
        for (const id of run.requirements[api]) expect(rep.requirements.find((r) => r.id === id)?.verdict, id).toBe('pass');
      });
    } else if (fault === 'status') {
      it(`${api}, a clean target answering one ${side.options?.status} to a comparison and a read-back: no requirement fails`, () => {
        const status = side.options!.status!;
        const rep = reportOf(run.name);
        expectNoneFail(rep, ofApi(api), `${api} behind one ${status}`);
        // the answer reached both checks, and each ended in error naming it: the comparison and the read-back decided
        // nothing, and no generic rule judged the overload answer or the gateway's page either
        expect(outcomes.get(run.name)!.proxies[api].counts.faulted).toBe(2);
        for (const id of ['ledger.upload-package.same-as-dars', 'ledger.update-user.id-unchanged']) {
          const c = rep.checks.find((x) => x.id === id);
          expect(c?.verdict, `${id}: ${c?.reason ?? ''} ${JSON.stringify(c?.failures ?? [])}`).toBe('error');
          expect(c?.error).toMatch(new RegExp(`answered ${status}\\b`));
        }
      });
    } else if (fault === 'gateway-401') {
      it(`${api}, a gateway answering 401 to everything, user-id faults planted: no "...rejected" rule passes, none fails`, () => {
        const rep = reportOf(run.name);
        expectNonePass(rep, (id) => ofApi(api)(id) && id.endsWith('-rejected'), `${api} behind 401s`);
        expectNoneFail(rep, ofApi(api), `${api} behind 401s`);
        for (const c of rep.checks.filter((x) => x.api === api)) expect(c.error ?? '', c.id).toMatch(/answered 401, a refusal of the caller/);
      });
    } else if (fault === 'overload-json') {
      it(`${api}, 429 and 503 in the error form to everything, its error-body fault planted: the error-body rule does not pass, nothing fails`, () => {
        const rep = reportOf(run.name);
        expectNonePass(rep, ofApi(api), `${api} behind 429/503`);
        expectNoneFail(rep, ofApi(api), `${api} behind 429/503`);
        expect(rep.requirements.find((r) => r.id === `${api}.errors.error-body`)?.verdict).toBe('error');
      });
    } else if (fault === 'invalid-utf8' || fault === 'huge-number') {
      it(`${api}, every JSON body with ${fault === 'invalid-utf8' ? 'a byte that is not UTF-8' : 'the number 1e400'}: the body rule fails, nothing passes`, () => {
        const rep = reportOf(run.name);
        expectNonePass(rep, ofApi(api), `${api} behind ${fault}`);
        const schemas = rep.requirements.filter((r) => ofApi(api)(r.id) && r.id.endsWith('.response-schema'));
        expect(schemas.length).toBeGreaterThan(0);
        for (const r of schemas) expect(r.verdict, `${r.id}: ${r.reason ?? ''}`).toBe('fail');
      });
    } else {
      it(`${api}, ${fault} on every answer, faults planted: no requirement passes`, () => {
        expectNonePass(reportOf(run.name), ofApi(api), `${api} behind ${fault}`);
      });
    }
  }
});

describe('a run whose OAuth2 tokens live 20 s', () => {
  it('fetches one token for many requests, and the clean target passes', async () => {
    const server = await startMiniServer();
    try {
      const r = await runQuietly(
        miniConfig(server.url, ['test/fixtures/mini/token/*.check.ts'], { reportsDir: join(tmp, 'short-lived'), timeoutMs: 5000, checkTimeoutMs: 30_000 }, {
          auth: { kind: 'oauth2', tokenUrl: `${server.url}/token`, clients: { short: { clientId: 'short-lived', clientSecret: 'short-lived-secret' } } },
        }),
      );
      const check = r.report.checks.find((c) => c.id === 't.short-lived');
      expect(check?.verdict, check?.error).toBe('pass');
      expect(check?.requests).toBe(SHORT_LIVED_REQUESTS);
      // one fetch; a second only if the run outlived the token's reuse (18 s): never one per request
      expect(server.tokenRequests()).toBeGreaterThanOrEqual(1);
      expect(server.tokenRequests()).toBeLessThanOrEqual(2);
      expect(r.report.exitCode).toBe(0);
    } finally {
      await server.close();
    }
  }, 60_000);
});
