/**
 * The generic HTTP requirements of the registry (documented status and content type, no 5xx, {error} bodies) are
 * judged by the generic checks on every response of every check; this check makes sure each of the three operations
 * is seen answering both a success and an error, with and without excludeDebugFields.
 */
import { describe } from 'vitest';
import { conformance, type CallOptions } from '../../../harness/conformance.js';
import { READS_CHOICE_CONTEXTS, KIND, WITHDRAW_BODY_WITH_META, factoryChoiceArguments, instructionIds, isObj, stableInstructionIds } from '../../../harness/fixtures/registry.js';
import { factoryRequest, hasTransferLegs } from '../../../generators/registry/GetFactoryRequest.js';
import { notBusy } from '../../rejections.js';

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

  conformance(
    {
      id: 'registry.http.malformed-content-type',
      title: 'answers a request whose Content-Type header names no media type without a 5xx',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations: ['getTransferInstructionWithdrawContext', 'getAllocationInstructionWithdrawContext', 'getAllocationFactory'],
      requirements: ['registry.http.no-server-error'],
    },
    async (t) => {
      // the HTTP layer refuses such a header before any handler: a 400, or the 415 of a JSON unmarshaller that finds no
      // JSON media type (neither is documented, so the generic status and content-type rules are not applied); a
      // server that ignores the header and reads the JSON may answer 200. Only a 5xx breaks the rule.
      const args = t.fixture<unknown>('allocationFactoryChoiceArguments');
      const factoryBody = isObj(args) && hasTransferLegs(args) ? factoryRequest(factoryChoiceArguments(t), 1, false) : { excludeDebugFields: false };
      const sends: Array<[string, CallOptions['params'], unknown]> = [['getAllocationFactory', undefined, factoryBody]];
      for (const kind of ['transfer', 'allocation'] as const) {
        const { operation, param } = KIND[kind];
        const [id] = instructionIds(t, kind).length > 0 ? stableInstructionIds(t, kind, 1) : [UNKNOWN_ID];
        sends.push([operation, { [param]: id! }, {}]);
      }
      for (const contentType of MALFORMED_CONTENT_TYPES) {
        for (const [operation, params, body] of sends) {
          const x = await t.call(operation, { ...(params !== undefined ? { params } : {}), body: JSON.stringify(body), headers: { 'content-type': contentType }, conform: false });
          notBusy(t, x);
          t.expect(x.status < 500, `${x.record.request.method} ${operation} with Content-Type "${contentType}" answered ${x.status}: a header that names no media type is a bad request, not a server error`, { requirement: 'registry.http.no-server-error', exchange: x });
        }
      }
    },
  );
});

/** Content-Type values that name no media type (no type/subtype, or nothing but separators) */
const MALFORMED_CONTENT_TYPES = ['json', ';;;'];
