/**
 * spec-diff and run --also-validate-against, on small OpenAPI documents written for them (test/fixtures/spec-diff/):
 * 3.0 `nullable`, relative external $refs, `default` responses, a reused operationId, a removed endpoint, a document
 * with planted differences; then the reference's own served document, and a run judged against a target's own one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, type Config } from '../../harness/config.js';
import { main } from '../../harness/cli.js';
import { diffDocuments, type SpecDiff } from '../../harness/spec-diff/diff.js';
import { loadDocument, schema30to31 } from '../../harness/spec-diff/document.js';
import { expectedMissing, renderSpecDiffMarkdown, specDiff } from '../../harness/spec-diff/index.js';
import { runConformance, type RunResult } from '../../harness/run/runner.js';
import { startReference } from '../../reference/index.js';
import { startMiniServer } from './mini-server.js';

const dir = join(import.meta.dirname, '..', 'fixtures', 'spec-diff');
const mini = join(import.meta.dirname, '..', 'fixtures', 'mini');

async function diff(target: string, version?: string): Promise<SpecDiff> {
  const suite = await loadDocument(join(dir, 'suite.yaml'));
  return diffDocuments(suite, await loadDocument(join(dir, target)), { api: 'test', expectedMissing: expectedMissing('scan'), ...(version !== undefined ? { version } : {}) });
}

/** "METHOD path | at | kind | class" of every difference, sorted */
const rows = (d: SpecDiff) => d.operations.flatMap((op) => op.differences.map((x) => `${op.method} ${op.path} | ${x.at} | ${x.kind} | ${x.classification}`)).sort();

