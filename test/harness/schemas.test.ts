import { describe, expect, it } from 'vitest';
import { acceptNullOptionals, acceptNullOptionalsInSchema, createAjv, formatErrors, SchemaRegistry } from '../../harness/judging/schemas.js';

/** A small document with the shapes the transform must mind: $ref with siblings, enums, allOf, oneOf, maps. */
const doc = {
  openapi: '3.1.0',
  paths: {
    '/x': {
      get: {
        operationId: 'getX',
        parameters: [{ name: 'q', in: 'query', schema: { type: 'object', properties: { a: { type: 'string' } } } }],
        responses: {
          '200': { content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, note: { type: 'string' } } } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'kind'],
        properties: {
          id: { type: 'string' },
          kind: { type: 'string', enum: ['a', 'b'] },
          label: { type: 'string', minLength: 1 },
          colour: { type: 'string', enum: ['red', 'blue'] },
          count: { type: 'integer', format: 'int32' },
          child: { $ref: '#/components/schemas/Child', description: 'a $ref with a sibling' },
          tags: { type: 'array', items: { type: 'string' } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          anything: { description: 'any JSON value' },
          properties: { type: 'string', description: 'a property named like the keyword' },
        },
      },
      Child: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, age: { type: 'integer' } } },
      Extended: { allOf: [{ $ref: '#/components/schemas/Child' }], required: ['age'] },
      Union: {
        oneOf: [
          { type: 'object', required: ['A'], properties: { A: { $ref: '#/components/schemas/Child' } } },
          { type: 'object', required: ['B'], properties: { B: { type: 'object', properties: { n: { type: 'integer' } } } } },
        ],
      },
    },
  },
};

function validator(name: string) {
  const ajv = createAjv();
  ajv.addSchema(acceptNullOptionals(doc), 'doc');
  const v = ajv.getSchema(`doc#/components/schemas/${name}`)!;
  return (value: unknown) => (v(value) ? [] : formatErrors(v.errors));
}

describe('acceptNullOptionals (response schemas accept the null a real server sends for an unset optional field)', () => {
  const thing = validator('Thing');
  const base = { id: 'x', kind: 'a' };

  it('a null optional property passes, whatever its schema (type, enum, $ref with siblings, array, map, minLength)', () => {
    for (const k of ['label', 'colour', 'count', 'child', 'tags', 'labels', 'anything', 'properties']) {
      expect(thing({ ...base, [k]: null }), k).toEqual([]);
    }
  });

  it('a value of the wrong type in an optional property still fails, and the message names the field, not the null branch', () => {
    expect(thing({ ...base, label: 3 })).toEqual(['body.label: must be string or null']);
    expect(thing({ ...base, label: '' }).join()).toContain('body.label');
    expect(thing({ ...base, colour: 'green' })).toEqual(['body.colour: "green" is not one of ["red","blue"]']);
    expect(thing({ ...base, count: 2 ** 40 }).join()).toContain('body.count');
    expect(thing({ ...base, child: 'c' })).toEqual(['body.child: must be object']);
    expect(thing({ ...base, child: {} })).toEqual(['body.child: missing required field "name"']);
  });

  it('a null required property fails', () => {
    expect(thing({ ...base, id: null })).toEqual(['body.id: must be string']);
    expect(thing({ id: 'x', kind: null }).join()).toContain('body.kind');
    expect(thing({ id: 'x' })).toEqual(['body: missing required field "kind"']);
  });

  it('values of a map and items of a list do not become nullable', () => {
    expect(thing({ ...base, labels: { a: null } }).join()).toContain('body.labels.a');
    expect(thing({ ...base, tags: [null] }).join()).toContain('body.tags.0');
  });

  it('nested object schemas are rewritten too; a name required beside allOf stays non-null', () => {
    expect(thing({ ...base, child: { name: 'n', age: null } })).toEqual([]);
    expect(thing({ ...base, child: { name: null } })).not.toEqual([]);
    const extended = validator('Extended');
    expect(extended({ name: 'n', age: 3 })).toEqual([]);
    expect(extended({ name: 'n', age: null })).not.toEqual([]);
    expect(extended({ name: 'n' })).not.toEqual([]);
  });

  it('union branches keep their required keys and still tell one variant from another', () => {
    const union = validator('Union');
    expect(union({ A: { name: 'n', age: null } })).toEqual([]);
    expect(union({ B: { n: null } })).toEqual([]);
    expect(union({ A: null })).not.toEqual([]);
    expect(union({})).not.toEqual([]);
  });

  it('rewrites response schemas only: parameters stay as written, and the input document is not changed', () => {
    const before = JSON.stringify(doc);
    const out = acceptNullOptionals(doc) as typeof doc;
    expect(JSON.stringify(doc)).toBe(before);
    expect(out.paths['/x'].get.parameters[0]!.schema).toEqual(doc.paths['/x'].get.parameters[0]!.schema);
    const response = out.paths['/x'].get.responses['200'].content['application/json'].schema as { properties: Record<string, unknown> };
    expect(response.properties.note).toEqual({ type: ['string', 'null'] });
    expect(response.properties.id).toEqual({ type: 'string' });
  });

  it('leaves a schema that already accepts null, and a boolean schema, as they are', () => {
    expect(acceptNullOptionalsInSchema({ type: 'object', properties: { a: { type: ['string', 'null'] }, b: true } })).toEqual({
      type: 'object',
      properties: { a: { type: ['string', 'null'] }, b: true },
    });
  });
});

