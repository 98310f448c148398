/**
 * Constraints only FACTS.md gives a response (x-facts-required, x-facts-schema in specs/*.yaml) are judged under their
 * own SHOULD requirement by the generic checks, never under the operation's MUST response-schema rule; what SPEC.md
 * itself requires stays in the MUST.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { runGenericChecks } from '../../harness/judging/checks.js';
import type { Exchange } from '../../harness/transport/http.js';
import { FACTS_REACH, FACTS_REQUIRED, FACTS_SCHEMA, FACTS_TAG, SchemaRegistry, withFacts } from '../../harness/judging/schemas.js';
import { SPECS_DIR } from '../../harness/paths.js';
import { APIS, type Api } from '../../harness/types.js';

const schemas = new SchemaRegistry(SPECS_DIR, { precompiled: false });

const respond = (api: Api, operationId: string, json: unknown) => {
  const exchange = { api, operationId, status: 200, mediaType: 'application/json', text: JSON.stringify(json), json, record: {} } as unknown as Exchange;
  return runGenericChecks({ exchange, operation: schemas.operation(api, operationId), schemas });
};
const failed = (r: ReturnType<typeof respond>) => [...new Set(r.failures.map((f) => f.requirement))].sort();

const created = {
  offset: 7,
  nodeId: 0,
  contractId: '00c1',
  templateId: '#pkg:M:T',
  createdAt: '2026-01-01T00:00:00Z',
  packageName: 'pkg',
  representativePackageId: 'abc',
  acsDelta: true,
  createArgument: { owner: 'alice::1220' },
  witnessParties: ['alice::1220'],
  signatories: ['alice::1220'],
  observers: [],
  interfaceViews: [],
};
const transaction = {
  updateId: 'u1',
  commandId: 'c1',
  workflowId: '',
  effectiveAt: '2026-01-01T00:00:00Z',
  offset: 7,
  synchronizerId: 'sync::1220',
  recordTime: '2026-01-01T00:00:00Z',
  events: [{ CreatedEvent: created }],
  traceContext: null,
};
const without = <T extends Record<string, unknown>>(o: T, k: string) => Object.fromEntries(Object.entries(o).filter(([n]) => n !== k));

const MUST = 'ledger.get-transaction-by-offset.response-schema';
const TX_FIELDS = 'ledger.get-transaction-by-offset.transaction-required-fields';

describe('constraints only FACTS.md gives', () => {
  it('a complete transaction keeps the MUST and every FACTS.md requirement whose values it holds, and judges no other', () => {
    const r = respond('ledger', 'getTransactionByOffset', { transaction });
    expect(r.failures).toEqual([]);
    expect(r.judged).toEqual(expect.arrayContaining([MUST, TX_FIELDS, 'ledger.events.created-required-fields', 'ledger.events.created-witnesses-non-empty', 'ledger.events.lists-always-present']));
    // no ArchivedEvent or ExercisedEvent in it: their rules are neither kept nor broken by this answer
    expect(r.judged).not.toContain('ledger.events.archived-required-fields');
    expect(r.judged).not.toContain('ledger.events.exercised-required-fields');
  });

  it('a transaction missing a field only FACTS.md requires fails that SHOULD, not the MUST response-schema', () => {
    for (const field of ['recordTime', 'synchronizerId', 'effectiveAt', 'updateId', 'events']) {
      const r = respond('ledger', 'getTransactionByOffset', { transaction: without(transaction, field) });
      expect(failed(r), field).toEqual([TX_FIELDS]);
      expect(r.failures[0]!.message).toContain(field);
      expect(r.failures[0]!.check).toBe('body_keeps_facts');
      expect(r.judged).toContain(MUST);
    }
    // sent as null (real servers send an unset optional field so): the same
    expect(failed(respond('ledger', 'getTransactionByOffset', { transaction: { ...transaction, recordTime: null } }))).toEqual([TX_FIELDS]);
  });

  it('a created event missing a FACTS.md field, or with an empty signatory list, fails that SHOULD only', () => {
    const withEvent = (e: unknown) => ({ transaction: { ...transaction, events: [{ CreatedEvent: e }] } });
    expect(failed(respond('ledger', 'getTransactionByOffset', withEvent(without(created, 'createdAt'))))).toEqual(['ledger.events.created-required-fields']);
    expect(failed(respond('ledger', 'getTransactionByOffset', withEvent(without(created, 'observers'))))).toEqual(['ledger.events.lists-always-present']);
    expect(failed(respond('ledger', 'getTransactionByOffset', withEvent({ ...created, signatories: [] })))).toEqual(['ledger.events.created-signatories-non-empty']);
  });

  it('a response breaking what SPEC.md requires fails the MUST response-schema (and is not judged on FACTS.md constraints)', () => {
    // SPEC.md: events is a list; offset an int64; 200 answers a transaction
    expect(failed(respond('ledger', 'getTransactionByOffset', { transaction: { ...transaction, events: {} } }))).toEqual([MUST]);
    expect(failed(respond('ledger', 'getTransactionByOffset', { transaction: { ...transaction, offset: 'seven' } }))).toEqual([MUST]);
    expect(failed(respond('ledger', 'getTransactionByOffset', {}))).toEqual([MUST]);
    // SPEC.md: an assign event carries the created contract event
    const reassignment = { updateId: 'u', offset: 3, recordTime: 't', synchronizerId: 's', events: [{ JsAssignmentEvent: { source: 'a', target: 'b', reassignmentId: 'r', submitter: 'p', reassignmentCounter: 1 } }] };
    expect(failed(respond('ledger', 'submitAndWaitForReassignment', { reassignment }))).toEqual(['ledger.submit-and-wait-for-reassignment.response-schema']);
    const kept = { ...reassignment, events: [{ JsAssignmentEvent: { ...reassignment.events[0]!.JsAssignmentEvent, createdEvent: created } }] };
    expect(failed(respond('ledger', 'submitAndWaitForReassignment', { reassignment: kept }))).toEqual([]);
    expect(failed(respond('ledger', 'submitAndWaitForReassignment', { reassignment: { ...kept, updateId: null } }))).toEqual(['ledger.submit-and-wait-for-reassignment.required-fields']);
  });

  it("scan: an events_by_id event not in FACTS.md's shape, or a traffic summary whose cost is text, fails its SHOULD only", () => {
    const createdEvent = { event_type: 'created_event', event_id: 'e1', contract_id: 'c', template_id: 'p:M:T', package_name: 'p', create_arguments: {}, created_at: '2026-01-01T00:00:00Z', signatories: ['a'], observers: [] };
    const update = { update_id: 'u', migration_id: 0, workflow_id: '', record_time: '2026-01-01T00:00:00.000000Z', synchronizer_id: 's', effective_at: '2026-01-01T00:00:00Z', root_event_ids: ['e1'], events_by_id: { e1: createdEvent } };
    const event = { update, verdict: null, traffic_summary: { total_traffic_cost: 5, envelope_traffic_summaries: [] }, app_activity_records: null };
    expect(failed(respond('scan', 'getEventById', event))).toEqual([]);
    expect(failed(respond('scan', 'getEventById', { ...event, update: { ...update, events_by_id: { e1: { ...createdEvent, event_type: 7 } } } }))).toEqual(['scan.events.tree-event-shape']);
    expect(failed(respond('scan', 'getEventById', { ...event, traffic_summary: { total_traffic_cost: '5', envelope_traffic_summaries: [] } }))).toEqual(['scan.events.traffic-summary-shape']);
    // SPEC.md: a transaction's events_by_id is an object
    expect(failed(respond('scan', 'getEventById', { ...event, update: { ...update, events_by_id: [] } }))).toEqual(['scan.get-event-by-id.response-schema']);
  });

  it('every FACTS.md constraint names a requirement of the catalogue that is not a MUST', () => {
    const found: Array<{ api: Api; id: string }> = [];
    const walk = (api: Api, node: unknown): void => {
      if (Array.isArray(node)) return node.forEach((n) => walk(api, n));
      if (typeof node !== 'object' || node === null) return;
      for (const k of [FACTS_REQUIRED, FACTS_SCHEMA]) {
        const v = (node as Record<string, unknown>)[k];
        if (v !== undefined) {
          expect(typeof v === 'object' && v !== null && !Array.isArray(v), `${api}: ${k} maps requirement ids`).toBe(true);
          for (const id of Object.keys(v as object)) found.push({ api, id });
        }
      }
      for (const v of Object.values(node)) walk(api, v);
    };
    for (const api of APIS) walk(api, schemas.document(api));
    expect(found.length).toBeGreaterThan(10);
    const catalogues = new Map<Api, Array<{ id: string; level: string }>>();
    for (const { api, id } of found) {
      if (!catalogues.has(api)) catalogues.set(api, (YAML.parse(readFileSync(join(SPECS_DIR, 'requirements', `${api}.yaml`), 'utf8')) as { requirements: Array<{ id: string; level: string }> }).requirements);
      const r = catalogues.get(api)!.find((q) => q.id === id);
      expect(r, `${id} is in requirements/${api}.yaml`).toBeDefined();
      expect(r!.level, `${id}: a rule only FACTS.md gives is no MUST`).not.toBe('MUST');
    }
  });

  it('withFacts adds each requirement\'s constraints under a schema tagged with it (judge), or a tagged mark that always fails (reach)', () => {
    const schema = { type: 'object', required: ['a'], [FACTS_REQUIRED]: { r1: ['b'], r2: ['c'] }, properties: { d: { type: 'array', [FACTS_SCHEMA]: { r1: { minItems: 1 } } } } };
    expect(withFacts(schema, 'judge')).toMatchObject({
      required: ['a'],
      allOf: [
        { [FACTS_TAG]: 'r1', required: ['b'], properties: { b: { [FACTS_TAG]: 'r1', not: { type: 'null' } } } },
        { [FACTS_TAG]: 'r2', required: ['c'] },
      ],
      properties: { d: { type: 'array', allOf: [{ [FACTS_TAG]: 'r1', anyOf: [{ minItems: 1 }] }] } },
    });
    expect(withFacts(schema, 'reach')).toMatchObject({ required: ['a'], allOf: [{ [FACTS_REACH]: 'r1', not: {} }, { [FACTS_REACH]: 'r2', not: {} }], properties: { d: { allOf: [{ [FACTS_REACH]: 'r1', not: {} }] } } });
    const plain = { type: 'object', required: ['a'], properties: { a: { type: 'string' } } };
    expect(withFacts(plain, 'judge')).toEqual(plain);
  });
});
