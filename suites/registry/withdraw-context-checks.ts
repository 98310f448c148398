/**
 * The checks the two withdraw choice-context endpoints share (allocation instruction v2, transfer instruction v1):
 * declared by each endpoint's test file with its own literal check ids, so both are judged alike.
 */
import { conformance, type CheckContext } from '../../harness/conformance.js';
import {
  DEBUG,
  KIND,
  VALID_WITHDRAW_BODY,
  WITHDRAW_BODY_WITH_META,
  debugFields,
  judgeDefaultIncluded,
  judgeExcludedDebugFields,
  instructionIds,
  judgeDebugFieldTypes,
  judgeDisclosedContracts,
  stableInstructionIds,
  validWithdraw,
  type InstructionKind,
  READS_CHOICE_CONTEXTS,
} from '../../harness/fixtures/registry.js';
import { choiceContextRequest, invalidChoiceContextRequest } from '../../generators/registry/GetChoiceContextRequest.js';
import { contractIdLike } from '../../generators/registry/GetFactoryRequest.js';
import { expectStatus, judgeBadRequests, judgeRejection } from '../v0-http-checks.js';
import type { Exchange } from '../../harness/transport/http.js';

export interface WithdrawCheckIds {
  context: string;
  debugFields: string;
  metaOptional: string;
  unknownId: string;
  malformedBody: string;
}

/** the SHOULD that an id naming no instruction is answered 404 (FACTS.md), apart from the MUST of a 4xx */
const UNKNOWN_ID_404 = 'registry.errors.unknown-id-404';

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

/** A valid request for a configured id, as set-up: a 400 of a kind configured unsupported is unsupported; any other non-200 leaves the check undecided. */
async function setupWithdraw(t: CheckContext, kind: InstructionKind, id: string, body: unknown = VALID_WITHDRAW_BODY): Promise<void> {
  const x = await validWithdraw(t, kind, id, body);
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
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: [REQ[kind].schema, 'registry.choice-context.disclosed-contract-fields', 'registry.choice-context.template-id-qualified'],
    },
    async (t) => {
      for (const id of stableInstructionIds(t, kind)) {
        const x = await validWithdraw(t, kind, id);
        expectStatus(t, x, 200);
        await t.judge('registry.choice-context.disclosed-contract-fields', () => judgeDisclosedContracts(t, x, false, 'registry.choice-context.disclosed-contract-fields'));
        await t.judge('registry.choice-context.template-id-qualified', () => judgeDisclosedContracts(t, x, false, 'registry.choice-context.template-id-qualified'));
      }
    },
  );

  conformance(
    {
      id: ids.debugFields,
      title: `sends no debug value with excludeDebugFields true (absent, or null as real registries send it), and types the debug fields it sends otherwise (${label})`,
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: [DEBUG.excluded, DEBUG.absent, DEBUG.types, DEBUG.defaultIncluded],
    },
    async (t) => {
      const [id] = stableInstructionIds(t, kind, 1) as [string];
      const excluded = await validWithdraw(t, kind, id, { excludeDebugFields: true });
      expectStatus(t, excluded, 200, { requirement: DEBUG.excluded });
      await judgeExcludedDebugFields(t, excluded);
      const values: string[][] = [];
      // the request without the flag is valid (SPEC.md: default false): a refusal of it fails the default's rule
      for (const [body, requirement] of [[{ excludeDebugFields: false }, DEBUG.types], [VALID_WITHDRAW_BODY, DEBUG.defaultIncluded]] as const) {
        const x = await validWithdraw(t, kind, id, body);
        expectStatus(t, x, 200, { requirement, what: `${operation} with body ${JSON.stringify(body)}` });
        await t.judge(DEBUG.types, () => judgeDebugFieldTypes(t, x));
        values.push(debugFields(x).values.sort());
      }
      await judgeDefaultIncluded(t, values[0]!, values[1]!);
    },
  );

  conformance(
    {
      id: ids.metaOptional,
      title: `accepts a withdraw choice-context request without meta (${label})`,
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: ['registry.choice-context.meta-optional'],
    },
    async (t) => {
      const [id] = stableInstructionIds(t, kind, 1) as [string];
      // set-up with a (string-map) meta, so that a registry that wrongly requires meta still shows the kind is served
      await setupWithdraw(t, kind, id, WITHDRAW_BODY_WITH_META);
      await t.property(choiceContextRequest({ withMeta: false }), async (body) => {
        const x = await call(t, id, body);
        expectStatus(t, x, 200, { what: `${operation} with body ${JSON.stringify(body)}` });
      }, { runs: t.scaledRuns(3) });
    },
  );

  conformance(
    {
      id: ids.unknownId,
      title: `answers a 4xx with an {error} body for an id that names no ${label}, 404 as FACTS.md gives`,
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: [REQ[kind].unknown, UNKNOWN_ID_404],
    },
    async (t) => {
      const [id] = stableInstructionIds(t, kind, 1) as [string];
      await setupWithdraw(t, kind, id);
      const known = new Set([...instructionIds(t, 'allocation'), ...instructionIds(t, 'transfer')]);
      // the MUST: a 4xx (SPEC.md lists 400 and 404 for the endpoint, and an id that names nothing may be refused as
      // malformed); the exact 404 (FACTS.md) is the SHOULD, judged after the property over what it saw
      const seen: Array<{ x: Exchange; what: string }> = [];
      const judgeUnknown = async (x: Exchange, what: string) => judgeRejection(t, x, { requirement: REQ[kind].unknown, badRequest: UNKNOWN_ID_404, statuses: [404], what, deferBadRequest: seen });
      // an instruction of the other kind names no instruction of this kind
      const other = instructionIds(t, kind === 'allocation' ? 'transfer' : 'allocation')[0];
      if (other !== undefined) await judgeUnknown(await call(t, other, VALID_WITHDRAW_BODY), `${operation} for the ${kind === 'allocation' ? 'transfer' : 'allocation'} instruction ${other}`);
      await t.property(contractIdLike().filter((c) => !known.has(c)), async (cid) => {
        await judgeUnknown(await call(t, cid, VALID_WITHDRAW_BODY), `${operation} for the unknown id ${cid}`);
      }, { runs: t.scaledRuns(10) });
      await judgeBadRequests(t, UNKNOWN_ID_404, seen, [404]);
    },
  );

  conformance(
    {
      id: ids.malformedBody,
      title: `rejects a body that is not a JSON object of the documented fields and types with a 4xx status, 400 as Splice answers (${label})`,
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: [REQ[kind].malformed, 'registry.errors.bad-request-400'],
    },
    async (t) => {
      const [id] = stableInstructionIds(t, kind, 1) as [string];
      await setupWithdraw(t, kind, id);
      const rejected: Parameters<typeof judgeBadRequests>[2] = [];
      await t.property(invalidChoiceContextRequest(), async (m) => {
        const x = await t.call(operation, { params: { [param]: id }, body: m.text, headers: { 'content-type': 'application/json' } });
        await judgeRejection(t, x, { requirement: REQ[kind].malformed, badRequest: 'registry.errors.bad-request-400', what: `${operation} with a malformed body (${m.what}: ${m.text.slice(0, 80)})`, deferBadRequest: rejected });
      });
      await judgeBadRequests(t, 'registry.errors.bad-request-400', rejected);
    },
  );
}
