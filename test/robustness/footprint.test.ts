/**
 * A small, reusable footprint and retried clean-up. Two runs against the same reference server: the
 * parties the rights checks need exist, not fresh, so the second run finds the first run's again and allocates none;
 * the footprint (parties, package uploads, users not removed) is in conformance.json and summary.md. Clean-up steps
 * that fail for a while are retried; one that never succeeds is listed as not cleaned up.
 *
 * What a check asked to create counts from the request on. Through a proxy that drops the answer of every
 * user creation (the user is created, the answer never comes), every user the run left on the participant is in the
 * report, as left behind or as possibly left behind with its id; a user the clean-up deleted after all (a 2xx or 404
 * to its DELETE) is not. Before, the footprint counted only creations answered 2xx: none of them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, targetsFromBlock, type Config } from '../../harness/config.js';
import { TokenProvider } from '../../harness/transport/auth.js';
import { newFootprint, noteFootprint, noteRequest, reportedFootprint } from '../../harness/fixtures/footprint.js';
import type { RunResult } from '../../harness/run/runner.js';
import type { ExchangeRecord } from '../../harness/types.js';
import type { ReferenceServer } from '../../reference/index.js';
import { startMiniServer } from '../harness/mini-server.js';
import { behindProxy, cleanup, miniConfig, reference, runQuietly, targetsOf, tempDir } from './harness.js';
import type { FaultProxy } from './fault-proxy.js';

const tmp = tempDir('footprint');
afterAll(cleanup);

/** A ledger exchange record as the HTTP client makes it (the response, or the transport error, left to the test). */
function exchange(method: string, path: string, body?: unknown, end?: { status?: number; error?: string }): ExchangeRecord {
  return {
    api: 'ledger',
    request: { method, url: `http://127.0.0.1:1${path}`, headers: {}, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) },
    ...(end?.status !== undefined ? { response: { status: end.status, headers: {}, body: '{}' } } : {}),
    ...(end?.error !== undefined ? { transportError: end.error } : {}),
    startedAt: new Date().toISOString(),
    durationMs: 1,
  };
}
const userBody = (id: string) => ({ user: { id }, rights: [] });

