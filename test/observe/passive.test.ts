/**
 * The passive judge on its own: which operation a request is, what it judges on one exchange, what it keeps
 * (bounded however many exchanges it sees), and the streaming HAR reader.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../harness/judging/catalogue.js';
import { DEFAULT_RUN } from '../../harness/config.js';
import { observedFromHar, readHarEntries, type HarEntry } from '../../harness/observe/har.js';
import { interfaceBases, interfaceOf, OperationMatcher } from '../../harness/observe/match.js';
import { PassiveJudge, type ObservedExchange } from '../../harness/observe/passive.js';
import { observedReport } from '../../harness/observe/report.js';
import { schemaRegistry } from '../../harness/judging/schemas.js';

const schemas = schemaRegistry();
const catalogue = loadCatalogue();
const tmp = mkdtempSync(join(tmpdir(), 'cc-passive-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const judgeOf = (o: Partial<ConstructorParameters<typeof PassiveJudge>[0]> = {}) =>
  new PassiveJudge({ schemas, catalogue, targets: {}, maxResponseBytes: 1024 * 1024, maxJsonDepth: 64, ...o });

const json = (status: number, body: unknown, extra: Partial<ObservedExchange> = {}): ObservedExchange => ({
  method: 'GET',
  url: 'http://node.example/api/scan/v0/ans-entries?page_size=1',
  path: '/api/scan/v0/ans-entries',
  requestHeaders: { authorization: 'Bearer s3cr3t-token-value' },
  startedAt: new Date().toISOString(),
  durationMs: 1,
  status,
  responseHeaders: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
  ...extra,
});

describe('the operation matcher', () => {
  const m = new OperationMatcher(schemas);

  it('names the operation by method and path template, a literal segment before a parameter', () => {
    expect(m.match('ledger', 'GET', '/v2/users/alice')?.operationId).toBe('getUser');
    expect(m.match('ledger', 'PATCH', '/v2/users/alice')?.operationId).toBe('updateUser');
    expect(m.match('ledger', 'POST', '/v2/users/alice/rights')?.operationId).toBe('grantUserRights');
    expect(m.match('ledger', 'GET', '/v2/users')?.operationId).toBe('listUsers');
    // an empty id is still the operation the request called, as the suite names it
    expect(m.match('ledger', 'GET', '/v2/users/')?.operationId).toBe('getUser');
    expect(m.match('ledger', 'PUT', '/v2/users')).toBeUndefined();
    expect(m.match('scan', 'GET', '/v0/events/1220ab')?.operationId).toBe('getEventById');
  });

  it('finds the interface by path alone, the base path in front', () => {
    expect(m.matchByPath('GET', '/api/scan/v0/ans-entries')).toMatchObject({ api: 'scan', path: '/v0/ans-entries', operation: { operationId: 'listAnsEntries' } });
    expect(m.matchByPath('GET', '/api/validator/v0/scan-proxy/ans-entries')).toMatchObject({ api: 'validator', operation: { operationId: 'listScanProxyAnsEntries' } });
    expect(m.matchByPath('GET', '/v2/version')).toMatchObject({ api: 'ledger', path: '/v2/version' });
    expect(m.matchByPath('POST', '/gateway/registry/allocation-instruction/v2/abc/choice-contexts/withdraw')).toMatchObject({ api: 'registry' });
    expect(m.matchByPath('GET', '/api/scan/v0/nothing-here')).toBeUndefined();
    // the path is the interface's, the method is not documented: not in the specification
    expect(m.matchByPath('DELETE', '/v2/version')).toEqual({ api: 'ledger', path: '/v2/version' });
  });

  it('finds the interface by configured base URLs, the longest first', () => {
    const bases = interfaceBases({ ledger: { url: 'http://n.example' }, scan: { url: 'http://n.example/api/scan/' } });
    expect(interfaceOf(bases, new URL('http://n.example/api/scan/v0/events'))).toEqual({ api: 'scan', path: '/v0/events' });
    expect(interfaceOf(bases, new URL('http://n.example/api/scanner/v0'))).toEqual({ api: 'ledger', path: '/api/scanner/v0' });
    expect(interfaceOf(bases, new URL('http://other.example/v2/version'))).toBeUndefined();
  });
});

describe('the passive judge', () => {
  it('judges the rules of one exchange, and keeps a failure with its redacted exchange', () => {
    const j = judgeOf();
    j.judge(json(200, { entries: [{ name: 'x' }] }));
    const r = j.tally.requirements.get('scan.list-ans-entries.response-schema')!;
    expect(r).toMatchObject({ judged: 1, failed: 1, failedOperations: { listAnsEntries: 1 } });
    expect(r.kept[0]).toMatchObject({ check: 'body_matches_schema', exchange: { api: 'scan', operationId: 'listAnsEntries', request: { headers: { authorization: 'Bearer <redacted>' } }, response: { status: 200 } } });
    expect(j.tally.requirements.get('scan.http.documented-status')).toMatchObject({ judged: 1, failed: 0 });
    expect(j.tally.requirements.get('scan.http.no-server-error')).toMatchObject({ judged: 1, failed: 0 });
  });

  it('keeps a bounded number of failures per requirement and counts the rest, however many exchanges it sees', () => {
    const j = judgeOf({ maxKeptFailures: 5 });
    for (let i = 0; i < 5000; i++) j.judge(json(200, { entries: [{ name: `x${i}` }] }, { path: `/api/scan/v0/ans-entries` }));
    for (let i = 0; i < 500; i++) j.judge(json(404, {}, { path: `/api/scan/v0/unknown-${i}` }));
    const r = j.tally.requirements.get('scan.list-ans-entries.response-schema')!;
    expect(r).toMatchObject({ judged: 5000, failed: 5000 });
    expect(r.kept).toHaveLength(5);
    expect(j.tally.notInSpecificationTotal).toBe(500);
    expect(j.tally.notInSpecification.size).toBe(50);
    const report = observedReport({ tally: j.tally, catalogue, schemas, config: { run: DEFAULT_RUN, targets: {}, reference: { faults: [] }, useReference: false, sources: [] }, apis: ['scan'], mode: 'judge', source: 'test', runId: 't', startedAt: new Date(), finishedAt: new Date(), maxKeptFailures: 5 });
    const q = report.requirements.find((x) => x.id === 'scan.list-ans-entries.response-schema')!;
    expect(q.verdict).toBe('fail');
    expect(q.failures).toHaveLength(6);
    expect(q.failures[5]!.message).toMatch(/4995 more observed exchanges broke this requirement/);
    expect(report.exitCode).toBe(1);
    expect(report.observed.notInSpecification.listed).toHaveLength(50);
  });

  it('leaves a requirement its target switched off, or outside its version, unjudged', () => {
    const j = judgeOf({ targets: { scan: { version: '0.8.0', disabledRequirements: ['scan.http.documented-status'] } } });
    j.judge(json(200, { activities: 'not a list' }, { method: 'POST', path: '/api/scan/v0/activities' }));
    expect(j.tally.requirements.get('scan.list-activities.response-schema')).toBeUndefined();
    expect(j.tally.requirements.get('scan.http.documented-status')).toBeUndefined();
    expect(j.tally.requirements.get('scan.http.no-server-error')?.judged).toBe(1);
    const old = judgeOf({ targets: { scan: { version: '0.6.7', disabledRequirements: [] } } });
    old.judge(json(200, { activities: 'not a list' }, { method: 'POST', path: '/api/scan/v0/activities' }));
    expect(old.tally.requirements.get('scan.list-activities.response-schema')?.failed).toBe(1);
  });

  it('decodes a content encoding; judges only the status of a body beyond the cap; nothing of one nested too deep or of no answer', () => {
    const j = judgeOf({ maxResponseBytes: 4096 });
    j.judge(json(200, {}, { responseHeaders: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify({ entries: [] })) }));
    expect(j.tally.requirements.get('scan.list-ans-entries.response-schema')).toMatchObject({ judged: 1, failed: 0 });
    j.judge(json(500, {}, { body: undefined, bodyNotJudged: 'body larger than 4096 bytes (run.maxResponseBytes)' }));
    expect(j.tally.requirements.get('scan.http.no-server-error')).toMatchObject({ failed: 1 });
    expect(j.tally.requirements.get('scan.list-ans-entries.response-schema')?.judged).toBe(1);
    j.judge(json(200, {}, { responseHeaders: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(Buffer.alloc(100_000, 32)) }));
    j.judge(json(200, {}, { body: Buffer.from('['.repeat(100) + ']'.repeat(100)) }));
    j.judge(json(200, {}, { status: undefined, error: 'the target could not be reached: ECONNREFUSED' }));
    expect([...j.tally.notJudged.keys()]).toEqual([
      'body not judged: body larger than 4096 bytes (run.maxResponseBytes)',
      'body not judged: body larger than 4096 bytes (run.maxResponseBytes) once its gzip content encoding is decoded',
      'not judged: JSON nested deeper than 64 levels (run.maxJsonDepth)',
      'no answer (the target could not be reached)',
    ]);
    expect(j.tally.exchanges).toBe(5);
    expect(j.tally.judged).toBe(3);
  });
});

describe('the HAR reader', () => {
  const entry = (i: number, text: string): HarEntry => ({
    startedDateTime: new Date(Date.UTC(2026, 10, 26, 0, 0, i)).toISOString(),
    time: 1,
    request: { method: 'GET', url: `https://n.example/v2/users/u${i}`, httpVersion: 'HTTP/1.1', cookies: [], headers: [], queryString: [], headersSize: -1, bodySize: 0 },
    response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', cookies: [], headers: [{ name: 'Content-Type', value: 'application/json' }], content: { size: text.length, mimeType: 'application/json', text }, redirectURL: '', headersSize: -1, bodySize: -1 },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  });

  it('streams the entries of any HAR, pretty-printed or not, across chunk boundaries, and skips one beyond its cap', async () => {
    // bodies with braces, brackets, quotes and escapes inside strings; one of 600 KB to cross the reader's chunks
    const tricky = JSON.stringify({ user: { id: 'a}b]c{"d', note: '\\"entries\\": [{' } });
    const entries = [entry(0, tricky), entry(1, 'x'.repeat(600_000)), entry(2, tricky), entry(3, '{}')];
    const doc = { log: { version: '1.2', creator: { name: 't', version: '1', comment: '"entries": [' }, pages: [{ title: '{[' }], entries, comment: 'after' } };
    for (const [name, text] of [['compact.har', JSON.stringify(doc)], ['pretty.har', JSON.stringify(doc, null, 3)]] as const) {
      writeFileSync(join(tmp, name), text);
      const skipped: string[] = [];
      const read: HarEntry[] = [];
      for await (const e of readHarEntries(join(tmp, name), 100_000, (w) => skipped.push(w))) read.push(e);
      expect(read.map((e) => e.request.url), name).toEqual(['https://n.example/v2/users/u0', 'https://n.example/v2/users/u2', 'https://n.example/v2/users/u3']);
      expect(read[0]).toEqual(entries[0]);
      expect(skipped).toEqual(['an entry larger than 100000 bytes']);
    }
    writeFileSync(join(tmp, 'not.har'), JSON.stringify({ entries: [entry(0, '{}')] }));
    await expect(async () => {
      for await (const _ of readHarEntries(join(tmp, 'not.har'), 1000)) void _;
    }).rejects.toThrow(/not a HAR file/);
  });

  it('turns an entry into an observed exchange, by configured base URL or by path', () => {
    const e = entry(0, '{"user":{"id":"u0"}}');
    const bases = interfaceBases({ ledger: { url: 'https://n.example' } });
    expect(observedFromHar(e, (u) => interfaceOf(bases, u), 1000)).toMatchObject({ api: 'ledger', path: '/v2/users/u0', status: 200, decoded: true, responseHeaders: { 'content-type': 'application/json' } });
    expect(observedFromHar(e, () => undefined, 1000)).toMatchObject({ path: '/v2/users/u0' });
    expect(observedFromHar(e, () => undefined, 10)).toMatchObject({ bodyNotJudged: 'body larger than 10 bytes (run.maxResponseBytes)' });
    expect(observedFromHar({ ...e, response: { ...e.response, status: 0, _error: 'connection refused' } }, () => undefined, 1000)).toMatchObject({ error: 'connection refused' });
  });
});

describe('the ledger rule on malformed input, judged passively', () => {
  const RULE = 'ledger.errors.malformed-request-text-plain';
  const post = (body: string, status: number, answer: { type: string; text: string }, extra: Partial<ObservedExchange> = {}): ObservedExchange => ({
    api: 'ledger',
    method: 'POST',
    url: 'http://node.example/v2/package-vetting/list',
    path: '/v2/package-vetting/list',
    requestHeaders: { 'content-type': 'application/json' },
    requestBody: body,
    requestBodyComplete: true,
    startedAt: new Date().toISOString(),
    durationMs: 1,
    status,
    responseHeaders: { 'content-type': answer.type },
    body: Buffer.from(answer.text),
    ...extra,
  });
  const tallyOf = (...xs: ObservedExchange[]) => {
    const j = judgeOf();
    for (const x of xs) j.judge(x);
    return j.tally.requirements.get(RULE);
  };
  const error = { type: 'application/json', text: JSON.stringify({ code: 'INVALID_ARGUMENT', cause: 'bad', errorCategory: 8, context: {}, resources: [], grpcCodeValue: 3 }) };

  it('fails JSON that does not parse answered 200, or 400 with a JsCantonError, or an empty message', () => {
    const ok = { type: 'application/json', text: JSON.stringify({ vettedPackages: [], nextPageToken: '' }) };
    expect(tallyOf(post('{"pageSize": 1', 200, ok))).toMatchObject({ judged: 1, failed: 1, kept: [{ message: expect.stringMatching(/does not parse was answered 200, not 400 with a text\/plain message/) }] });
    expect(tallyOf(post('{"pageSize": 1', 400, error))).toMatchObject({ failed: 1, kept: [{ message: expect.stringMatching(/answered 400 with Content-Type application\/json, not text\/plain/) }] });
    expect(tallyOf(post('{"pageSize": 1', 400, { type: 'text/plain', text: '' }))?.failed).toBe(1);
  });

  it('passes a 400 with a text/plain message', () => {
    expect(tallyOf(post('{"pageSize": 1', 400, { type: 'text/plain; charset=utf-8', text: 'Invalid value for: body' }))).toMatchObject({ judged: 1, failed: 0 });
  });

  it('judges nothing where the exchange cannot decide it', () => {
    const plain = { type: 'text/plain', text: 'x' };
    for (const x of [
      // the body parses: another rule's
      post('{"pageSize": 1}', 200, { type: 'application/json', text: JSON.stringify({ vettedPackages: [], nextPageToken: '' }) }),
      // the credentials come first, a route not served, overload
      post('{"pageSize": 1', 401, error),
      post('{"pageSize": 1', 404, plain),
      post('{"pageSize": 1', 503, plain),
      // the capture does not hold the body whole, or redaction changed it
      post('{"pageSize": 1', 200, plain, { requestBodyComplete: false }),
      post('{"token": "<redacted>", "x": ', 200, plain),
      // not JSON the operation takes
      post('{"pageSize": 1', 200, plain, { requestHeaders: { 'content-type': 'text/plain' } }),
    ]) {
      expect(tallyOf(x)?.judged ?? 0, `${x.status} ${String(x.requestHeaders['content-type'])} ${x.requestBody}`).toBe(0);
    }
  });
});
