/**
 * judge on captures nobody here wrote: an entry that is not valid HAR (headers an object, an item that is no object,
 * nesting past run.maxJsonDepth, a million headers) is reported and skipped while the others are judged; a file that
 * is not a HAR, is cut short or holds no readable entry is exit 2 with the reason, never "OBSERVED PASS"; a large
 * capture is read within bounded memory; credentials nobody configured that the capture holds reach no report.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_RUN, type Config } from '../../harness/config.js';
import { judgeHar } from '../../harness/observe/commands.js';
import { PACKAGE_ROOT } from '../../harness/paths.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'cc-judge-robust-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const config = (name: string): Config => ({ run: { ...DEFAULT_RUN, html: false, compare: false, reportsDir: join(tmp, name) }, targets: {}, reference: { faults: [] }, useReference: false, sources: ['test'] });

/** A scan list-ans-entries exchange as a HAR entry; `over` replaces parts of it. */
function entry(over: { request?: Record<string, unknown>; response?: Record<string, unknown>; [k: string]: unknown } = {}): Record<string, unknown> {
  const { request, response, ...rest } = over;
  return {
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 1,
    request: { method: 'GET', url: 'http://node.example/api/scan/v0/ans-entries?page_size=2', httpVersion: 'HTTP/1.1', cookies: [], headers: [], queryString: [], headersSize: -1, bodySize: 0, ...request },
    response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', cookies: [], headers: [{ name: 'Content-Type', value: 'application/json' }], content: { size: 14, mimeType: 'application/json', text: '{"entries":[]}' }, redirectURL: '', headersSize: -1, bodySize: -1, ...response },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
    ...rest,
  };
}

const har = (entries: unknown[]) => JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }, null, 1);

function file(name: string, text: string | Buffer): string {
  const f = join(tmp, name);
  writeFileSync(f, text);
  return f;
}

const cli = (args: string[], node: string[] = []) => {
  const r = spawnSync(process.execPath, [...node, bin, ...args], { cwd: tmp, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, all: r.stdout + r.stderr };
};

describe('judge, entry by entry', () => {
  it('reports and skips an entry whose headers are an object, and judges the others', async () => {
    const f = file('headers-object.har', har([entry(), entry({ request: { headers: { accept: 'application/json' } } }), entry({ response: { headers: { 'content-type': 'application/json' } } }), entry()]));
    const { report } = await judgeHar(f, config('headers-object'), 20);
    expect(report.observed.exchanges).toBe(2);
    const reasons = report.observed.notJudged.map((n) => `${n.reason}: ${n.count}`);
    expect(reasons).toContain('not judged: an entry whose request.headers is not a list of {name, value}: 1');
    expect(reasons).toContain('not judged: an entry whose response.headers is not a list of {name, value}: 1');
    expect(report.observed.requirements.find((q) => q.id === 'scan.list-ans-entries.response-schema')?.verdict).toBe('observed pass');
  });

  it('skips items of the entries list that are not objects, entries nested past run.maxJsonDepth, and entries of a million headers', async () => {
    const deep = `{"_deep":${'['.repeat(2000)}${']'.repeat(2000)},${JSON.stringify(entry()).slice(1)}`;
    const flood = entry({ response: { headers: Array.from({ length: 120_000 }, (_, i) => ({ name: `x-h${i}`, value: 'v'.repeat(16) })) } });
    const text = `{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[1,"two",[3],${deep},${JSON.stringify(flood)},${JSON.stringify(entry())}]}}`;
    const { report } = await judgeHar(file('odd-items.har', text), config('odd-items'), 20);
    expect(report.observed.exchanges).toBe(1);
    const reasons = Object.fromEntries(report.observed.notJudged.map((n) => [n.reason, n.count]));
    expect(reasons['not judged: an entry that is not an object']).toBe(3);
    expect(reasons[`not judged: an entry nested deeper than ${DEFAULT_RUN.maxJsonDepth} levels (run.maxJsonDepth)`]).toBe(1);
    expect(Object.keys(reasons).some((r) => /all but its bodies\) are larger than/.test(r))).toBe(true);
  });
});

