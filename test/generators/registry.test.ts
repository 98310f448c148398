import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { referenceFixtures } from '../../reference/data/fixtures.js';
import { choiceContextRequest, invalidChoiceContextRequest } from '../../generators/registry/GetChoiceContextRequest.js';
import { contractIdLike, factoryRequest, factoryRequestWithContractIds, factoryRequestWithLegs, withTransferLegs } from '../../generators/registry/GetFactoryRequest.js';

const schemas = schemaRegistry();
const args = (referenceFixtures().registry.factoryRequest(1) as { choiceArguments: Record<string, unknown> }).choiceArguments;
const legCount = (a: Record<string, unknown>) => {
  const legs = (a.allocation as { transferLegs: unknown }).transferLegs;
  return Array.isArray(legs) ? legs.length : Object.keys(legs as object).length;
};
const sample = <T>(arb: fc.Arbitrary<T>, seed: number) => fc.sample(arb, { seed, numRuns: 30 });

describe('registry generators', () => {
  it('choiceContextRequest gives valid GetChoiceContextRequest bodies, the same for the same seed', () => {
    for (const v of sample(choiceContextRequest(), 1)) expect(schemas.validateComponent('registry', 'GetChoiceContextRequest', v)).toEqual([]);
    for (const v of sample(choiceContextRequest({ withMeta: false, excludeDebugFields: true }), 2)) expect(v).toEqual({ excludeDebugFields: true });
    expect(sample(choiceContextRequest(), 3)).toEqual(sample(choiceContextRequest(), 3));
  });

  it('invalidChoiceContextRequest gives bodies that are not JSON or break the schema', () => {
    for (const m of sample(invalidChoiceContextRequest(), 4)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(m.text);
      } catch {
        continue;
      }
      expect(schemas.validateComponent('registry', 'GetChoiceContextRequest', parsed)).not.toEqual([]);
    }
    expect(sample(invalidChoiceContextRequest(), 5)).toEqual(sample(invalidChoiceContextRequest(), 5));
  });

  it('factory requests are valid GetFactoryRequest bodies with the asked number of legs', () => {
    for (const { legs, body } of sample(factoryRequestWithLegs(args, 1, 100), 6)) {
      expect(schemas.validateComponent('registry', 'GetFactoryRequest', body)).toEqual([]);
      expect(legCount(body.choiceArguments as Record<string, unknown>)).toBe(legs);
    }
    const asList = structuredClone(args);
    (asList.allocation as { transferLegs: unknown }).transferLegs = [{ sender: 'a', receiver: 'b', amount: '1.0' }];
    expect(legCount(withTransferLegs(asList, 7))).toBe(7);
    expect(Array.isArray((withTransferLegs(asList, 7).allocation as { transferLegs: unknown }).transferLegs)).toBe(true);
    expect(sample(factoryRequestWithLegs(args, 1, 25), 8)).toEqual(sample(factoryRequestWithLegs(args, 1, 25), 8));
  });

  it('contract-id variants differ from the template only in contract ids', () => {
    for (const cid of sample(contractIdLike(), 9)) expect(cid).toMatch(/^00[0-9a-f]{64}([0-9a-f]{2}){0,34}$/);
    const base = factoryRequest(args, 1).choiceArguments as Record<string, unknown>;
    for (const { cids, body } of sample(factoryRequestWithContractIds(base), 10)) {
      expect(schemas.validateComponent('registry', 'GetFactoryRequest', body)).toEqual([]);
      const c = body.choiceArguments as Record<string, unknown>;
      expect(c.inputHoldingCids).toEqual(cids);
      expect({ ...c, inputHoldingCids: [] }).toEqual({ ...base, inputHoldingCids: [] });
    }
  });
});
