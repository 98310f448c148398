import { describe } from 'vitest';
import fc from 'fast-check';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/http.js';
import { LEDGER_GRPC_STATUS } from '../../../harness/checks.js';
import { createSubmitter, createUser, templateFixture } from '../../../harness/fixtures/ledger.js';

const CATEGORY_STATUS: Record<number, number> = { 1: 503, 2: 409, 3: 504, 4: 500, 6: 401, 7: 403, 8: 400, 9: 400, 10: 409, 11: 404, 12: 400 };
const NAMED: Record<string, number> = {
  MISSING_FIELD: 400,
  INVALID_FIELD: 400,
  INVALID_ARGUMENT: 400,
  INVALID_USER_UPDATE_REQUEST: 400,
  TOO_MANY_USER_RIGHTS: 400,
  USER_NOT_FOUND: 404,
  UPDATE_NOT_FOUND: 404,
  CONCURRENT_USER_UPDATE_DETECTED: 409,
  USER_ALREADY_EXISTS: 409,
};

/**
 * The status rules an error response is judged by: named code and category against the status. The gRPC code against
 * the status is judged on every ledger response by the generic check (harness/checks.ts, ledgerErrorStatus).
 */
function judgeError(t: CheckContext, x: Exchange, expectedStatus: number): void {
  const j = x.json as { code?: unknown; grpcCodeValue?: unknown; errorCategory?: unknown } | undefined;
  t.expect(x.status >= 400 && x.mediaType === 'application/json' && typeof j?.code === 'string', `a ${x.status} error is not a JsCantonError`, { requirement: 'ledger.errors.canton-error-shape', exchange: x });
  t.expect(Number.isInteger(j!.errorCategory), `errorCategory is ${JSON.stringify(j!.errorCategory)}`, { requirement: 'ledger.errors.canton-error-shape', exchange: x });
  const named = NAMED[j!.code as string];
  if (named !== undefined) t.expect(named === x.status, `${String(j!.code)} answered ${x.status}, not ${named}`, { requirement: 'ledger.errors.named-code-status', exchange: x });
  const cat = j!.errorCategory as number;
  if (CATEGORY_STATUS[cat] !== undefined) t.expect(CATEGORY_STATUS[cat] === x.status, `errorCategory ${cat} with status ${x.status}`, { requirement: 'ledger.errors.error-category-matches-status', exchange: x });
  const rule = Object.values(LEDGER_GRPC_STATUS).find((m) => m.status === expectedStatus)?.requirement ?? 'ledger.errors.canton-error-shape';
  t.expectStatus(x, expectedStatus, { requirement: rule });
}