describe('judge, the file', () => {
  it.each([
    ['empty', '', /is empty/],
    ['plain text', 'hello, this is not JSON\n', /not one JSON object/],
    ['a JSON list', '[{"log":{"entries":[]}}]', /not one JSON object/],
    ['JSON without log.entries', '{"log":{"version":"1.2"}}', /no log\.entries list/],
    ['text after the object', `${har([entry()])}\ntrailing`, /not one JSON object/],
    ['an empty entries list', har([]), /holds no entry that could be read \(its log\.entries list is empty\)/],
    ['a gzip-compressed HAR', gzipSync(har([entry()])), /looks gzip-compressed: decompress it first/],
    ['only unreadable entries', har([entry({ request: { headers: {} } })]), /holds no entry that could be read \(1 skipped: an entry whose request\.headers/],
  ])('refuses %s with the reason', async (name, text, reason) => {
    const f = file(`${name.replace(/\W+/g, '-')}.har`, text);
    await expect(judgeHar(f, config('refused'), 20)).rejects.toThrow(ConfigError);
    await expect(judgeHar(f, config('refused'), 20)).rejects.toThrow(reason);
  });

  it('is exit 2 on a HAR cut short, with the reason, and writes no passing report', () => {
    const whole = har([entry(), entry(), entry()]);
    file('cut.har', whole.slice(0, Math.floor(whole.length * 0.6)));
    const r = cli(['judge', 'cut.har', '--reports-dir', 'cut-reports']);
    expect(r.code).toBe(2);
    expect(r.all).toMatch(/cut\.har is cut short: it ends inside its JSON, after 1 whole entry/);
    expect(r.all).not.toMatch(/OBSERVED PASS/);
  });

  it('reads a large capture in bounded memory: a 25 MB entry of headers is skipped before it is parsed', () => {
    const flood = entry({ response: { headers: Array.from({ length: 450_000 }, (_, i) => ({ name: `x-header-${i}`, value: 'v'.repeat(24) })) } });
    const big = file('big.har', `{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[${JSON.stringify(entry())},${JSON.stringify(flood)},${JSON.stringify(entry())}]}}`);
    expect(readFileSync(big).length).toBeGreaterThan(25 * 1024 * 1024);
    file('rss.cjs', "process.on('exit', () => process.stderr.write('MAXRSS ' + Math.round(process.resourceUsage().maxRSS / 1024) + '\\n'))");
    const r = cli(['judge', 'big.har', '--reports-dir', 'big-reports'], ['--require', join(tmp, 'rss.cjs')]);
    expect(r.code).toBe(0);
    expect(r.all).toMatch(/2 exchanges read/);
    expect(r.all).toMatch(/all but its bodies\) are larger than/);
    const mb = Number(/MAXRSS (\d+)/.exec(r.all)?.[1]);
    // parsed whole, such an entry took over 500 MB
    expect(mb).toBeGreaterThan(0);
    expect(mb).toBeLessThan(300);
  });
});

describe('judge and the credentials in a capture', () => {
  it('writes none of the credentials nobody configured into its reports', async () => {
    const secrets = ['xauth-5Fg7Hj9Kl1Zx3Cv', 'xaccess-8Bn2Mq4Wr6Ty0Ui', 'qtok-1Op3As5Df7Gh9Jk', 'csec-2Lz4Xc6Vb8Nm0Qw', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2lnLW9mLWJvYnMtdG9rZW4tZm9yLXRoZS10ZXN0'];
    const bad = { status: 500, content: { size: 40, mimeType: 'application/json', text: JSON.stringify({ error: 'x', access_token: secrets[1] }) }, headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'Set-Cookie', value: `session=${secrets[0]}` }] };
    const f = file(
      'secrets.har',
      har([
        entry({ request: { url: `http://node.example/api/scan/v0/ans-entries?page_size=2&access_token=${secrets[2]}`, headers: [{ name: 'X-Auth-Token', value: secrets[0] }, { name: 'X-Access-Token', value: secrets[1] }, { name: 'Authorization', value: `Bearer ${secrets[4]}` }] }, response: bad }),
        entry({ request: { method: 'POST', url: 'http://node.example/api/scan/v0/events', bodySize: 70, postData: { mimeType: 'application/x-www-form-urlencoded', text: `grant_type=client_credentials&client_id=a&client_secret=${secrets[3]}` } }, response: bad }),
        entry({ request: { method: 'POST', url: 'http://node.example/api/scan/v0/activities', postData: { mimeType: 'application/json', text: JSON.stringify({ page_size: 1, id_token: secrets[4], note: `token ${secrets[4]}` }) } }, response: bad }),
      ]),
    );
    const { report, dir } = await judgeHar(f, config('secrets'), 20);
    // the kept failures carry the exchanges, redacted
    expect(report.requirements.some((q) => q.failures.some((x) => x.exchange?.request.url.includes('access_token=<redacted>') === true))).toBe(true);
    for (const name of readdirSync(dir)) {
      if (!/\.(json|md|xml)$/.test(name)) continue;
      const text = readFileSync(join(dir, name), 'utf8');
      for (const s of secrets) expect(text.includes(s), `${s} in ${name}`).toBe(false);
    }
  });
});
