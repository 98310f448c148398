/**
 * Requests derived from specs/registry.yaml (suites/derived-checks.ts): the three choice-context endpoints, with
 * instruction ids and the factory's choice arguments from the target's fixtures.
 */
import { describe } from 'vitest';
import { factoryChoiceArguments, judgeBadRequestOfKind, KIND, READS_CHOICE_CONTEXTS, stableInstructionIds, type InstructionKind } from '../../../harness/fixtures/registry.js';
import { derivedCheck } from '../../derived-checks.js';

describe('registry requests derived from the specs', () => {
  for (const kind of ['allocation', 'transfer'] as InstructionKind[]) {
    derivedCheck({
      api: 'registry',
      operationId: KIND[kind].operation,
      kinds: ['wrong-type'],
      reads: READS_CHOICE_CONTEXTS,
      prepare: async (t) => {
        const id = stableInstructionIds(t, kind, 1)[0]!;
        const json = { excludeDebugFields: true };
        // FACTS.md: a registry that does not support the instruction kind may answer 400: unsupported where its configuration says so
        return { request: () => ({ params: { [KIND[kind].param]: id }, query: {}, json }), refused: (x) => judgeBadRequestOfKind(t, kind, x, json) };
      },
    });
  }

  derivedCheck({
    api: 'registry',
    operationId: 'getAllocationFactory',
    kinds: ['required-removed', 'wrong-type'],
    reads: READS_CHOICE_CONTEXTS,
    prepare: async (t) => {
      const choiceArguments = factoryChoiceArguments(t);
      const json = { choiceArguments, excludeDebugFields: true };
      return { request: () => ({ params: {}, query: {}, json }), refused: (x) => judgeBadRequestOfKind(t, 'allocation factory', x, json) };
    },
  });
});
