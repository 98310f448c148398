import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { notServedAt, readOwnDocument, readOwnOperations, specLedgerOperations } from '../../harness/judging/own-openapi.js';
import { schemaRegistry } from '../../harness/judging/schemas.js';

const ops = schemaRegistry().operations('ledger');

/**
 * A document the way a participant generates it for its version: OpenAPI 3.0.3, YAML, its own operationIds and path
 * parameter names, path parameters declared on the path item through a $ref, `nullable` schemas, the set-up endpoints
 * and many operations SPEC.md does not describe, and no traffic endpoints.
 */
function participantDocument(version: string, o: { drop?: string; add?: string[] } = {}): string {
  const paths: Record<string, Record<string, unknown>> = {};
  const put = (method: string, path: string, id: string) => {
    const own = path.replace(/\{user-id\}/g, '{userId}').replace(/\{account-id\}/g, '{accountId}');
    paths[own] ??= own.includes('{') ? { parameters: [{ $ref: '#/components/parameters/PathId' }] } : {};
    paths[own][method.toLowerCase()] = { operationId: `${id}Own`, responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Any' } } } } } };
  };
  for (const op of ops) {
    if (op.path.startsWith('/v2/traffic/') || op.operationId === o.drop) continue;
    if (!op.setup && notServedAt(version, op) !== undefined && !(o.add ?? []).includes(op.operationId)) continue;
    put(op.method, op.path, op.operationId);
  }
  for (const [m, p] of [['POST', '/v2/dars'], ['GET', '/v2/parties/participant-id'], ['POST', '/v2/state/active-contracts'], ['GET', '/v2/idps/{idp-id}'], ['POST', '/v2/package-vetting']]) put(m!, p!, 'extra');
  return stringify({
    openapi: '3.0.3',
    info: { title: 'JSON Ledger API HTTP endpoints', version: `${version}.2` },
    paths,
    components: {
      parameters: { PathId: { name: 'userId', in: 'path', required: true, schema: { type: 'string' } } },
      schemas: { Any: { type: 'object', nullable: true, properties: { x: { type: 'string', nullable: true } } } },
    },
  });
}

const read = (text: string, version: string) => {
  const doc = readOwnDocument(200, text);
  if (typeof doc === 'string') throw new Error(doc);
  return readOwnOperations(doc, version, ops);
};
const ids = (xs: { operationId: string }[]) => xs.map((x) => x.operationId).sort();

describe('a participant\'s own OpenAPI document (GET /docs/openapi)', () => {
  it('judges SPEC.md\'s operations only: no set-up, no traffic endpoint', () => {
    const judged = ids(specLedgerOperations(ops));
    expect(judged).toContain('updateUser');
    expect(judged).toContain('getPackageVetting');
    expect(judged).not.toContain('createUser');
    expect(judged).not.toContain('updateTrafficAccount');
  });

  for (const version of ['3.4', '3.5', '3.6']) {
    it(`passes a ${version} participant's own 3.0.3 YAML document, with its own names, extra operations and schemas`, () => {
      const r = read(participantDocument(version), version);
      expect(r.missing).toEqual([]);
      expect(r.listedUnserved).toEqual([]);
      expect(r.listed).toBeGreaterThan(specLedgerOperations(ops).length);
    });
  }

  it('passes the same document served as JSON', () => {
    const text = JSON.stringify(readOwnDocument(200, participantDocument('3.5')));
    expect(text.startsWith('{"openapi":"3.0.3"')).toBe(true);
    expect(read(text, '3.5').missing).toEqual([]);
  });

  it('names an operation the version serves that the document leaves out, whatever its parameter names', () => {
    expect(ids(read(participantDocument('3.5', { drop: 'updateUser' }), '3.5').missing)).toEqual(['updateUser']);
    expect(ids(read(participantDocument('3.6', { drop: 'submitAndWaitForTransactionTree' }), '3.6').missing)).toEqual(['submitAndWaitForTransactionTree']);
  });

  it('names the operations a 3.6 participant no longer serves when its document lists them', () => {
    const r = read(participantDocument('3.6', { add: ['getPackageVetting', 'getTransactionByOffset'] }), '3.6');
    expect(ids(r.listedUnserved)).toEqual(['getPackageVetting', 'getTransactionByOffset']);
    expect(ids(r.unserved)).toEqual(['getPackageVetting', 'getTransactionByOffset']);
    expect(r.missing).toEqual([]);
    // a 3.5 participant serves both: nothing unserved to list
    expect(read(participantDocument('3.5'), '3.5').unserved).toEqual([]);
  });

  it('says why an answer is no document', () => {
    expect(readOwnDocument(404, 'not found')).toMatch(/answered 404/);
    expect(readOwnDocument(200, '{"openapi": "3.0.3", "paths": [')).toMatch(/parses neither as JSON nor as YAML/);
    expect(readOwnDocument(200, '- a\n- b\n')).toMatch(/top level is not a mapping/);
    expect(readOwnDocument(200, '{"paths": {}}')).toMatch(/no openapi version string/);
    expect(readOwnDocument(200, '{"openapi": "3.0.3"}')).toMatch(/no paths object/);
    expect(readOwnDocument(200, 'openapi: 3.0.3\npaths: {}\n')).toMatchObject({ openapi: '3.0.3', paths: {} });
  });
});
