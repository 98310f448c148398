/**
 * Requests derived from specs/registry.yaml (suites/derived-checks.ts): the three choice-context endpoints, with
 * instruction ids and the factory's choice arguments from the target's fixtures.
 */
import { describe } from 'vitest';
import { factoryChoiceArguments, KIND, stableInstructionIds, type InstructionKind } from '../../../harness/fixtures/registry.js';
import { derivedCheck } from '../../derived-checks.js';

describe('registry requests derived from the specs', () => {
  for (const kind of ['allocation', 'transfer'] as InstructionKind[]) {
    derivedCheck({
      api: 'registry',
      operationId: KIND[kind].operation,
      kinds: ['wrong-type'],
      prepare: async (t) => {
        const id = stableInstructionIds(t, kind, 1)[0]!;
        return { request: () => ({ params: { [KIND[kind].param]: id }, query: {}, json: { excludeDebugFields: true } }) };
      },
    });
  }

  derivedCheck({
    api: 'registry',
    operationId: 'getAllocationFactory',
    kinds: ['required-removed', 'wrong-type'],
    prepare: async (t) => {
      const choiceArguments = factoryChoiceArguments(t);
      return { request: () => ({ params: {}, query: {}, json: { choiceArguments, excludeDebugFields: true } }) };
    },
  });
});