describe('OpenAPI 3.0 documents', () => {
  it('converts nullable to a null type, an enum with null, or a union with null beside a $ref', () => {
    expect(schema30to31({ type: 'string', nullable: true })).toEqual({ type: ['string', 'null'] });
    expect(schema30to31({ type: 'string', enum: ['A'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['A', null] });
    expect(schema30to31({ $ref: '#/components/schemas/X', nullable: true })).toEqual({ anyOf: [{ $ref: '#/components/schemas/X' }, { type: 'null' }] });
    expect(schema30to31({ type: 'object', properties: { a: { type: 'integer', nullable: true } } })).toEqual({ type: 'object', properties: { a: { type: ['integer', 'null'] } } });
    expect(schema30to31({ type: 'integer', minimum: 0, exclusiveMinimum: true })).toEqual({ type: 'integer', exclusiveMinimum: 0 });
    expect(schema30to31({ type: 'string', nullable: false })).toEqual({ type: 'string' });
  });

  it('bundles relative external $refs and converts the schemas it brought in', async () => {
    const d = await loadDocument(join(dir, 'target-30.yaml'));
    expect(d.openapi).toBe('3.0.3');
    const text = JSON.stringify(d.doc);
    expect(text).not.toContain('schemas-30.yaml');
    expect(text).not.toContain('"nullable"');
    expect(text).toContain('["string","null"]');
  });

  it('bundles the relative $refs of a document read from a URL as of one read from a file', async () => {
    const server = createServer((req, res) => {
      try {
        const body = readFileSync(join(dir, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/docs\//, ''))));
        res.writeHead(200, { 'content-type': 'application/yaml' }).end(body);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs/target-30.yaml`;
      const suite = await loadDocument(join(dir, 'suite.yaml'));
      const byUrl = diffDocuments(suite, await loadDocument(url), { api: 'test', expectedMissing: expectedMissing('scan') });
      expect(rows(byUrl)).toEqual(rows(await diff('target-30.yaml')));
      await expect(loadDocument(url.replace('target-30', 'gone'))).rejects.toThrow(/answered 404/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('matches operations by method and path, whatever their operationIds (one reused) and path parameter names', async () => {
    const d = await diff('target-30.yaml');
    const get = d.operations.find((op) => op.operationId === 'getThing');
    const post = d.operations.find((op) => op.operationId === 'createThing');
    expect(get).toMatchObject({ status: 'matched', targetOperationId: 'thing', targetPath: '/v1/things/{id}' });
    expect(post).toMatchObject({ status: 'matched', targetOperationId: 'thing' });
    expect(d.counts).toMatchObject({ matched: 2, missing: 0, extra: 0 });
  });

  it('takes a default response as the fallback of every status, and leaves the nulls of optional response fields aside', async () => {
    // 404 and 400 fall to the target's default (same body: no difference); the default itself admits any status;
    // the one planted difference is a required field made nullable
    expect(rows(await diff('target-30.yaml'))).toEqual(
      [
        'GET /v1/things/{thing-id} | response 200 application/json: body.owner.party | type | looser',
        'GET /v1/things/{thing-id} | response default | status | looser',
        'POST /v1/things | response 200 application/json: body.owner.party | type | looser',
        'POST /v1/things | response default | status | looser',
      ].sort(),
    );
  });

  it('lists an endpoint the suite no longer expects at the target version as expected, and as missing before it', async () => {
    const removed = (d: SpecDiff) => d.operations.find((op) => op.operationId === 'listOldThings');
    const at21 = await diff('target-30.yaml');
    expect(removed(at21)).toMatchObject({ status: 'missing', differences: [] });
    expect(removed(at21)?.expected).toContain('applies before version 2.0');
    expect(at21.counts.expected).toBe(1);
    const at15 = await diff('target-30.yaml', '1.5');
    expect(removed(at15)?.expected).toBeUndefined();
    expect(removed(at15)?.differences).toMatchObject([{ kind: 'operation', classification: 'stricter' }]);
  });
});

describe('a document with planted differences', () => {
  it('reports each one, classified', async () => {
    const d = await diff('target-planted.yaml');
    const G = 'GET /v1/things/{thing-id}';
    const P = 'POST /v1/things';
    const body = 'response 200 application/json: body';
    expect(rows(d)).toEqual(
      [
        `${G} | path parameter thing-id (target: thing) | type | incompatible`,
        `${G} | header parameter X-Tenant | parameter | stricter`,
        `${G} | response 200 | media-type | looser`,
        `${G} | response 201 | status | looser`,
        ...[G, P].flatMap((op) => [
          `${op} | ${body} | required | looser`,
          `${op} | ${body}.kind | enum | looser`,
          `${op} | ${body}.size | type | incompatible`,
          `${op} | ${body}.owner.since | format | incompatible`,
        ]),
        `${P} | request body | request-body | looser`,
        `${P} | request body application/json: body | required | stricter`,
        `${P} | request body application/json: body.kind | enum | stricter`,
        `${P} | request body application/json: body.size | format | stricter`,
        `${P} | response 400 | status | stricter`,
        'POST /v1/old-things | POST /v1/old-things | operation | stricter',
        'GET /v1/extras | GET /v1/extras | operation | looser',
      ].sort(),
    );
    expect(d.counts).toMatchObject({ missing: 1, extra: 1, differences: 19, stricter: 6, looser: 8, incompatible: 5 });
    // an optional parameter only the suite declares is a note: a request with or without it is valid under both
    expect(d.operations.find((op) => op.path === '/v1/things/{thing-id}')?.notes).toEqual([expect.stringMatching(/^only the suite declares the optional query parameter verbose /)]);
    const md = renderSpecDiffMarkdown(d);
    expect(md).toContain('**19 differences**: 6 target stricter, 8 target looser, 5 incompatible');
    expect(md).toContain('| request body application/json: body.size | format | int64 | int32 | target stricter |');
  });
});

describe("the reference server's own served document", () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('shows no difference from specs/ledger.yaml, and on 3.6 only the removed endpoints, as expected', async () => {
    const r35 = await startReference();
    const r36 = await startReference({ ledgerVersion: '3.6' });
    servers.push(r35, r36);
    const d35 = await specDiff({ api: 'ledger', targetSpec: `${r35.urls.ledger}/docs/openapi` });
    expect(d35.counts).toMatchObject({ differences: 0, missing: 0, extra: 0, expected: 0 });
    expect(d35.counts.matched).toBeGreaterThan(20);
    const d36 = await specDiff({ api: 'ledger', targetSpec: `${r36.urls.ledger}/docs/openapi` });
    expect(d36.counts).toMatchObject({ differences: 0, missing: 0, extra: 0, expected: 2 });
    expect(d36.operations.filter((op) => op.expected !== undefined).map((op) => op.operationId).sort()).toEqual(['getPackageVetting', 'getTransactionByOffset']);
  });
});

describe('spec-diff on the command line', () => {
  const run = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await main(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
    return { code, out, err };
  };

  it('prints Markdown by default and JSON on request, and exits 0 whatever the differences', async () => {
    const md = await run('spec-diff', '--api', 'scan', '--target-spec', join(mini, 'scan.yaml'));
    expect(md.code).toBe(0);
    expect(md.out).toContain('# spec-diff: scan');
    const js = await run('spec-diff', '--api', 'registry', '--target-spec', join(dir, 'target-planted.yaml'), '--format', 'json');
    expect(js.code).toBe(0);
    expect((JSON.parse(js.out) as SpecDiff).counts.extra).toBeGreaterThan(0);
  });

  it('exits 2 with a message, no stack trace, on a document it cannot read or without one to read', async () => {
    for (const argv of [
      ['spec-diff', '--api', 'ledger', '--target-spec', join(dir, 'no-such-file.yaml')],
      ['spec-diff', '--api', 'ledger', '--target-spec', join(dir, 'parts', 'schemas-30.yaml')],
      ['spec-diff', '--api', 'scan'],
      ['spec-diff', '--api', 'nope', '--target-spec', join(dir, 'suite.yaml')],
    ]) {
      const r = await run(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toMatch(/^(canton-conformance: |error: )/);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    expect((await run('spec-diff', '--api', 'ledger', '--target-spec', join(dir, 'no-such-file.yaml'))).err).toContain('cannot read');
  });
});

describe('run --also-validate-against', () => {
  let server: Awaited<ReturnType<typeof startMiniServer>>;
  const reports = mkdtempSync(join(tmpdir(), 'cc-own-'));
  const results: Record<'plain' | 'own', RunResult | undefined> = { plain: undefined, own: undefined };

  const config = (own: boolean): Config => ({
    run: { ...DEFAULT_RUN, only: ['scan'], reportsDir: reports, html: false, compare: false, timeoutMs: 2000, checkTimeoutMs: 5000, ...(own ? { alsoValidateAgainst: { scan: join(dir, 'own', 'own-description-30.yaml') } } : {}) },
    targets: { scan: { url: server.url, version: '1.0', auth: { kind: 'none' }, features: {}, fixtures: {}, disabledRequirements: [], headers: {} } },
    reference: { faults: [] },
    useReference: false,
    sources: ['test'],
    internal: { specsDir: mini, catalogueDir: join(mini, 'requirements'), include: ['test/fixtures/spec-diff/own/*.check.ts'] },
  });

  beforeAll(async () => {
    server = await startMiniServer();
    results.plain = await runConformance(config(false), { write: () => undefined });
    results.own = await runConformance(config(true), { write: () => undefined });
  }, 90_000);
  afterAll(async () => {
    await server.close();
    rmSync(reports, { recursive: true, force: true });
  });

  it('changes no verdict and not the exit code', () => {
    const verdicts = (r: RunResult | undefined) => r?.report.checks.map((c) => `${c.id} ${c.verdict}`).sort();
    expect(verdicts(results.own)).toEqual(verdicts(results.plain));
    expect(verdicts(results.own)).toEqual(['own.bad fail', 'own.ok pass', 'own.teapot fail']);
    expect(results.own?.report.exitCode).toBe(results.plain?.report.exitCode);
    expect(results.own?.report.exitCode).toBe(1);
    expect(results.plain?.report.ownDescription).toBeUndefined();
  });

  it('reports where the target disagrees with its own description, apart, in conformance.json and summary.md', () => {
    const own = results.own!;
    const json = JSON.parse(readFileSync(join(own.dir, 'conformance.json'), 'utf8')) as { ownDescription: NonNullable<RunResult['report']['ownDescription']> };
    const f = json.ownDescription.findings.map((x) => `${x.operation} ${x.status} ${x.kind}${x.nullOnly === true ? ' null-only' : ''}`).sort();
    expect(f).toEqual(['GET /v0/items 200 body', 'GET /v0/items 200 body null-only', 'GET /v0/items 418 status']);
    expect(json.ownDescription.responses).toBe(3);
    expect(json.ownDescription.documents.scan).toMatchObject({ openapi: '3.0.3' });
    expect(json.ownDescription.findings.find((x) => x.nullOnly === true)?.message).toContain('body.items.0.expires_at');
    const summary = readFileSync(join(own.dir, 'summary.md'), 'utf8');
    expect(summary).toContain('## Where the target disagrees with its own API description (information only)');
    expect(summary).toContain('No verdict and no exit code depends on this section');
    expect(readFileSync(join(results.plain!.dir, 'summary.md'), 'utf8')).not.toContain('its own API description');
  });

  it('makes a document it cannot read a configuration error (exit 2), before anything runs', async () => {
    let err = '';
    const code = await main(['run', '--only', 'ledger', '--no-html', '--reports-dir', reports, '--also-validate-against', join(dir, 'no-such-file.yaml')], { out: () => undefined, err: (s) => void (err += s) });
    expect(code).toBe(2);
    expect(err).toContain('--also-validate-against ledger: cannot read');
  });
});
