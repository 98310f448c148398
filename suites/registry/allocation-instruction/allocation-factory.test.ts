import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/transport/http.js';
import {
  DEBUG,
  choiceContextOf,
  debugFields,
  judgeDefaultIncluded,
  judgeExcludedDebugFields,
  factoryChoiceArguments,
  judgeDebugFieldTypes,
  judgeDisclosedContracts,
  sameJson,
  transferLegsRequired,
  validFactory,
  READS_CHOICE_CONTEXTS,
} from '../../../harness/fixtures/registry.js';
import { factoryRequest, factoryRequestWithContractIds, factoryRequestWithLegs, hasTransferLegs } from '../../../generators/registry/GetFactoryRequest.js';
import { expectStatus, judgeBadRequests, judgeRejection } from '../../v0-http-checks.js';

const operations = ['getAllocationFactory'];
const MUST_LEGS = 25;
const INVALID_ALLOCATION = 'registry.get-allocation-factory.invalid-allocation-rejected';

type Args = Record<string, unknown>;
const allocationOf = (a: Args): Args => a.allocation as Args;
/** choiceArguments that encode no allocate choice: each case changes a valid one-leg allocation */
const INVALID_ALLOCATIONS: Array<[string, (a: Args) => void]> = [
  ['without an allocation', (a) => void delete a.allocation],
  ['whose allocation has no transferLegs', (a) => {
    delete allocationOf(a).transferLegs;
    delete allocationOf(a).transferLeg;
  }],
  ['whose transferLegs is a string', (a) => void (allocationOf(a).transferLegs = 'not-a-map')],
  ['whose transferLegs is a number', (a) => void (allocationOf(a).transferLegs = 7)],
  // the map of legs is what the configured arguments encode: a single transferLeg beside it does not make up for it
  ['whose transferLegs is a string, with a single transferLeg beside it', (a) => {
    const legs = allocationOf(a).transferLegs as Args;
    allocationOf(a).transferLeg = Object.values(legs)[0];
    allocationOf(a).transferLegs = 'not-a-map';
  }],
  ['whose transfer leg is a number', (a) => {
    const legs = allocationOf(a).transferLegs as Args;
    for (const k of Object.keys(legs)) legs[k] = 5;
  }],
];

/** The target's choice arguments, with at least one transfer leg to copy; skips when there are none. */
function template(t: CheckContext): Record<string, unknown> {
  const args = factoryChoiceArguments(t);
  if (!hasTransferLegs(args)) t.skip('the configured allocationFactoryChoiceArguments have no allocation.transferLegs to copy');
  return args;
}

/** A valid one-leg request as set-up: a 400 where allocation instructions are configured unsupported gives unsupported, any other non-200 leaves the check undecided. */
async function setup(t: CheckContext, args: Record<string, unknown>, excludeDebugFields = true) {
  const x = await validFactory(t, factoryRequest(args, 1, excludeDebugFields));
  if (x.status !== 200) throw new Error(`setup: a valid one-leg allocation-factory request answered ${x.status}: ${x.text.slice(0, 200)}`);
  return x;
}