describe('the footprint counts what was asked from the request on', () => {
  it('a creation counts once answered 2xx; a rejection, a refusal or a request that never arrived does not', () => {
    const f = newFootprint();
    const cases: Array<[string, { status?: number; error?: string }]> = [
      ['ok', { status: 200 }],
      ['rejected', { status: 400 }],
      ['exists', { status: 409 }],
      ['refused-429', { status: 429 }],
      ['refused-503', { status: 503 }],
      ['redirected', { status: 302 }],
      ['refused-connection', { error: 'connection refused by http://127.0.0.1:1/v2/users: is the target running?' }],
      ['fast-failed', { error: 'http://127.0.0.1:1 did not answer 3 requests in a row within 5000 ms; not waiting again' }],
    ];
    for (const [id, end] of cases) {
      const x = exchange('POST', '/v2/users', userBody(id));
      noteRequest(f, x);
      Object.assign(x, exchange('POST', '/v2/users', userBody(id), end));
      noteFootprint(f, x);
    }
    expect(reportedFootprint(f)).toEqual({ parties: 0, packageUploads: 0, usersLeft: ['ok'] });
  });

  it('a creation whose answer was lost, or came as a gateway error, is possibly left behind, with its id', () => {
    const f = newFootprint();
    const lost = [
      exchange('POST', '/v2/users', userBody('u-dropped'), { error: 'request to http://127.0.0.1:1/v2/users failed: UND_ERR_SOCKET other side closed' }),
      exchange('POST', '/v2/users', userBody('u-timeout'), { error: 'no response from http://127.0.0.1:1/v2/users within 5000 ms (run.timeoutMs)' }),
      exchange('POST', '/v2/users', userBody('u-502'), { status: 502 }),
      exchange('POST', '/v2/parties', { partyIdHint: 'cc-party-1' }, { status: 504 }),
      exchange('POST', '/v2/packages', '<120 bytes of binary data, sha256 0123456789abcdef0123456789abcdef>', { error: 'request to x failed: ECONNRESET' }),
    ];
    for (const x of lost) noteFootprint(f, x);
    const r = reportedFootprint(f)!;
    expect(r.usersLeft).toEqual([]);
    expect(r.parties).toBe(0);
    expect(r.possiblyLeft?.map((p) => `${p.kind} ${p.id}`)).toEqual(['user u-dropped', 'user u-timeout', 'user u-502', 'party hint cc-party-1', 'package sha256 0123456789abcdef0123456789abcdef']);
    expect(r.possiblyLeft?.[0]?.why).toMatch(/^no answer: .*other side closed/);
    expect(r.possiblyLeft?.[2]?.why).toBe('answered 502');
  });

  it('a request still in flight when the check ends counts as possibly left behind', () => {
    const f = newFootprint();
    noteRequest(f, exchange('POST', '/v2/users', userBody('u-in-flight')));
    noteRequest(f, exchange('POST', '/v2/parties', { partyIdHint: 'cc-slow' }));
    expect(reportedFootprint(f)?.possiblyLeft).toEqual([
      { kind: 'user', id: 'u-in-flight', why: 'no answer before the check ended' },
      { kind: 'party', id: 'hint cc-slow', why: 'no answer before the check ended' },
    ]);
  });

  it('a user stops counting only once its deletion is confirmed (2xx or 404), whether its creation was answered or not', () => {
    const f = newFootprint();
    noteFootprint(f, exchange('POST', '/v2/users', userBody('kept'), { status: 200 }));
    noteFootprint(f, exchange('POST', '/v2/users', userBody('deleted'), { status: 200 }));
    noteFootprint(f, exchange('POST', '/v2/users', userBody('lost-then-gone'), { error: 'request to x failed: UND_ERR_SOCKET other side closed' }));
    noteFootprint(f, exchange('POST', '/v2/users', userBody('lost-then-unknown'), { error: 'request to x failed: UND_ERR_SOCKET other side closed' }));
    noteFootprint(f, exchange('POST', '/v2/users', userBody('lost-then-exists'), { error: 'request to x failed: UND_ERR_SOCKET other side closed' }));
    noteFootprint(f, exchange('DELETE', '/v2/users/deleted', undefined, { status: 200 }));
    noteFootprint(f, exchange('DELETE', '/v2/users/lost-then-gone', undefined, { status: 404 }));
    // a deletion whose answer was lost, or refused, confirms nothing
    noteFootprint(f, exchange('DELETE', '/v2/users/kept', undefined, { error: 'no response from x within 5000 ms (run.timeoutMs)' }));
    noteFootprint(f, exchange('DELETE', '/v2/users/lost-then-unknown', undefined, { status: 503 }));
    // the same id created again answered 409: the lost creation went through
    noteFootprint(f, exchange('POST', '/v2/users', userBody('lost-then-exists'), { status: 409 }));
    const r = reportedFootprint(f)!;
    expect(r.usersLeft.sort()).toEqual(['kept', 'lost-then-exists']);
    expect(r.possiblyLeft?.map((p) => p.id)).toEqual(['lost-then-unknown']);
  });
});