describe('SchemaRegistry: a response validator set and a request validator set', () => {
  const reg = new SchemaRegistry();
  const error = { code: 'INVALID_ARGUMENT', cause: 'c', context: {}, errorCategory: 8, resources: [], correlationId: null, definiteAnswer: null };

  it('judges responses with nulls accepted for optional fields, requests as the document is written', () => {
    expect(reg.validateComponent('ledger', 'JsCantonError', error, 'response')).toEqual([]);
    expect(reg.validateComponent('ledger', 'JsCantonError', error)).not.toEqual([]);
    expect(reg.validateComponent('ledger', 'User', { id: 'u', primaryParty: null }, 'response')).toEqual([]);
    expect(reg.validateComponent('ledger', 'User', { id: 'u', primaryParty: null })).not.toEqual([]);
  });

  it('the response schema of an operation accepts a null optional field and refuses a null required one', () => {
    const op = reg.operation('ledger', 'submitAndWaitForReassignment');
    const media = reg.response(op, 200)!.content['application/json']!;
    const reassignment = { updateId: 'u', commandId: null, workflowId: null, offset: 3, recordTime: 't', synchronizerId: 's', events: [], traceContext: null, paidTrafficCost: null };
    expect(reg.validateBody('ledger', media, { reassignment })).toEqual([]);
    // SPEC.md: an assign event carries the created contract event
    const assign = { source: 's', target: 't', reassignmentId: 'r', submitter: 'p', reassignmentCounter: 1, createdEvent: null };
    expect(reg.validateBody('ledger', media, { reassignment: { ...reassignment, events: [{ JsAssignmentEvent: assign }] } })).toContain('body.reassignment.events.0.JsAssignmentEvent.createdEvent: must be object');
    expect(reg.validateBody('ledger', media, { reassignment: { ...reassignment, offset: 'x' } })).not.toEqual([]);
    // a field only FACTS.md requires, sent as null: kept by the MUST schema, refused under its SHOULD
    expect(reg.validateBody('ledger', media, { reassignment: { ...reassignment, synchronizerId: null } })).toEqual([]);
    expect(reg.validateFacts('ledger', media, { reassignment: { ...reassignment, synchronizerId: null } })).toEqual([
      { requirement: 'ledger.submit-and-wait-for-reassignment.required-fields', errors: ['body.reassignment.synchronizerId: must not be null'] },
    ]);
  });

  it('a right kind the documents do not name is no schema failure; a named kind still needs its payload', () => {
    expect(reg.validateComponent('ledger', 'Right', { kind: { CanActAsAnyParty: { value: {} } } }, 'response')).toEqual([]);
    expect(reg.validateComponent('ledger', 'Right', { kind: { CanActAs: { value: {} } } }, 'response')).not.toEqual([]);
    expect(reg.validateComponent('ledger', 'Right', { kind: {} }, 'response')).not.toEqual([]);
  });
});
