/**
 * The generic HTTP requirements of the registry (documented status and content type, no 5xx, {error} bodies) are
 * judged by the generic checks on every response of every check; this check makes sure each of the three operations
 * is seen answering both a success and an error, with and without excludeDebugFields.
 */
import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { READS_CHOICE_CONTEXTS, KIND, WITHDRAW_BODY_WITH_META, factoryChoiceArguments, instructionIds, isObj, stableInstructionIds } from '../../../harness/fixtures/registry.js';
import { factoryRequest, hasTransferLegs } from '../../../generators/registry/GetFactoryRequest.js';

/** an id shaped like a contract id that names no contract (00, 64 hex digits, a suffix) */
const UNKNOWN_ID = `00${'c0ffee'.repeat(10)}0000ca11ab1e`;

describe('registry HTTP', () => {
  conformance(
    {
      id: 'registry.http.generic',
      title: 'answers successful and failing requests of every registry operation with documented statuses and content types, {error} bodies and no 5xx',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations: ['getTransferInstructionWithdrawContext', 'getAllocationInstructionWithdrawContext', 'getAllocationFactory'],
      requirements: ['registry.http.documented-status', 'registry.http.documented-content-type', 'registry.http.no-server-error', 'registry.errors.error-body'],
    },
    async (t) => {
      let calls = 0;
      for (const kind of ['transfer', 'allocation'] as const) {
        const { operation, param } = KIND[kind];
        const call = (id: string, json: unknown) => t.call(operation, { params: { [param]: id }, json });
        if (instructionIds(t, kind).length > 0) {
          const [id] = stableInstructionIds(t, kind, 1) as [string];
          await call(id, { excludeDebugFields: false, ...WITHDRAW_BODY_WITH_META });
          await call(id, { excludeDebugFields: true });
          await call(id, { excludeDebugFields: 'yes' });
          calls++;
        }
        await call(UNKNOWN_ID, { excludeDebugFields: true });
      }
      const args = t.fixture<unknown>('allocationFactoryChoiceArguments');
      if (isObj(args) && hasTransferLegs(args)) {
        const template = factoryChoiceArguments(t);
        await t.call('getAllocationFactory', { json: factoryRequest(template, 1, false) });
        await t.call('getAllocationFactory', { json: factoryRequest(template, 1, true) });
        calls++;
      }
      await t.call('getAllocationFactory', { json: { excludeDebugFields: true } });
      if (calls === 0) t.skip('no instruction ids or factory choice arguments configured (registry fixtures): only error responses could be asked for');
    },
  );
});
