/**
 * The checks the two withdraw choice-context endpoints share (allocation instruction v2, transfer instruction v1):
 * declared by each endpoint's test file with its own literal check ids, so both are judged alike.
 */
import { conformance, type CheckContext } from '../../harness/conformance.js';
import {
  KIND,
  debugFieldPaths,
  instructionIds,
  judgeDebugFieldTypes,
  judgeDisclosedContracts,
  stableInstructionIds,
  validWithdraw,
  type InstructionKind,
} from '../../harness/fixtures/registry.js';
import { choiceContextRequest, invalidChoiceContextRequest } from '../../generators/registry/GetChoiceContextRequest.js';
import { contractIdLike } from '../../generators/registry/GetFactoryRequest.js';

export interface WithdrawCheckIds {
  context: string;
  debugFields: string;
  metaOptional: string;
  unknownId: string;
  malformedBody: string;
}

const REQ = {
  allocation: {
    schema: 'registry.get-allocation-instruction-withdraw-context.response-schema',
    unknown: 'registry.get-allocation-instruction-withdraw-context.unknown-id-not-found',
    malformed: 'registry.get-allocation-instruction-withdraw-context.malformed-body-rejected',
  },
  transfer: {
    schema: 'registry.get-transfer-instruction-withdraw-context.response-schema',
    unknown: 'registry.get-transfer-instruction-withdraw-context.unknown-id-not-found',
    malformed: 'registry.get-transfer-instruction-withdraw-context.malformed-body-rejected',
  },
} as const;

/** A valid request for a configured id, as set-up: 400 gives unsupported; any other non-200 leaves the check undecided. */
async function setupWithdraw(t: CheckContext, kind: InstructionKind, id: string): Promise<void> {
  const x = await validWithdraw(t, kind, id);
  if (x.status !== 200) throw new Error(`setup: a valid ${KIND[kind].operation} request for the configured ${KIND[kind].label} ${id} answered ${x.status}: ${x.text.slice(0, 200)}`);
}

export function withdrawContextChecks(kind: InstructionKind, ids: WithdrawCheckIds): void {
  const { operation, param, label } = KIND[kind];
  const operations = [operation];
  const call = (t: CheckContext, id: string, json: unknown) => t.call(operation, { params: { [param]: id }, json });

  conformance(
    {
      id: ids.context,
      title: `answers 200 with a choice context whose disclosed contracts carry templateId, contractId, createdEventBlob and synchronizerId for a known ${label}`,
      api: 'registry',
      operations,
      requirements: [REQ[kind].schema, 'registry.choice-context.disclosed-contract-fields', 'registry.choice-context.template-id-qualified'],
    },
    async (t) => {
      for (const id of stableInstructionIds(t, kind)) {
        const x = await validWithdraw(t, kind, id);
        t.expectStatus(x, 200);
        judgeDisclosedContracts(t, x);
      }
    },
  );

  conformance(
    {
      id: ids.debugFields,
      title: `leaves out every debug field with excludeDebugFields true, and types the debug fields it sends otherwise (${label})`,
      api: 'registry',
      operations,
      requirements: ['registry.choice-context.debug-fields-excluded', 'registry.choice-context.debug-field-types', 'registry.choice-context.debug-default-included'],
    },
    async (t) => {
      const [id] = stableInstructionIds(t, kind, 1) as [string];
      const excluded = await validWithdraw(t, kind, id, { excludeDebugFields: true, meta: { values: {} } });
      t.expectStatus(excluded, 200, { requirement: 'registry.choice-context.debug-fields-excluded' });
      const found = debugFieldPaths(excluded);
      t.expect(found.length === 0, `with excludeDebugFields true the disclosed contracts still carry ${found.join(', ')}`, { exchange: excluded });
      const paths: string[][] = [];
      for (const body of [{ excludeDebugFields: false, meta: { values: {} } }, { meta: { values: {} } }]) {
        const x = await validWithdraw(t, kind, id, body);
        t.expectStatus(x, 200, { requirement: 'registry.choice-context.debug-field-types' });
        judgeDebugFieldTypes(t, x);
        paths.push(debugFieldPaths(x).sort());
      }
      // the default is false: leaving the flag out sends the debug fields that false sends
      const [withFalse, absent] = paths as [string[], string[]];
      if (withFalse.length === 0) t.notObserved('registry.choice-context.debug-default-included', 'with excludeDebugFields false this registry sends no debug fields, so its default cannot be told apart');
      const missing = withFalse.filter((p) => !absent.includes(p));
      t.expect(missing.length === 0, `without excludeDebugFields the disclosed contracts lack ${missing.join(', ')}, which excludeDebugFields false sends: the default is not false`, { requirement: 'registry.choice-context.debug-default-included' });
    },
  );

  conformance(
    {
      id: ids.metaOptional,
      title: `accepts a withdraw choice-context request without meta (${label})`,
      api: 'registry',
      operations,
      requirements: ['registry.choice-context.meta-optional'],
    },
    async (t) => {
      const [id] = stableInstructionIds(t, kind, 1) as [string];
      await setupWithdraw(t, kind, id); // with meta: a 400 here means the kind is unsupported
      await t.property(choiceContextRequest({ withMeta: false }), async (body) => {
        const x = await call(t, id, body);
        t.expectStatus(x, 200, { what: `${operation} with body ${JSON.stringify(body)}` });
      }, { runs: t.scaledRuns(3) });
    },
  );

  conformance(
    {
      id: ids.unknownId,
      title: `answers 404 with an {error} body for an id that names no ${label}`,
      api: 'registry',
      operations,
      requirements: [REQ[kind].unknown],
    },
    async (t) => {
      const [id] = stableInstructionIds(t, kind, 1) as [string];
      await setupWithdraw(t, kind, id);
      const known = new Set([...instructionIds(t, 'allocation'), ...instructionIds(t, 'transfer')]);
      // an instruction of the other kind names no instruction of this kind
      const other = instructionIds(t, kind === 'allocation' ? 'transfer' : 'allocation')[0];
      if (other !== undefined) t.expectStatus(await call(t, other, { meta: { values: {} } }), 404, { what: `${operation} for the ${kind === 'allocation' ? 'transfer' : 'allocation'} instruction ${other}` });
      await t.property(contractIdLike().filter((c) => !known.has(c)), async (cid) => {
        t.expectStatus(await call(t, cid, { meta: { values: {} } }), 404);
      }, { runs: t.scaledRuns(10) });
    },
  );

  conformance(
    {
      id: ids.malformedBody,
      title: `rejects a body that is not a JSON object of the documented fields and types with 400 (${label})`,
      api: 'registry',
      operations,
      requirements: [REQ[kind].malformed],
    },
    async (t) => {
      const [id] = stableInstructionIds(t, kind, 1) as [string];
      await setupWithdraw(t, kind, id);
      await t.property(invalidChoiceContextRequest(), async (m) => {
        const x = await t.call(operation, { params: { [param]: id }, body: m.text, headers: { 'content-type': 'application/json' } });
        t.expectStatus(x, 400, { what: `${operation} with a malformed body (${m.what}: ${m.text.slice(0, 80)})` });
      });
    },
  );
}