describe('ledger errors', () => {
  conformance(
    {
      id: 'ledger.errors.malformed-requests',
      title: 'answers JSON that does not parse, a wrong type and a missing required field with 400 text/plain',
      api: 'ledger',
      operations: ['listPackageVetting', 'generateExternalPartyTopology', 'getTransactionByOffset', 'updateTrafficAccount'],
      requirements: ['ledger.errors.malformed-request-text-plain'],
    },
    async (t) => {
      const cases: [string, string, string][] = [
        ['listPackageVetting', '{"pageSize": 1', 'JSON that does not parse'],
        ['listPackageVetting', '{"pageSize": "ten"}', 'a wrong type'],
        ['generateExternalPartyTopology', '{"partyHint": 5}', 'a wrong type'],
        ['getTransactionByOffset', '{"requestingParties": []}', 'a missing offset'],
        ['getTransactionByOffset', '{"offset": ', 'JSON that does not parse'],
      ];
      await t.property(fc.constantFrom(...cases), async ([op, body, what]) => {
        const x = await t.call(op, { body, headers: { 'content-type': 'application/json' } });
        t.expectStatus(x, 400, { what: `${op} with ${what}` });
        t.expect(x.mediaType === 'text/plain', `${op} with ${what}: 400 with Content-Type ${String(x.mediaType)}, not text/plain`, { exchange: x });
      }, { runs: t.scaledRuns(cases.length * 2) });
    },
  );

  conformance(
    {
      id: 'ledger.errors.status-mapping',
      title: 'answers participant errors with JsCantonErrors whose status follows the gRPC code, the category and the named code',
      api: 'ledger',
      operations: ['getTransactionByOffset', 'getPackageVetting', 'updateTrafficAccount', 'submitAndWaitForTransactionTree', 'getLedgerEnd'],
      requirements: [
        'ledger.errors.canton-error-shape',
        'ledger.errors.status-400',
        'ledger.errors.status-401',
        'ledger.errors.status-403',
        'ledger.errors.status-404',
        'ledger.errors.status-409',
        'ledger.errors.error-category-matches-status',
        'ledger.errors.named-code-status',
      ],
    },
    async (t) => {
      const s = await createSubmitter(t);
      // INVALID_ARGUMENT
      judgeError(t, await t.call('getPackageVetting', { json: { pageSize: -1 } }), 400);
      // MISSING_FIELD: an unspecified transaction shape
      judgeError(t, await t.call('getTransactionByOffset', { auth: { user: s.userId }, json: { offset: 1, transactionFormat: { eventFormat: { filtersByParty: { [s.party]: {} } }, transactionShape: 'TRANSACTION_SHAPE_UNSPECIFIED' } } }), 400);
      // NOT_FOUND: no transaction beyond the ledger end
      const end = await t.call('getLedgerEnd');
      const beyond = Number((end.json as { offset?: number } | undefined)?.offset ?? 0) + 1_000_000;
      judgeError(t, await t.call('getTransactionByOffset', { auth: { user: s.userId }, json: { offset: beyond, requestingParties: [s.party] } }), 404);
      if (t.target.features.trafficEnforcement !== false && (t.target.version === undefined || !t.target.version.startsWith('3.4'))) {
        // UNAUTHENTICATED and PERMISSION_DENIED on one endpoint
        const body = { accountId: s.party, deduplicationId: t.uniqueName('dedup'), balanceDelta: 1 };
        judgeError(t, await t.call('updateTrafficAccount', { auth: 'none', json: body }), 401);
        const plain = await createUser(t);
        judgeError(t, await t.call('updateTrafficAccount', { auth: { user: plain.id }, json: body }), 403);
      }
      const tmpl = t.fixture<string>('templateId') !== undefined ? templateFixture(t) : undefined;
      if (tmpl !== undefined) {
        // ALREADY_EXISTS: the same command id twice. SPEC.md does not say a repeated command is refused; a participant
        // that deduplicates refuses it, and that refusal is judged like any error (its gRPC code against its status).
        const cmd = { commands: [{ CreateCommand: { templateId: tmpl.templateId, createArguments: tmpl.createArguments(s.party) } }], commandId: t.uniqueName('cmd'), userId: s.userId, actAs: [s.party] };
        const first = await t.call('submitAndWaitForTransactionTree', { auth: { user: s.userId }, json: cmd });
        if (first.status === 200) {
          const again = await t.call('submitAndWaitForTransactionTree', { auth: { user: s.userId }, json: cmd });
          if (again.status >= 400) judgeError(t, again, again.status);
        }
      }
    },
  );
  /** The statuses of server-side conditions (gRPC codes) a client cannot provoke on purpose, with their names. */
  const SERVER_SIDE = [429, 500, 501, 503, 504].map((status) => ({
    status,
    requirement: `ledger.errors.status-${status}`,
    codes: Object.entries(LEDGER_GRPC_STATUS).filter(([, m]) => m.status === status).map(([code, m]) => `${m.name} (${code})`),
  }));
  const BURST = 24;

  conformance(
    {
      id: 'ledger.errors.server-side-statuses',
      title: 'answers load-shedding and server-side errors (RESOURCE_EXHAUSTED, INTERNAL, UNIMPLEMENTED, UNAVAILABLE, DEADLINE_EXCEEDED) with the status their gRPC code maps to',
      api: 'ledger',
      operations: ['getLedgerEnd', 'getVersion'],
      requirements: SERVER_SIDE.map((s) => s.requirement),
    },
    async (t) => {
      // No request can provoke these conditions on purpose. A bounded burst of concurrent reads is where a participant
      // that sheds load answers RESOURCE_EXHAUSTED or UNAVAILABLE; every response of it (and of every other check) is
      // judged by the generic status-by-gRPC-code check. A status no response carried is reported not observed.
      const ops = ['getLedgerEnd', 'getVersion'] as const;
      const burst = await Promise.all(Array.from({ length: BURST }, (_, i) => t.call(ops[i % ops.length]!)));
      const seen = new Set(burst.map((x) => (x.json as { grpcCodeValue?: unknown } | undefined)?.grpcCodeValue).filter((c): c is number => typeof c === 'number'));
      for (const s of SERVER_SIDE) {
        const codes = Object.entries(LEDGER_GRPC_STATUS).filter(([code, m]) => m.status === s.status && seen.has(Number(code)));
        if (codes.length === 0) t.notObserved(s.requirement, `no response carried ${s.codes.join(', ')}: a burst of ${BURST} concurrent reads did not bring the target into that condition, and no other check's request did`);
      }
    },
  );
});