describe('the footprint of a run whose user creations lose their answers', () => {
  let ref: ReferenceServer;
  let proxy: FaultProxy;
  let result: RunResult;
  let before: Set<string>;
  let after: Set<string>;

  /** Every user id on the reference's participant, read past the proxy (bounded: 20 pages). */
  async function usersOnTarget(): Promise<Set<string>> {
    const target = targetsFromBlock(ref.targetConfig(), 'the reference server').ledger!;
    const token = await new TokenProvider(target.auth).tokenFor('admin');
    const ids = new Set<string>();
    let pageToken = '';
    for (let page = 0; page < 20; page++) {
      const res = await fetch(`${ref.urls.ledger}/v2/users?pageSize=1000${pageToken !== '' ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) });
      const body = (await res.json()) as { users?: Array<{ id: string }>; nextPageToken?: string };
      for (const u of body.users ?? []) ids.add(u.id);
      pageToken = body.nextPageToken ?? '';
      if (pageToken === '') break;
    }
    return ids;
  }

  beforeAll(async () => {
    ref = await reference();
    const targets = targetsOf(ref);
    // the creation reaches the participant; its answer is dropped with the connection
    proxy = await behindProxy(targets, 'ledger', 'lost-answer', { match: (method, path) => method === 'POST' && path === '/v2/users' });
    before = await usersOnTarget();
    const config: Config = {
      run: {
        ...DEFAULT_RUN,
        only: ['ledger'],
        reportsDir: join(tmp, 'lost'),
        html: false,
        compare: false,
        runs: 2,
        retries: 0,
        // a user made by the createUser fixture (deleted by the clean-up after all), by a direct creation whose id
        // round-trips (left behind), and by creations of ids the participant rejects (nothing left)
        requirements: ['ledger.update-user.id-never-changes', 'ledger.users.id-allowed-characters', 'ledger.users.id-too-long-rejected'],
      },
      targets: targetsFromBlock(targets, 'the reference behind a proxy'),
      reference: { faults: [] },
      useReference: false,
      sources: ['test'],
    };
    result = await runQuietly(config);
    after = await usersOnTarget();
  }, 120_000);

  it('reports every user the run left on the participant, by id', () => {
    expect(proxy.counts.faulted).toBeGreaterThan(0);
    const left = [...after].filter((id) => !before.has(id));
    // the round-trip check's first user stays: its creation's answer was lost, and the check ended there
    expect(left.length).toBeGreaterThan(0);
    const fp = result.report.footprint!;
    const reported = new Set([...fp.usersLeft, ...(fp.possiblyLeft ?? []).filter((p) => p.kind === 'user').map((p) => p.id)]);
    expect(left.filter((id) => !reported.has(id))).toEqual([]);
    for (const p of fp.possiblyLeft ?? []) expect(p.why).toMatch(/^no answer: /);
  });

  it('does not report a user whose deletion the participant confirmed, and the checks end in error, not fail', () => {
    const fp = result.report.footprint!;
    const reported = [...fp.usersLeft, ...(fp.possiblyLeft ?? []).map((p) => p.id)];
    // the fixture's user: created, answer lost, deleted by the clean-up (2xx): gone, and not reported
    const fixtureCheck = result.report.checks.find((c) => c.id === 'ledger.update-user.id-unchanged');
    expect(fixtureCheck?.verdict).toBe('error');
    expect(fixtureCheck?.footprint).toBeUndefined();
    for (const id of reported) expect(after.has(id) || !id.startsWith('cc-user-'), id).toBe(true);
    for (const c of result.report.checks) expect(c.verdict, `${c.id}: ${c.reason ?? ''}`).not.toBe('fail');
  });

  it('says so in summary.md', () => {
    const summary = readFileSync(join(result.dir, 'summary.md'), 'utf8');
    expect(summary).toMatch(/- possibly left behind: \d+ \(asked to create, but the answer was lost/);
    expect(summary).toContain('ledger.create-user.id-allowed-characters`: user `');
  });
});

describe('the footprint of a run on a ledger', () => {
  let ref: ReferenceServer;
  const runs: RunResult[] = [];

  beforeAll(async () => {
    ref = await reference();
    for (const name of ['first', 'second']) {
      const config: Config = {
        run: {
          ...DEFAULT_RUN,
          only: ['ledger'],
          reportsDir: join(tmp, name),
          html: false,
          compare: false,
          runs: 3,
          // rights-persisted and the too-many-rights limit (333 parties on the reference) need parties that exist
          requirements: ['ledger.grant-user-rights.rights-persisted', 'ledger.grant-user-rights.too-many-rights-rejected', 'ledger.list-user-rights.response-schema'],
        },
        targets: targetsFromBlock(ref.targetConfig(), 'the reference server'),
        reference: { faults: [] },
        useReference: false,
        sources: ['test'],
      };
      runs.push(await runQuietly(config));
    }
  }, 120_000);

  it('reuses the parties of the first run in the second: none allocated again', () => {
    const [first, second] = runs as [RunResult, RunResult];
    for (const r of runs) {
      for (const id of ['ledger.grant-user-rights.rights-persisted', 'ledger.grant-user-rights.too-many-rights-rejected', 'ledger.list-user-rights.response-schema']) {
        expect(r.report.requirements.find((q) => q.id === id)?.verdict, id).toBe('pass');
      }
    }
    expect(first.report.footprint?.parties).toBeGreaterThan(100);
    expect(second.report.footprint).toMatchObject({ parties: 0, packageUploads: 0, usersLeft: [], notCleanedUp: [] });
    // every answer came: nothing possibly left behind
    for (const r of runs) expect(r.report.footprint?.possiblyLeft).toBeUndefined();
  });

  it('prints the footprint in conformance.json and summary.md', () => {
    const [first] = runs as [RunResult];
    const json = JSON.parse(readFileSync(join(first.dir, 'conformance.json'), 'utf8')) as { footprint?: { parties: number; usersLeft: string[] } };
    expect(json.footprint?.parties).toBe(first.report.footprint?.parties);
    expect(json.footprint?.usersLeft).toEqual([]);
    const summary = readFileSync(join(first.dir, 'summary.md'), 'utf8');
    expect(summary).toContain('## Footprint on the target');
    expect(summary).toContain(`- parties allocated: ${first.report.footprint?.parties}`);
    expect(summary).toContain('- users created and not removed: 0');
    expect(summary).not.toContain('possibly left behind');
  });
});

describe('clean-up steps that fail', () => {
  /** Runs the mini checks of one fixture folder against a fresh loopback mini server, with these run settings. */
  async function runMini(folder: string, run: Partial<Config['run']>): Promise<RunResult> {
    const server = await startMiniServer();
    try {
      return await runQuietly(miniConfig(server.url, [`test/fixtures/mini/${folder}/*.check.ts`], { reportsDir: join(tmp, folder), ...run }));
    } finally {
      await server.close();
    }
  }

  it('are retried, and what never succeeds is listed as not cleaned up', async () => {
    // retries 0: the HTTP client does not retry the 503 itself, so the clean-up's own retry is what is tested
    const r = await runMini('cleanup', { retries: 0, timeoutMs: 2000, checkTimeoutMs: 10_000 });
    const check = r.report.checks.find((c) => c.id === 'v.cleanup');
    // a clean-up failure never changes the verdict
    expect(check?.verdict).toBe('pass');
    expect(check?.notCleanedUp).toEqual(['deleting the teapot: answered 418 (3 attempts)']);
    expect(r.report.footprint?.notCleanedUp).toEqual([{ check: 'v.cleanup', what: 'deleting the teapot: answered 418 (3 attempts)' }]);
    const summary = readFileSync(join(r.dir, 'summary.md'), 'utf8');
    expect(summary).toContain('Could not be cleaned up (1, after retries)');
    expect(summary).toContain('- `v.cleanup`: deleting the teapot: answered 418 (3 attempts)');
  }, 60_000);

  it('share one deadline with their retries and the HTTP client\'s own, within the check\'s time limit', async () => {
    // a step answered 503 with Retry-After: 1 takes the HTTP client 2 s (two retries) an attempt, 6.75 s for three
    // attempts: more than the test's limit (checkTimeoutMs + 5 s), which the clean-up stays within
    const r = await runMini('cleanup-deadline', { retries: 2, retryMaxWaitMs: 5000, timeoutMs: 2000, checkTimeoutMs: 1000 });
    const check = r.report.checks.find((c) => c.id === 'v.cleanup-deadline');
    expect(check?.verdict, check?.error).toBe('pass');
    expect(check?.durationMs).toBeLessThan(1000 + 5000);
    expect(check?.notCleanedUp?.[0]).toMatch(/^the stubborn step: .*\(\d attempts?, then the clean-up time ran out\)$/);
    // the step after it is not tried once the time is out; when the stubborn step stopped because its next wait would
    // not fit, the step after it may still start in the time left, and succeed or be cut off at the same deadline
    // (which of these depends on the machine's timing; the deadline holds in each)
    expect(check?.notCleanedUp?.slice(1)).toSatisfy(
      (rest: string[]) => rest.length === 0 || (rest.length === 1 && /^the step after it: (not tried, the clean-up time ran out|.* \(\d attempts?, then the clean-up time ran out\))$/.test(rest[0]!)),
    );
  }, 60_000);
});
