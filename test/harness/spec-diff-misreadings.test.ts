/**
 * spec-diff on small documents written for six misreadings found on documents rebuilt from the official clients'
 * generated types: the type of a oneOf (from its branches, or its parent's for a branch without one), a const or enum
 * without a type, allOf branches that define one property twice, an optional parameter only the target declares, a
 * version the suite cannot read, and a binary upload body.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffDocuments, type DiffOptions, type SpecDiff } from '../../harness/spec-diff/diff.js';
import { fromOpenApi30, loadDocument, type Json, type LoadedDocument } from '../../harness/spec-diff/document.js';
import { expectedMissing, renderSpecDiffMarkdown } from '../../harness/spec-diff/index.js';

const SPECS = join(import.meta.dirname, '..', '..', 'specs');

/** A 3.1 document of one or more paths and the schemas they refer to. */
const document = (paths: Json, schemas: Json = {}, version = '1.0'): LoadedDocument => ({
  source: 'test',
  openapi: '3.1.0',
  doc: { openapi: '3.1.0', info: { title: 'test', version }, paths, components: { schemas } },
});

/** POST /v1/x answering 200 with `schema` (and whatever else the operation object is given). */
const answering = (schema: unknown, more: Json = {}): Json => ({
  '/v1/x': { post: { operationId: 'x', responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } }, ...more } },
});

/** POST /v1/x taking a required JSON body `schema`. */
const taking = (schema: unknown, mediaType = 'application/json'): Json => ({
  '/v1/x': { post: { operationId: 'x', requestBody: { required: true, content: { [mediaType]: { schema } } }, responses: { '200': { description: 'ok' } } } },
});

const diff = (suite: LoadedDocument, target: LoadedDocument, o: Partial<DiffOptions> = {}) => diffDocuments(suite, target, { api: 'test', ...o });

/** "at | kind | suite -> target | class" of every difference, sorted */
const rows = (d: SpecDiff) => d.operations.flatMap((op) => op.differences.map((x) => `${x.at} | ${x.kind} | ${x.suite} -> ${x.target} | ${x.classification}`)).sort();

const BODY = 'response 200 application/json: body';

describe('the type of a oneOf or anyOf', () => {
  // the suite's form: the parent is the object, each branch only says which key it requires
  const suiteUpdate = {
    type: 'object',
    oneOf: [{ required: ['Transaction'] }, { required: ['Checkpoint'] }],
    properties: { Transaction: { type: 'object' }, Checkpoint: { type: 'object' } },
  };
  // the generated form: no type on the parent, every branch an object
  const branch = (key: string, type = 'object') => ({ type, required: [key], properties: { [key]: { type: 'object' } } });
  const upstreamUpdate = { oneOf: [branch('Transaction'), branch('Checkpoint')] };

  it('is an object when every branch is one, and a branch without a type has its parent type', () => {
    expect(rows(diff(document(answering(suiteUpdate)), document(answering(upstreamUpdate))))).toEqual([]);
    expect(rows(diff(document(answering(upstreamUpdate)), document(answering(suiteUpdate))))).toEqual([]);
    expect(rows(diff(document(answering(upstreamUpdate)), document(answering(upstreamUpdate))))).toEqual([]);
    // the same under a property, through $refs, and as an anyOf
    const response = { type: 'object', required: ['update'], properties: { update: { $ref: '#/components/schemas/Update' } } };
    expect(rows(diff(document(answering(response), { Update: suiteUpdate }), document(answering(response), { Update: { anyOf: upstreamUpdate.oneOf } })))).toEqual([]);
  });

  it('still reports a branch or a union of another type', () => {
    // a branch that is an array where the suite's (its parent's type) is an object
    const odd = { oneOf: [branch('Transaction'), branch('Checkpoint', 'array')] };
    expect(rows(diff(document(answering(suiteUpdate)), document(answering(odd))))).toEqual([
      `${BODY} | type | object -> object, array | looser`,
      `${BODY}(Checkpoint) | type | object -> array | incompatible`,
    ]);
    // a union of a string and an integer where the suite has a string
    expect(rows(diff(document(answering({ type: 'string' })), document(answering({ oneOf: [{ type: 'string' }, { type: 'integer' }] }))))).toEqual([
      `${BODY} | type | string -> string, integer | looser`,
      `${BODY} | variants | a single schema (inside the target's string) -> oneOf of 2 | looser`,
    ]);
    // a branch without any type leaves the union of any type
    expect(rows(diff(document(answering({ type: 'object' })), document(answering({ oneOf: [{ type: 'object' }, { required: ['a'] }] }))))).toContain(`${BODY} | type | object -> any type | looser`);
  });

  it("shows no difference on update-by-offset against the upstream document's form of Update", async () => {
    const suite = await loadDocument(join(SPECS, 'ledger.yaml'));
    const schemas = (suite.doc.components as Json).schemas as Json;
    const keyed = (key: string, value: unknown) => ({ type: 'object', required: [key], properties: { [key]: { type: 'object', required: ['value'], properties: { value } } } });
    // the upstream document's Update: a oneOf of four objects, each naming its kind, without a type of its own
    const Update = {
      title: 'Update',
      oneOf: [
        keyed('OffsetCheckpoint', { type: 'object' }),
        keyed('Reassignment', { $ref: '#/components/schemas/JsReassignment' }),
        keyed('TopologyTransaction', { type: 'object' }),
        keyed('Transaction', { $ref: '#/components/schemas/JsTransaction' }),
      ],
    };
    const target: LoadedDocument = { ...suite, source: 'upstream', doc: { ...suite.doc, components: { ...(suite.doc.components as Json), schemas: { ...schemas, Update } } } };
    const d = diff(suite, target);
    const op = d.operations.find((o) => o.operationId === 'getUpdateByOffset');
    expect(op?.status).toBe('matched');
    expect(op?.differences).toEqual([]);
    expect(d.counts.differences).toBe(0);
  });
});

