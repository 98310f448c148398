/**
 * spec-diff on upstream-shaped documents, for four misclassifications: a Splice document's info.version (0.0.1) read
 * as the release; an anyOf of the suite's against the target's single schema called "incompatible" (and "one of")
 * where the target is stricter; the suite's open right kind against 3.6's CanActAsAnyParty giving "incompatible" rows
 * labelled by index; an optional parameter only the suite declares called "target looser".
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { diffDocuments, type SpecDiff } from '../../harness/spec-diff/diff.js';
import type { Json, LoadedDocument } from '../../harness/spec-diff/document.js';
import { renderSpecDiffMarkdown, specDiff } from '../../harness/spec-diff/index.js';
import { PACKAGE_ROOT } from '../../harness/paths.js';

const SPECS = join(import.meta.dirname, '..', '..', 'specs');
const tmp = mkdtempSync(join(tmpdir(), 'cc-spec-diff-upstream-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** the suite's document of an interface, changed by `edit`, written as a target's document */
function upstream(api: string, edit: (doc: Json) => void): string {
  const doc = parse(readFileSync(join(SPECS, `${api}.yaml`), 'utf8')) as Json;
  edit(doc);
  const file = join(tmp, `${api}-${Math.random().toString(36).slice(2, 8)}.yaml`);
  writeFileSync(file, stringify(doc));
  return file;
}

const rows = (d: SpecDiff) => d.operations.flatMap((op) => op.differences.map((x) => `${op.method} ${op.path} | ${x.at} | ${x.kind} | ${x.suite} -> ${x.target} | ${x.classification}`));

