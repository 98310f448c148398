import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/http.js';
import {
  choiceContextOf,
  debugFieldPaths,
  factoryChoiceArguments,
  judgeDebugFieldTypes,
  judgeDisclosedContracts,
  sameJson,
  transferLegsRequired,
  validFactory,
} from '../../../harness/fixtures/registry.js';
import { factoryRequest, factoryRequestWithContractIds, factoryRequestWithLegs, hasTransferLegs } from '../../../generators/registry/GetFactoryRequest.js';

const operations = ['getAllocationFactory'];
const MUST_LEGS = 25;

/** The target's choice arguments, with at least one transfer leg to copy; skips when there are none. */
function template(t: CheckContext): Record<string, unknown> {
  const args = factoryChoiceArguments(t);
  if (!hasTransferLegs(args)) t.skip('the configured allocationFactoryChoiceArguments have no allocation.transferLegs to copy');
  return args;
}

/** A valid one-leg request as set-up: 400 gives unsupported, any other non-200 leaves the check undecided. */
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
      operations,
      requirements: ['registry.get-allocation-factory.response-schema', 'registry.choice-context.disclosed-contract-fields', 'registry.choice-context.template-id-qualified'],
    },
    async (t) => {
      const x = await validFactory(t, factoryRequest(template(t), 1, false));
      t.expectStatus(x, 200);
      judgeDisclosedContracts(t, x, true);
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.debug-fields',
      title: 'leaves out every debug field with excludeDebugFields true, and types the debug fields it sends otherwise (allocation factory)',
      api: 'registry',
      operations,
      requirements: ['registry.choice-context.debug-fields-excluded', 'registry.choice-context.debug-field-types'],
    },
    async (t) => {
      const args = template(t);
      const excluded = await validFactory(t, factoryRequest(args, 1, true));
      t.expectStatus(excluded, 200, { requirement: 'registry.choice-context.debug-fields-excluded' });
      const found = debugFieldPaths(excluded, true);
      t.expect(found.length === 0, `with excludeDebugFields true the disclosed contracts still carry ${found.join(', ')}`, { exchange: excluded });
      const withFalse = factoryRequest(args, 1, false);
      const { excludeDebugFields: _drop, ...absent } = withFalse;
      for (const body of [withFalse, absent]) {
        const x = await validFactory(t, body);
        t.expectStatus(x, 200, { requirement: 'registry.choice-context.debug-field-types' });
        judgeDebugFieldTypes(t, x, true);
      }
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.missing-choice-arguments',
      title: 'rejects a request without choiceArguments with 400',
      api: 'registry',
      operations,
      requirements: ['registry.get-allocation-factory.missing-choice-arguments-rejected'],
    },
    async (t) => {
      await setup(t, template(t));
      for (const body of [{}, { excludeDebugFields: true }, { excludeDebugFields: false, choiceArgs: {} }]) {
        t.expectStatus(await t.call('getAllocationFactory', { json: body }), 400, { what: `getAllocationFactory with body ${JSON.stringify(body)}` });
      }
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.transfer-legs',
      title: 'answers 200 with a choice context for allocations of 1 to the required number of transfer legs (25, or the target\'s transferLegs)',
      api: 'registry',
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
        t.expectStatus(x, 200, { requirement: requirementFor(legs), what: `getAllocationFactory with ${legs} transfer legs` });
        t.expect(choiceContextOf(x, true) !== undefined, `the answer for ${legs} transfer legs carries no choiceContext`, { requirement: requirementFor(legs), exchange: x });
      };
      for (const legs of new Set([MUST_LEGS, required])) await expectContext(legs, factoryRequest(args, legs));
      await t.property(factoryRequestWithLegs(args, 1, required), ({ legs, body }) => expectContext(legs, body));
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.oversized-allocation',
      title: 'answers an allocation with more transfer legs than required with 200, or rejects it with 400',
      api: 'registry',
      operations,
      requirements: ['registry.get-allocation-factory.may-limit-allocation-size'],
    },
    async (t) => {
      const args = template(t);
      await setup(t, args);
      const legs = Math.max(MUST_LEGS, transferLegsRequired(t)) + 1;
      const x = await t.call('getAllocationFactory', { json: factoryRequest(args, legs) });
      t.expectStatus(x, [200, 400], { what: `getAllocationFactory with ${legs} transfer legs` });
    },
  );

  conformance(
    {
      id: 'registry.allocation-factory.prefetchable-context',
      title: 'gives the same factory and choice context whatever contract ids the choice arguments pass',
      api: 'registry',
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
      });
      if (judged === 0) t.notObserved('registry.choice-context.independent-of-contract-ids', 'every request with generated contract ids was refused (400 or 404), so no choice context could be compared');
    },
  );
});