describe('a const or an enum without a type', () => {
  it('has the JSON type of its values', () => {
    const none = (a: unknown, b: unknown) => expect(rows(diff(document(answering(a)), document(answering(b))))).toEqual([]);
    none({ type: 'string', enum: ['A'] }, { const: 'A' });
    none({ type: 'string', enum: ['A', 'B'] }, { enum: ['A', 'B'] });
    none({ type: 'integer', enum: [1] }, { const: 1 });
    none({ type: 'number', enum: [1] }, { const: 1 });
    none({ type: 'boolean', enum: [true] }, { const: true });
    none({ type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: ['X'] } } }, { type: 'object', required: ['kind'], properties: { kind: { const: 'X' } } });
  });

  it('still reports a narrower or a different set of values', () => {
    expect(rows(diff(document(answering({ type: 'string' })), document(answering({ const: 'A' }))))).toEqual([`${BODY} | enum | any value -> "A" | stricter`]);
    expect(rows(diff(document(answering({ type: 'string', enum: ['A', 'B'] })), document(answering({ enum: ['A'] }))))).toEqual([`${BODY} | enum | "A", "B" -> "A" | stricter`]);
    expect(rows(diff(document(answering({ type: 'string' })), document(answering({ enum: [1, 2] }))))).toEqual([
      `${BODY} | enum | any value -> 1, 2 | stricter`,
      `${BODY} | type | string -> integer | incompatible`,
    ]);
  });
});

describe('allOf', () => {
  it('merges every branch: a property two branches define has both definitions', () => {
    const suite = document(answering({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } }));
    // the second definition of a, not the first, has the type, and the difference (a format)
    const target = document(
      answering({
        allOf: [
          { type: 'object', properties: { a: { description: 'the a' }, b: { type: 'integer' } } },
          { properties: { a: { type: 'string', format: 'date-time' } } },
          { properties: { b: { enum: [1, 2] } } },
        ],
      }),
    );
    expect(rows(diff(suite, target))).toEqual([`${BODY}.a | format | none -> date-time | stricter`, `${BODY}.b | enum | any value -> 1, 2 | stricter`]);
    // the same definitions in the suite's document: no difference either way
    expect(rows(diff(target, target))).toEqual([]);
  });

  it('merges items, required sets and enums of every branch, and ends on a schema that refers to itself', () => {
    const schemas = {
      Node: { allOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }] },
      A: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, child: { $ref: '#/components/schemas/Node' }, list: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } },
      B: { type: 'object', required: ['kind'], properties: { kind: { enum: ['X', 'Y'] }, child: { description: 'another' }, list: { items: { type: 'object' } } } },
    };
    const plain = {
      Node: { type: 'object', required: ['id', 'kind'], properties: { id: { type: 'string' }, kind: { type: 'string', enum: ['X', 'Y'] }, child: { $ref: '#/components/schemas/Node' }, list: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } },
    };
    const ref = { $ref: '#/components/schemas/Node' };
    expect(rows(diff(document(answering(ref), plain), document(answering(ref), schemas)))).toEqual([]);
    const narrower = { ...schemas, B: { ...schemas.B, properties: { ...schemas.B.properties, kind: { enum: ['X'] } } } };
    // found once per place compared apart: the body, an optional property (its null aside), the merged items
    expect(rows(diff(document(answering(ref), plain), document(answering(ref), narrower)))).toEqual(
      [`${BODY}.kind`, `${BODY}.child.kind`, `${BODY}.child.list[].kind`].map((at) => `${at} | enum | "X", "Y" -> "X" | stricter`).sort(),
    );
  });
});

