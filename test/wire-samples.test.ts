/**
 * Recorded bodies of real participants and Splice nodes (../shared/wire-samples/, beside the project) against the
 * response schemas of specs/: a schema that rejects one of them is wrong about the real wire (DESIGN.md, principle 14).
 * The samples are read in place, never copied into the project.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../harness/paths.js';
import { SchemaRegistry } from '../harness/judging/schemas.js';
import type { Api } from '../harness/types.js';

const SAMPLES_DIR = join(PACKAGE_ROOT, '..', 'shared', 'wire-samples');
const present = existsSync(SAMPLES_DIR);

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});

/** What one part of a sample is judged against: an operation's response (status, media type) or a component. */
type Target = { api: Api; op: string; status: number; media?: string } | { api: Api; component: string };

interface Part {
  where: string;
  target: Target;
  value: unknown;
}

/** The parts of each sample file and the schema each must pass. A file not listed here fails the test. */
const FILES: Record<string, (body: unknown) => Part[]> = {
  // {update: {Transaction: {value: <transaction>}}}: the transaction is what transaction-by-offset answers under `transaction`
  'ledger.get-update.transactions.json': (body) =>
    (body as unknown[]).map((item, i) => {
      const tx = obj(obj(obj(item).update).Transaction).value;
      return { where: `[${i}].update.Transaction.value`, target: { api: 'ledger', op: 'getTransactionByOffset', status: 200 }, value: { transaction: tx } };
    }),
  // {created: {createdEvent, synchronizerId}, archived: null | {archivedEvent, synchronizerId}}
  'ledger.events-by-contract-id.json': (body) =>
    (body as unknown[]).flatMap((item, i) => {
      const created = obj(obj(item).created);
      const archived = obj(item).archived;
      return [
        { where: `[${i}].created.createdEvent`, target: { api: 'ledger', component: 'CreatedEvent' }, value: created.createdEvent },
        ...(archived === null || archived === undefined
          ? []
          : [{ where: `[${i}].archived.archivedEvent`, target: { api: 'ledger', component: 'ArchivedEvent' } as Target, value: obj(archived).archivedEvent }]),
      ];
    }),
  // {workflowId, contractEntry: {JsActiveContract: {createdEvent, synchronizerId, reassignmentCounter}}}
  'ledger.active-contracts.json': (body) =>
    (body as unknown[]).map((item, i) => ({
      where: `[${i}].contractEntry.JsActiveContract.createdEvent`,
      target: { api: 'ledger', component: 'CreatedEvent' },
      value: obj(obj(obj(item).contractEntry).JsActiveContract).createdEvent,
    })),
  // a JsCantonError as a participant sends it, nulls included: judged as the 400 JSON body of a ledger operation
  'ledger.error.JsCantonError.json': (body) => [
    { where: '(body)', target: { api: 'ledger', op: 'getTransactionByOffset', status: 400, media: 'application/json' }, value: body },
    { where: '(body)', target: { api: 'ledger', op: 'updateUser', status: 404, media: 'application/json' }, value: body },
  ],
  // a /v0/ans-entries answer holding the DSO's own entry (contract_id and expires_at null); the scan proxy answers the same
  'scan.ans-entry.dso.json': (body) => [
    { where: '(body)', target: { api: 'scan', op: 'listAnsEntries', status: 200 }, value: body },
    { where: '(body)', target: { api: 'validator', op: 'listScanProxyAnsEntries', status: 200 }, value: body },
  ],
  // one /v0/events item: as a whole it is what GET /v0/events/{update_id} answers; its update and verdict parts too
  'scan.event-history-item.json': (body) => {
    const b = obj(body);
    return [
      { where: '(body)', target: { api: 'scan', op: 'getEventById', status: 200 }, value: body },
      { where: '(body)', target: { api: 'scan', component: 'EventHistoryItem' }, value: body },
      { where: '.update', target: { api: 'scan', component: 'UpdateHistoryItemV2' }, value: b.update },
      ...(b.verdict === null || b.verdict === undefined ? [] : [{ where: '.verdict', target: { api: 'scan', component: 'EventHistoryVerdict' } as Target, value: b.verdict }]),
      ...Object.entries(obj(obj(b.update).events_by_id)).map(([id, ev]) => ({
        where: `.update.events_by_id["${id}"]`,
        target: { api: 'scan', component: 'TreeEvent' } as Target,
        value: ev,
      })),
    ];
  },
};

/** The schema's errors, and those of the constraints only FACTS.md gives (real servers keep them too), by requirement. */
function judge(reg: SchemaRegistry, target: Target, value: unknown): string[] {
  const facts = (media: { pointer?: string }) => reg.validateFacts(target.api, media, value).flatMap((j) => j.errors.map((e) => `${j.requirement}: ${e}`));
  if ('component' in target) {
    const errors = reg.validateComponent(target.api, target.component, value, 'response');
    return errors.length > 0 ? errors : facts({ pointer: `#/components/schemas/${target.component}` });
  }
  const op = reg.operation(target.api, target.op);
  const response = reg.response(op, target.status);
  const media = response?.content[target.media ?? 'application/json'];
  if (media?.pointer === undefined) return [`${target.op} documents no ${target.media ?? 'application/json'} schema for ${target.status}`];
  const errors = reg.validateBody(target.api, media, value);
  return errors.length > 0 ? errors : facts(media);
}

const describeName = (t: Target) => ('component' in t ? `${t.api} ${t.component}` : `${t.api} ${t.op} ${t.status}${t.media !== undefined ? ` ${t.media}` : ''}`);

describe.skipIf(!present)(`recorded real responses (${SAMPLES_DIR})`, () => {
  const files = present ? readdirSync(SAMPLES_DIR).filter((f) => f.endsWith('.json')).sort() : [];

  it('every sample file is mapped to the schemas it must pass', () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => FILES[f] === undefined), 'sample files no schema is named for (add them to FILES)').toEqual([]);
  });

  it.each(files.filter((f) => FILES[f] !== undefined))('%s is accepted by the response schemas', (file) => {
    const reg = new SchemaRegistry();
    const body: unknown = JSON.parse(readFileSync(join(SAMPLES_DIR, file), 'utf8'));
    const parts = FILES[file]!(body);
    expect(parts.length, `${file}: no part to judge`).toBeGreaterThan(0);
    const rejections: string[] = [];
    for (const p of parts) {
      if (p.value === undefined) {
        rejections.push(`${file} ${p.where}: the sample has no such part (against ${describeName(p.target)})`);
        continue;
      }
      const errors = judge(reg, p.target, p.value);
      if (errors.length > 0) rejections.push(`${file} ${p.where} rejected by ${describeName(p.target)}: ${errors.join('; ')}`);
    }
    expect(rejections).toEqual([]);
  });
});

if (!present) {
  describe('recorded real responses', () => {
    it.skip(`skipped: the samples folder ${SAMPLES_DIR} is absent (it sits beside the project, in shared/wire-samples)`, () => {});
  });
}