describe("a Splice document's info.version", () => {
  // a current scan's document: Splice writes info.version 0.0.1 in every document, and no longer lists /v0/activities
  const current = () =>
    upstream('scan', (doc) => {
      (doc.info as Json).version = '0.0.1';
      delete (doc.paths as Json)['/v0/activities'];
    });

  it('is never read as the release: without a version given, none is applied, and the report says why', async () => {
    const d = await specDiff({ api: 'scan', targetSpec: current() });
    expect(d.judgedAtVersion).toBeUndefined();
    expect(d.notes?.[0]).toMatch(/^version unknown: neither a target version \(--target-version, a configured one\) \(its document's info\.version "0\.0\.1" is not a release/);
    expect(renderSpecDiffMarkdown(d)).toContain('is not a release: Splice documents all carry 0.0.1');
  });

  it('judges by --target-version or the configured version, and says which was used', async () => {
    for (const from of ['--target-version', 'targets.scan.version of the configuration']) {
      const d = await specDiff({ api: 'scan', targetSpec: current(), version: '0.8.0', versionFrom: from });
      expect(d.judgedAtVersion).toBe('0.8.0');
      expect(d.versionSource).toBe(from);
      expect(d.operations.find((op) => op.path === '/v0/activities')).toMatchObject({ status: 'missing', expected: expect.stringContaining("outside the suite's version range"), differences: [] });
      expect(d.notes).toBeUndefined();
      expect(renderSpecDiffMarkdown(d)).toContain(`- expected differences judged for version 0.8.0, from ${from}`);
    }
  });

  it('on the command line, takes the configured target\'s version for a document given as a file, and says so', () => {
    const config = join(tmp, 'scan-target.yaml');
    writeFileSync(config, 'targets:\n  scan:\n    url: http://127.0.0.1:9/api/scan\n    version: "0.8.0"\n');
    const r = spawnSync(process.execPath, [join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs'), 'spec-diff', '--api', 'scan', '--target-spec', current(), '--config', config], { cwd: tmp, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('- expected differences judged for version 0.8.0, from targets.scan.version of the configuration');
    expect(r.stdout).not.toContain('version unknown');
  }, 70_000);

  it("still reads a participant's served document's info.version, and says so", async () => {
    const d = await specDiff({ api: 'ledger', targetSpec: upstream('ledger', (doc) => void ((doc.info as Json).version = '3.5.2')) });
    expect(d.judgedAtVersion).toBe('3.5.2');
    expect(d.versionSource).toBe("the target document's info.version");
  });
});

/** A 3.1 document answering POST /v1/x with `schema`. */
const answering = (schema: unknown, schemas: Json = {}): LoadedDocument => ({
  source: 'test',
  openapi: '3.1.0',
  doc: { openapi: '3.1.0', info: { title: 't', version: '1.0' }, paths: { '/v1/x': { post: { operationId: 'x', responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } } } } }, components: { schemas } },
});
const BODY = 'response 200 application/json: body';

describe("an anyOf of the suite's against the target's single schema", () => {
  // the suite accepts either form of a holding (generated clients of two releases); upstream has only the newer one
  const schemas = {
    HoldingV1: { type: 'object', required: ['owner', 'amount'], properties: { owner: { type: 'string' }, amount: { type: 'string' } } },
    HoldingV0: { type: 'object', required: ['party'], properties: { party: { type: 'string' } } },
  };
  const suite = answering({ anyOf: [{ $ref: '#/components/schemas/HoldingV1' }, { $ref: '#/components/schemas/HoldingV0' }] }, schemas);

  it('is "target stricter", named anyOf, when the single schema is inside one of its variants', () => {
    const target = answering({ $ref: '#/components/schemas/HoldingV1' }, { HoldingV1: { ...schemas.HoldingV1, required: ['owner', 'amount'], properties: { ...schemas.HoldingV1.properties, amount: { type: 'string', format: 'decimal' } } } });
    const d = diffDocuments(suite, target, { api: 'test' });
    const variants = rows(d).filter((r) => r.includes('| variants |'));
    expect(variants).toEqual([`POST /v1/x | ${BODY} | variants | anyOf of 2 -> a single schema (inside the suite's HoldingV1) | stricter`]);
    expect(rows(d).filter((r) => r.endsWith('| incompatible'))).toEqual([]);
    expect(rows(d).join('\n')).not.toMatch(/one of/);
  });

  it('is "target looser" when every variant is inside the single schema, and incompatible when neither holds', () => {
    const loose = answering({ type: 'object' });
    expect(rows(diffDocuments(suite, loose, { api: 'test' })).filter((r) => r.includes('| variants |'))).toEqual([`POST /v1/x | ${BODY} | variants | anyOf of 2 -> a single schema | looser`]);
    const other = answering({ type: 'object', required: ['id'], properties: { id: { type: 'integer' }, owner: { type: 'integer' } } });
    expect(rows(diffDocuments(suite, other, { api: 'test' })).filter((r) => r.includes('| variants |'))).toEqual([`POST /v1/x | ${BODY} | variants | anyOf of 2 -> a single schema | incompatible`]);
  });
});

describe("the suite's open right kind against 3.6's CanActAsAnyParty", () => {
  // the 3.6 participant's form: one $ref per kind, each a single-key object, CanActAsAnyParty second
  const KINDS = ['CanActAs', 'CanActAsAnyParty', 'CanExecuteAs', 'CanExecuteAsAnyParty', 'CanReadAs', 'CanReadAsAnyParty', 'Empty', 'IdentityProviderAdmin', 'ParticipantAdmin'];
  const target = () =>
    upstream('ledger', (doc) => {
      const schemas = (doc.components as Json).schemas as Json;
      schemas.CanActAsAnyParty ??= { title: 'CanActAsAnyParty', type: 'object' };
      for (const k of KINDS) schemas[`${k}1`] = { title: k, type: 'object', required: [k], properties: { [k]: { $ref: `#/components/schemas/${k}` } } };
      schemas.RightKind = { title: 'Kind', oneOf: KINDS.map((k) => ({ $ref: `#/components/schemas/${k}1` })) };
      (doc.info as Json).version = '3.6.0';
    });

  it('is "target stricter" wherever a right kind is compared, labelled by the kinds, never incompatible nor by index', async () => {
    const d = await specDiff({ api: 'ledger', targetSpec: target() });
    const kinds = rows(d).filter((r) => r.includes('| variants |'));
    expect(kinds.length).toBeGreaterThan(0);
    for (const r of kinds) {
      expect(r).toMatch(/\| oneOf of 9: also A right kind not named here \(a later release's\) -> oneOf of 9: CanActAsAnyParty \(inside the suite's A right kind not named here \(a later release's\)\) \| stricter$/);
    }
    expect(rows(d).filter((r) => r.endsWith('| incompatible'))).toEqual([]);
    expect(rows(d).join('\n')).not.toMatch(/#\d/);
  });
});

describe('an optional parameter only the suite declares', () => {
  const withParams = (parameters: unknown[]): LoadedDocument => ({
    source: 'test',
    openapi: '3.1.0',
    doc: { openapi: '3.1.0', info: { title: 't', version: '1.0' }, paths: { '/v0/ans-entries': { get: { operationId: 'listAnsEntries', parameters, responses: { '200': { description: 'ok' } } } } } },
  });

  it('is a note, not "target looser": a request with or without it is valid under both documents', () => {
    const d = diffDocuments(withParams([{ name: 'name_prefix', in: 'query', required: false, schema: { type: 'string' } }, { name: 'page_size', in: 'query', required: true, schema: { type: 'integer' } }]), withParams([{ name: 'page_size', in: 'query', required: true, schema: { type: 'integer' } }]), { api: 'test' });
    expect(rows(d)).toEqual([]);
    expect(d.operations[0]?.notes).toEqual([expect.stringMatching(/^only the suite declares the optional query parameter name_prefix \(a request with or without it is valid under both documents/)]);
    // a required one only the suite declares is still looser: a request without it is valid under the target's only
    const required = diffDocuments(withParams([{ name: 'page_size', in: 'query', required: true, schema: { type: 'integer' } }]), withParams([]), { api: 'test' });
    expect(rows(required)).toEqual(['GET /v0/ans-entries | query parameter page_size | parameter | required -> not declared | looser']);
  });
});