describe('a parameter only the target declares', () => {
  const withParams = (parameters: unknown[]) => document({ '/v1/x': { get: { operationId: 'x', parameters, responses: { '200': { description: 'ok' } } } } });

  it('is no difference when it is optional (a note), and stricter when it is required', () => {
    const d = diff(withParams([]), withParams([{ name: 'limit', in: 'query', schema: { type: 'integer' } }, { name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string' } }]));
    expect(rows(d)).toEqual(['header parameter X-Tenant | parameter | not declared -> required | stricter']);
    expect(d.operations[0]?.notes).toEqual(['the target also declares the optional query parameter limit (a request without it is valid under both documents)']);
    expect(d.counts).toMatchObject({ differences: 1, stricter: 1 });
    const md = renderSpecDiffMarkdown(diff(withParams([]), withParams([{ name: 'limit', in: 'query', required: false, schema: { type: 'integer' } }])));
    expect(md).toContain('**no difference**');
    expect(md).toContain('Not a difference: the target also declares the optional query parameter limit');
  });
});

describe("a target's version the suite cannot read", () => {
  const paths = (since: boolean): Json => ({
    '/v1/a': { get: { operationId: 'a', responses: { '200': { description: 'ok' } } } },
    ...(since ? { '/v1/b': { get: { operationId: 'b', 'x-since': '2.0', responses: { '200': { description: 'ok' } } } } } : {}),
  });
  const run = (targetVersion: string, o: Partial<DiffOptions> = {}) => diff(document(paths(true)), document(paths(false), {}, targetVersion), { expectedMissing: expectedMissing('scan'), ...o });

  it('reports the missing operations as missing, and says the version is unknown', () => {
    for (const [d, what] of [
      [run('unknown'), '"unknown" (its document\'s info.version)'],
      [run('1.5', { version: 'latest' }), '"latest" (the target version given)'],
    ] as const) {
      expect(d.counts).toMatchObject({ missing: 1, expected: 0, differences: 1, stricter: 1 });
      expect(d.operations.find((op) => op.operationId === 'b')).toMatchObject({ status: 'missing', differences: [{ kind: 'operation', classification: 'stricter' }] });
      expect(d.judgedAtVersion).toBeUndefined();
      expect(d.notes).toHaveLength(1);
      expect(d.notes?.[0]).toMatch(/^version unknown: /);
      expect(d.notes?.[0]).toContain(what);
      expect(d.notes?.[0]).toContain('operations missing are reported as missing');
      expect(renderSpecDiffMarkdown(d)).toContain('- **version unknown: ');
    }
  });

  it('still judges a version it reads (the missing operation expected before 2.0), without the note', () => {
    const d = run('1.5.0');
    expect(d.counts).toMatchObject({ missing: 0, expected: 1, differences: 0 });
    expect(d.judgedAtVersion).toBe('1.5.0');
    expect(d.notes).toBeUndefined();
    expect(renderSpecDiffMarkdown(d)).not.toContain('version unknown');
  });
});

describe('a binary upload body', () => {
  it('is the same as a string of any bytes (contentMediaType)', () => {
    const suite = document(taking({ type: 'string', contentMediaType: 'application/octet-stream' }, 'application/octet-stream'));
    expect(rows(diff(suite, document(taking({ type: 'string', format: 'binary' }, 'application/octet-stream'))))).toEqual([]);
    // the same in an OpenAPI 3.0 document, converted
    const t30 = fromOpenApi30({ openapi: '3.0.3', info: { title: 't', version: '1.0' }, paths: taking({ type: 'string', format: 'binary' }, 'application/octet-stream') });
    expect(rows(diff(suite, { source: 't30', openapi: '3.0.3', doc: t30 }))).toEqual([]);
    // a base64 string (format byte) is still a difference
    expect(rows(diff(suite, document(taking({ type: 'string', format: 'byte' }, 'application/octet-stream'))))).toEqual([
      'request body application/octet-stream: body | format | none -> byte | stricter',
    ]);
  });
});