describe('POST /registry/allocation-instruction/v2/allocation-factory', () => {
  conformance(
    {
      id: 'registry.allocation-factory.context',
      title: 'answers 200 with a factoryId and a choice context whose disclosed contracts carry templateId, contractId, createdEventBlob and synchronizerId',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: ['registry.get-allocation-factory.response-schema', 'registry.choice-context.disclosed-contract-fields', 'registry.choice-context.template-id-qualified'],
    },
    async (t) => {
      const x = await validFactory(t, factoryRequest(template(t), 1, false));
      expectStatus(t, x, 200);
      await t.judge('registry.choice-context.disclosed-contract-fields', () => judgeDisclosedContracts(t, x, true, 'registry.choice-context.disclosed-contract-fields'));
      await t.judge('registry.choice-context.template-id-qualified', () => judgeDisclosedContracts(t, x, true, 'registry.choice-context.template-id-qualified'));
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.debug-fields',
      title: 'sends no debug value with excludeDebugFields true (absent, or null as real registries send it), and types the debug fields it sends otherwise (allocation factory)',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: [DEBUG.excluded, DEBUG.absent, DEBUG.types, DEBUG.defaultIncluded],
    },
    async (t) => {
      const args = template(t);
      const excluded = await validFactory(t, factoryRequest(args, 1, true));
      expectStatus(t, excluded, 200, { requirement: DEBUG.excluded });
      await judgeExcludedDebugFields(t, excluded, true);
      const withFalse = factoryRequest(args, 1, false);
      const { excludeDebugFields: _drop, ...absent } = withFalse;
      const values: string[][] = [];
      // the request without the flag is valid (SPEC.md: default false): a refusal of it fails the default's rule
      for (const [body, requirement] of [[withFalse, DEBUG.types], [absent, DEBUG.defaultIncluded]] as const) {
        const x = await validFactory(t, body);
        expectStatus(t, x, 200, { requirement, what: `getAllocationFactory ${body === absent ? 'without excludeDebugFields' : 'with excludeDebugFields false'}` });
        await t.judge(DEBUG.types, () => judgeDebugFieldTypes(t, x, true));
        values.push(debugFields(x, true).values.sort());
      }
      await judgeDefaultIncluded(t, values[0]!, values[1]!);
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.missing-choice-arguments',
      title: 'rejects a request without choiceArguments with a 4xx status, 400 as Splice answers',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: ['registry.get-allocation-factory.missing-choice-arguments-rejected', 'registry.errors.bad-request-400'],
    },
    async (t) => {
      await setup(t, template(t));
      // the JSON null too: a body that holds no choiceArguments at all
      for (const body of ['{}', '{"excludeDebugFields":true}', '{"excludeDebugFields":false,"choiceArgs":{}}', 'null']) {
        const x = await t.call('getAllocationFactory', { body, headers: { 'content-type': 'application/json' } });
        await judgeRejection(t, x, { requirement: 'registry.get-allocation-factory.missing-choice-arguments-rejected', badRequest: 'registry.errors.bad-request-400', what: `getAllocationFactory with body ${body}` });
      }
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.invalid-allocation',
      title: 'rejects choiceArguments without an allocation, without a map of transfer legs, or with a transfer leg that is not an object, with a 4xx status (400 as documented)',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: [INVALID_ALLOCATION, 'registry.errors.bad-request-400'],
    },
    async (t) => {
      const args = template(t);
      await setup(t, args);
      const seen: Array<{ x: Exchange; what: string }> = [];
      for (const [what, change] of INVALID_ALLOCATIONS) {
        const choiceArguments = structuredClone(factoryRequest(args, 1).choiceArguments) as Record<string, unknown>;
        change(choiceArguments);
        const x = await t.call('getAllocationFactory', { json: { choiceArguments, excludeDebugFields: true } });
        await judgeRejection(t, x, { requirement: INVALID_ALLOCATION, badRequest: 'registry.errors.bad-request-400', what: `getAllocationFactory with choiceArguments ${what}`, deferBadRequest: seen });
      }
      await judgeBadRequests(t, 'registry.errors.bad-request-400', seen);
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.transfer-legs',
      title: 'answers 200 with a choice context for allocations of 1 to the required number of transfer legs (25, or the target\'s transferLegs)',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: ['registry.get-allocation-factory.at-least-25-transfer-legs', 'registry.get-allocation-factory.configured-transfer-legs'],
    },
    async (t) => {
      const args = template(t);
      await setup(t, args);
      const required = Math.max(MUST_LEGS, transferLegsRequired(t));
      // legs up to 25 are the MUST of SPEC.md; beyond, up to the configured number, the SHOULD of FACTS.md
      const requirementFor = (legs: number) =>
        legs <= MUST_LEGS ? 'registry.get-allocation-factory.at-least-25-transfer-legs' : 'registry.get-allocation-factory.configured-transfer-legs';
      const expectContext = async (legs: number, body: unknown) => {
        const x = await t.call('getAllocationFactory', { json: body });
        expectStatus(t, x, 200, { requirement: requirementFor(legs), what: `getAllocationFactory with ${legs} transfer legs` });
        t.expect(choiceContextOf(x, true) !== undefined, `the answer for ${legs} transfer legs carries no choiceContext`, { requirement: requirementFor(legs), exchange: x });
      };
      // each requirement in its own block: a registry short of the configured number still has its 25 legs judged
      await t.judge('registry.get-allocation-factory.at-least-25-transfer-legs', async () => {
        await expectContext(MUST_LEGS, factoryRequest(args, MUST_LEGS));
        await t.property(factoryRequestWithLegs(args, 1, MUST_LEGS), ({ legs, body }) => expectContext(legs, body));
      });
      await t.judge('registry.get-allocation-factory.configured-transfer-legs', async () => {
        const x = await t.call('getAllocationFactory', { json: factoryRequest(args, required) });
        expectStatus(t, x, 200, { requirement: 'registry.get-allocation-factory.configured-transfer-legs', what: `getAllocationFactory with ${required} transfer legs (the target's transferLegs)` });
        if (required > MUST_LEGS) await t.property(factoryRequestWithLegs(args, MUST_LEGS + 1, required), ({ legs, body }) => expectContext(legs, body), { runs: t.scaledRuns(5) });
      });
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.oversized-allocation',
      title: 'answers an allocation with more transfer legs than required with 200, or rejects it with 400',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: ['registry.get-allocation-factory.may-limit-allocation-size'],
    },
    async (t) => {
      const args = template(t);
      await setup(t, args);
      const legs = Math.max(MUST_LEGS, transferLegsRequired(t)) + 1;
      const x = await t.call('getAllocationFactory', { json: factoryRequest(args, legs) });
      expectStatus(t, x, [200, 400], { what: `getAllocationFactory with ${legs} transfer legs` });
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.prefetchable-context',
      title: 'gives the same factory and choice context whatever contract ids the choice arguments pass',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations,
      requirements: ['registry.choice-context.independent-of-contract-ids'],
    },
    async (t) => {
      const args = template(t);
      await setup(t, args);
      const plain = factoryRequest(args, 1);
      const factoryAndContext = (x: Exchange) => ({ factoryId: (x.json as { factoryId?: unknown }).factoryId, choiceContext: choiceContextOf(x, true) });
      const fresh = async () => {
        const base = await t.call('getAllocationFactory', { json: plain });
        if (base.status !== 200) throw new Error(`setup: the allocation-factory request without generated contract ids answered ${base.status}: ${base.text.slice(0, 200)}`);
        return base;
      };
      let judged = 0;
      await t.property(factoryRequestWithContractIds(plain.choiceArguments as Record<string, unknown>), async ({ cids, body }) => {
        // SPEC.md documents 400 and 404 here: a registry may refuse contract ids it does not hold; only answers of 200
        // have a choice context to compare
        let x = await t.call('getAllocationFactory', { json: body });
        if (x.status !== 200) return;
        judged++;
        // compared with a fresh answer to the request without them; asked both again once when they differ, as the
        // registry's own contracts (a new mining round) may change between two requests
        let same = sameJson(factoryAndContext(x), factoryAndContext(await fresh()));
        if (!same) {
          x = await t.call('getAllocationFactory', { json: body });
          same = x.status !== 200 || sameJson(factoryAndContext(x), factoryAndContext(await fresh()));
        }
        t.expect(same, `the factory or choice context changed when only the contract ids of the choice arguments changed (inputHoldingCids ${JSON.stringify(cids).slice(0, 200)}), twice in a row`, { exchange: x });
        // each case compares its own answers and only reads: the cases run at once (one after another, 500 of them at
        // nightly depth were a chain of 1000 reads, cut at 315 cases by the check's time limit through the benchmark's
        // latency profile)
      }, { concurrent: true });
      if (judged === 0) t.notObserved('registry.choice-context.independent-of-contract-ids', 'every request with generated contract ids was refused (400 or 404), so no choice context could be compared');
    },
  );
});
