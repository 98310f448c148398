import { describe } from 'vitest';
import { expectRejected, judgeBadRequests, judgeRejection, separateCases } from '../../rejections.js';
import { conformance, NotRun, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { LEDGER_GRPC_STATUS } from '../../../harness/judging/checks.js';
import { connectedSynchronizers, createSubmitter, createUser, routeNotServed, submitCommands, templateFixture } from '../../../harness/fixtures/ledger.js';
import { vettingOpFor } from '../../../harness/fixtures/ledger-vetting.js';
import { ledgerOperationGone } from '../../../harness/judging/versions.js';
import { errorCode } from '../../../harness/fixtures/ledger-users.js';
import { byOffsetServed, createCommand, trafficServed } from '../shared.js';

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
 * The rules an error response is judged by: its shape, and its named code and category against its status. The gRPC
 * code against the status (ledger.errors.status-N) is judged on every ledger response by the generic check
 * (harness/judging/checks.ts, ledgerErrorStatus). `expected` is the status the request's own rule prescribes, and that rule: a
 * response under another status fails it, not a status-N rule (which is about the gRPC code the body names).
 */
async function judgeError(t: CheckContext, x: Exchange, expected?: { status: number; requirement: string }): Promise<void> {
  const j = x.json as { code?: unknown; errorCategory?: unknown } | undefined;
  const canton = x.status >= 400 && x.mediaType === 'application/json' && typeof j?.code === 'string';
  // each rule judged on its own, so that one broken rule leaves the others judged (a failure judges one requirement)
  if (canton) {
    const named = NAMED[j!.code as string];
    if (named !== undefined) await t.judge('ledger.errors.named-code-status', () => t.expect(named === x.status, `${String(j!.code)} answered ${x.status}, not ${named}`, { requirement: 'ledger.errors.named-code-status', exchange: x }));
    const cat = j!.errorCategory;
    if (typeof cat === 'number' && CATEGORY_STATUS[cat] !== undefined) {
      await t.judge('ledger.errors.error-category-matches-status', () => t.expect(CATEGORY_STATUS[cat] === x.status, `errorCategory ${cat} with status ${x.status}`, { requirement: 'ledger.errors.error-category-matches-status', exchange: x }));
    }
  }
  await t.judge('ledger.errors.canton-error-shape', () => {
    t.expect(canton, `a ${x.status} error is not a JsCantonError`, { requirement: 'ledger.errors.canton-error-shape', exchange: x });
    t.expect(Number.isInteger(j!.errorCategory), `errorCategory is ${JSON.stringify(j!.errorCategory)}`, { requirement: 'ledger.errors.canton-error-shape', exchange: x });
  });
  // the status the request's own rule prescribes (another check's requirement): judged last, it stops this check
  if (expected !== undefined) t.expectStatus(x, expected.status, { requirement: expected.requirement });
}

/** the least integer past int64, as JSON text (a JavaScript number cannot carry it exactly) */
const PAST_INT64 = '9223372036854775808';

describe('ledger errors', () => {
  conformance(
    {
      id: 'ledger.errors.int64-overflow',
      title: 'rejects an int64 body field given an integer past the int64 range with a 4xx',
      api: 'ledger',
      operations: ['getTransactionByOffset', 'updateTrafficAccount'],
      requirements: ['ledger.errors.int64-overflow-rejected'],
    },
    async (t) => {
      let judged = 0;
      const cases: Array<[string, string, () => boolean]> = [
        // a valid request but for the offset: SPEC.md types it int64
        ['getTransactionByOffset', `{"offset": ${PAST_INT64}, "transactionFormat": {"eventFormat": {"filtersByParty": {}, "filtersForAnyParty": {"cumulative": []}}, "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA"}}`, () => true],
        ['updateTrafficAccount', `{"accountId": "cc-int64", "balanceDelta": ${PAST_INT64}, "deduplicationId": "${t.uniqueName('dedup')}"}`, () => trafficServed(t)],
      ];
      for (const [op, body, served] of cases) {
        if (!served()) continue;
        const x = await t.call(op, { body, headers: { 'content-type': 'application/json' } });
        if (op === 'getTransactionByOffset' && (routeNotServed(x) || !byOffsetServed(t, x))) continue;
        judged++;
        await t.judge('ledger.errors.int64-overflow-rejected', () => expectRejected(t, x, { requirement: 'ledger.errors.int64-overflow-rejected', what: `${op} with ${body.slice(0, 70)}...` }));
      }
      if (judged === 0) t.skip('neither transaction-by-offset nor the traffic endpoint is served by this target');
    },
  );

  conformance(
    {
      id: 'ledger.errors.malformed-requests',
      title: 'answers JSON that does not parse (cut short, a bare word, an invalid escape, a list without a comma) and a value of the wrong JSON type with 400 text/plain',
      api: 'ledger',
      operations: ['listPackageVetting', 'generateExternalPartyTopology', 'getTransactionByOffset', 'updateTrafficAccount', 'createUser'],
      requirements: ['ledger.errors.malformed-request-text-plain'],
    },
    async (t) => {
      const cases: [string, string, string][] = [
        ['listPackageVetting', '{"pageSize": 1', 'JSON that does not parse'],
        ['listPackageVetting', '{"pageSize": "ten"}', 'a wrong type'],
        ['generateExternalPartyTopology', '{"partyHint": 5}', 'a wrong type'],
        ['getTransactionByOffset', '{"offset": ', 'JSON that does not parse'],
        // broken otherwise than cut short: a bare word, an invalid escape, a list without its comma
        ['listPackageVetting', 'fxyz', 'a bare word (JSON that does not parse)'],
        ['generateExternalPartyTopology', '{"partyHint": "a\\qb"}', 'an invalid escape in a string (JSON that does not parse)'],
        ['generateExternalPartyTopology', '{"otherConfirmingParticipantUids": [1 2]}', 'a list without its comma (JSON that does not parse)'],
        // the values of the annotations map are strings (SPEC.md, ObjectMeta)
        ['createUser', JSON.stringify({ user: { id: t.uniqueName('cc-malformed'), metadata: { annotations: { 'cc-key': 5 } } }, rights: [] }), 'an annotation value of the wrong type (a number)'],
      ];
      // a fixed handful of requests: every case, each once
      for (const [op, body, what] of cases) {
        const x = await t.call(op, { body, headers: { 'content-type': 'application/json' } });
        if (op === 'getTransactionByOffset' && (routeNotServed(x) || !byOffsetServed(t, x))) continue; // not served from 3.5 on: nothing to judge
        t.expectStatus(x, 400, { what: `${op} with ${what}` });
        t.expect(x.mediaType === 'text/plain', `${op} with ${what}: 400 with Content-Type ${String(x.mediaType)}, not text/plain`, { exchange: x });
      }
    },
  );

  conformance(
    {
      id: 'ledger.errors.missing-field',
      title: 'rejects a body missing a required field whose empty default is invalid with a 4xx, text/plain or a JsCantonError, 400 as FACTS.md gives',
      api: 'ledger',
      operations: ['generateExternalPartyTopology', 'getTransactionByOffset', 'updateUser', 'grantUserRights', 'updateTrafficAccount', 'submitAndWaitForTransactionTree'],
      requirements: ['ledger.errors.missing-field-rejected', 'ledger.errors.bad-request-400'],
    },
    async (t) => {
      // FACTS.md: a participant decoding leniently fills a missing field with its empty default and then fails
      // validation with a 400 JsCantonError; a strict one answers 400 text/plain. Either is kept. Each case leaves out
      // one field whose empty default is itself invalid (an empty partyHint, an unknown synchronizer, offset 0), and
      // the rest of the body is valid, so that a 400 can only be about the missing field.
      const sync = (await connectedSynchronizers(t))[0] ?? t.skip('the participant is connected to no synchronizer: no valid generate-topology body to leave a field out of');
      const topology = { synchronizer: sync, partyHint: t.uniqueName('cc-missing'), publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: Buffer.alloc(32, 9).toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' } };
      const without = (o: Record<string, unknown>, k: string) => Object.fromEntries(Object.entries(o).filter(([key]) => key !== k));
      // the fields SPEC.md marks required (the update mask, the user and its id, the user id of a grant, the public key
      // and its fields, the account id, the commands of a submission), each left out of an otherwise valid request
      const u = await createUser(t);
      const userUpdate = { user: { id: u.id, isDeactivated: false }, updateMask: { paths: ['is_deactivated'] } };
      // the cases that need a party acting through its own user (HS256 tokens) are left out, with the reason, where the
      // target's configuration cannot give one: the other cases are judged all the same
      let s: Awaited<ReturnType<typeof createSubmitter>> | undefined;
      try {
        s = await createSubmitter(t);
      } catch (e) {
        if (!(e instanceof NotRun)) throw e;
        t.note(`the account id and the tree submission's commands were not left out: ${e.reason}`);
      }
      // `authorization`: the missing field (or the empty list the case sends beside it) is one authorization reads, the
      // reading parties or a user id: FACTS.md, refused 400 or 403 as authorization runs before validation
      type Case = [op: string, json: unknown, field: string, o?: { params?: Record<string, string>; auth?: { user: string }; served?: () => boolean; authorization?: boolean }];
      const cases: Case[] = [
        ['generateExternalPartyTopology', without(topology, 'partyHint'), 'partyHint'],
        ['generateExternalPartyTopology', without(topology, 'synchronizer'), 'synchronizer'],
        ['generateExternalPartyTopology', without(topology, 'publicKey'), 'publicKey'],
        ...(['format', 'keyData', 'keySpec'] as const).map((k): Case => ['generateExternalPartyTopology', { ...topology, publicKey: without(topology.publicKey, k) }, `publicKey.${k}`]),
        ['getTransactionByOffset', { requestingParties: [] }, 'offset', { authorization: true }],
        ['updateUser', without(userUpdate, 'updateMask'), 'updateMask', { params: { 'user-id': u.id } }],
        ['updateUser', without(userUpdate, 'user'), 'user', { params: { 'user-id': u.id } }],
        ['updateUser', { ...userUpdate, user: without(userUpdate.user, 'id') }, 'user.id', { params: { 'user-id': u.id } }],
        // every field missing: no body at all
        ['updateUser', undefined, 'any body', { params: { 'user-id': u.id } }],
        // every field missing: the body is the JSON value null (read as the empty message, or not decoded at all)
        ['updateUser', null, 'any body (the body is JSON null)', { params: { 'user-id': u.id } }],
        ['grantUserRights', { rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }] }, 'userId', { params: { 'user-id': u.id }, authorization: true }],
        // every field of a list item missing: the item is JSON null (read as the empty message, a right of no kind, or
        // not decoded at all)
        ['grantUserRights', { userId: u.id, rights: [null] }, 'rights[0] (an item that is JSON null)', { params: { 'user-id': u.id } }],
        ...(s === undefined
          ? []
          : ([
              ['updateTrafficAccount', { deduplicationId: t.uniqueName('dedup'), balanceDelta: 1 }, 'accountId', { served: () => trafficServed(t) }],
              ['submitAndWaitForTransactionTree', { commandId: t.uniqueName('cc-missing'), userId: s.userId, actAs: [s.party] }, 'commands', { auth: { user: s.userId } }],
              // the empty default of the shape is TRANSACTION_SHAPE_UNSPECIFIED, which FACTS.md says is refused
              ['getTransactionByOffset', { offset: 1, transactionFormat: { eventFormat: { filtersByParty: { [s.party]: {} } } } }, 'transactionFormat.transactionShape', { auth: { user: s.userId } }],
            ] as Case[])),
      ];
      const seen: Array<{ x: Exchange; what: string }> = [];
      const seenByAuthorization: Array<{ x: Exchange; what: string }> = [];
      // each case decided on its own: one whose answer decides nothing leaves the others judged
      const separate = separateCases(t);
      for (const [op, json, field, o = {}] of cases) {
        if (ledgerOperationGone(t.target.version, op) !== undefined || o.served?.() === false) continue;
        await separate.run(`${op} without ${field}`, async () => {
          const x = await t.call(op, { json, ...(o.params !== undefined ? { params: o.params } : {}), ...(o.auth !== undefined ? { auth: o.auth } : {}) });
          if (op === 'submitAndWaitForTransactionTree' && routeNotServed(x)) return;
          if (op === 'getTransactionByOffset' && (routeNotServed(x) || !byOffsetServed(t, x))) return; // not served: nothing to judge
          const canton = x.mediaType === 'application/json' && errorCode(x) !== undefined;
          if (x.status >= 400 && x.status < 500) t.note(`a missing required field is rejected with a ${x.status} ${canton ? 'JsCantonError' : String(x.mediaType)} body`);
          await judgeRejection(t, x, {
            requirement: 'ledger.errors.missing-field-rejected',
            badRequest: 'ledger.errors.bad-request-400',
            what: `${op} without ${field}`,
            deferBadRequest: o.authorization === true ? seenByAuthorization : seen,
            ...(o.authorization === true ? { statuses: [400, 403] } : {}),
          });
          await t.judge('ledger.errors.missing-field-rejected', () => {
            if (x.status >= 400 && x.status < 500) t.expect(x.mediaType === 'text/plain' || canton, `${op} without ${field}: ${x.status} ${String(x.mediaType)}, neither text/plain nor a JsCantonError: ${x.text.slice(0, 200)}`, { requirement: 'ledger.errors.missing-field-rejected', exchange: x });
          });
        });
      }
      separate.done();
      await judgeBadRequests(t, 'ledger.errors.bad-request-400', seen);
      await judgeBadRequests(t, 'ledger.errors.bad-request-400', seenByAuthorization, [400, 403]);
    },
  );

  conformance(
    {
      id: 'ledger.errors.status-mapping',
      title: 'answers participant errors with JsCantonErrors whose status follows the gRPC code, the category and the named code',
      api: 'ledger',
      operations: ['getTransactionByOffset', 'getUpdateByOffset', 'getPackageVetting', 'listPackageVetting', 'updateTrafficAccount', 'submitAndWaitForTransaction', 'getLedgerEnd'],
      requirements: [
        'ledger.errors.canton-error-shape',
        'ledger.errors.status-400',
        'ledger.errors.status-401',
        'ledger.errors.status-403',
        'ledger.errors.status-404',
        'ledger.errors.status-409',
        'ledger.errors.error-category-matches-status',
        'ledger.errors.named-code-status',
        // judged on the unknown offset it looks up, one past the int32 range
        'ledger.get-transaction-by-offset.unknown-offset-not-found',
      ],
    },
    async (t) => {
      const s = await createSubmitter(t);
      /** why a status-N rule may have gone unjudged: the branch meant to provoke its gRPC code did not run */
      const unprovoked: Record<number, string> = {};
      /**
       * Judges a transaction-by-offset error; the status its request's rule prescribes only where the endpoint is served
       * (byOffsetServed). Where it is not, an answer that is still a JsCantonError is judged by the error rules alone.
       */
      const judgeByOffset = async (x: Exchange, expected: { status: number; requirement: string }): Promise<boolean> => {
        const served = !routeNotServed(x) && byOffsetServed(t, x);
        if (served) await judgeError(t, x, expected);
        else if (errorCode(x) !== undefined) await judgeError(t, x);
        return served;
      };
      // INVALID_ARGUMENT
      await judgeError(t, await t.call(vettingOpFor(t), { json: { pageSize: -1 } }), { status: 400, requirement: 'ledger.get-package-vetting.negative-page-size-rejected' });
      // the least int32 is still an int32 (SPEC.md types pageSize int32): refused as a negative page size, as -1 is,
      // with a JsCantonError, not as a request that cannot be decoded
      await judgeError(t, await t.call(vettingOpFor(t), { json: { pageSize: -(2 ** 31) } }), { status: 400, requirement: 'ledger.get-package-vetting.negative-page-size-rejected' });
      // MISSING_FIELD: an unspecified transaction shape
      const end = await t.call('getLedgerEnd');
      // past the int32 range whatever the ledger end (still a safe integer): SPEC.md types the offset int64, so an
      // offset decoded as an int32 is seen refused here instead of looked up
      const beyond = Number((end.json as { offset?: number } | undefined)?.offset ?? 0) + 2 ** 32;
      if (ledgerOperationGone(t.target.version, 'getTransactionByOffset') === undefined) {
        const unspecified = await t.call('getTransactionByOffset', { auth: { user: s.userId }, json: { offset: 1, transactionFormat: { eventFormat: { filtersByParty: { [s.party]: {} } }, transactionShape: 'TRANSACTION_SHAPE_UNSPECIFIED' } } });
        await judgeByOffset(unspecified, { status: 400, requirement: 'ledger.get-transaction-by-offset.unspecified-shape-rejected' });
        // NOT_FOUND: no transaction beyond the ledger end
        const missing = await t.call('getTransactionByOffset', { auth: { user: s.userId }, json: { offset: beyond, requestingParties: [s.party] } });
        if (!(await judgeByOffset(missing, { status: 404, requirement: 'ledger.get-transaction-by-offset.unknown-offset-not-found' }))) {
          unprovoked[404] = 'transaction-by-offset, meant to answer NOT_FOUND here, is not served (from 3.5 on its removal is scheduled)';
        }
      } else {
        // NOT_FOUND through the replacement, where transaction-by-offset is gone (FACTS.md, 3.6)
        const missing = await t.call('getUpdateByOffset', { auth: { user: s.userId }, json: { offset: beyond, updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [s.party]: {} } }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } } } });
        if (missing.status >= 400 && !routeNotServed(missing)) await judgeError(t, missing);
        else unprovoked[404] = `update-by-offset, meant to answer NOT_FOUND here, answered ${missing.status}`;
      }
      if (!trafficServed(t)) {
        unprovoked[401] = unprovoked[403] = 'traffic account updates, which answer UNAUTHENTICATED and PERMISSION_DENIED here, are served from 3.5 on where traffic enforcement is on, and the target is not configured so (features.trafficEnforcement true, version 3.5 or later)';
      } else {
        // UNAUTHENTICATED and PERMISSION_DENIED on one endpoint
        const body = { accountId: s.party, deduplicationId: t.uniqueName('dedup'), balanceDelta: 1 };
        const anonymous = await t.call('updateTrafficAccount', { auth: 'none', json: body });
        if (anonymous.status === 404 && errorCode(anonymous) === undefined) {
          // no such route: whether it should be served is judged by the traffic checks (ledger.versioning.traffic-accounts-added)
          unprovoked[401] = unprovoked[403] = 'POST /v2/traffic/accounts answered 404 without a JsCantonError: not served';
        } else {
          await judgeError(t, anonymous, { status: 401, requirement: 'ledger.auth.unauthenticated-401' });
          const plain = await createUser(t);
          await judgeError(t, await t.call('updateTrafficAccount', { auth: { user: plain.id }, json: body }), { status: 403, requirement: 'ledger.auth.permission-denied-403' });
        }
      }
      const tmpl = t.fixture<string>('templateId') !== undefined ? templateFixture(t) : undefined;
      if (tmpl === undefined) unprovoked[409] = 'no templateId/createArguments fixture: no command to submit twice';
      else {
        // ALREADY_EXISTS: the same command id twice. SPEC.md does not say a repeated command is refused; a participant
        // that deduplicates refuses it, and that refusal is judged like any error (its gRPC code against its status).
        const commandId = t.uniqueName('cmd');
        const first = await submitCommands(t, s, [createCommand(tmpl, s.party)], { commandId });
        if (first.x.status !== 200) unprovoked[409] = `the first submission of a command answered ${first.x.status}, so no command could be repeated`;
        else {
          const again = (await submitCommands(t, s, [createCommand(tmpl, s.party)], { commandId })).x;
          if (again.status >= 400) await judgeError(t, again);
          else unprovoked[409] = `the repeated command was answered ${again.status}, not refused`;
        }
      }
      // a status-N rule is judged (by the generic check) on every error response naming its gRPC code; one that no
      // response named is reported not observed (ignored by the harness when it was judged after all)
      for (const status of [400, 401, 403, 404, 409]) {
        const codes = Object.entries(LEDGER_GRPC_STATUS).filter(([, m]) => m.status === status).map(([code, m]) => `${m.name} (${code})`);
        t.notObserved(`ledger.errors.status-${status}`, `no error response of this check carried gRPC code ${codes.join(', ')}${unprovoked[status] !== undefined ? `: ${unprovoked[status]}` : ''}`);
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
      // sent at once whatever run.concurrency says: the burst is the probe (24 reads, once per run)
      const burst = await Promise.all(Array.from({ length: BURST }, (_, i) => t.call(ops[i % ops.length]!, { burst: true })));
      // a 429 or 503 that the client retried is an answer of the target too
      const seen = new Set(burst.flatMap((x) => [...(x.earlier ?? []), x]).map((x) => (x.json as { grpcCodeValue?: unknown } | undefined)?.grpcCodeValue).filter((c): c is number => typeof c === 'number'));
      for (const s of SERVER_SIDE) {
        const codes = Object.entries(LEDGER_GRPC_STATUS).filter(([code, m]) => m.status === s.status && seen.has(Number(code)));
        if (codes.length === 0) t.notObserved(s.requirement, `no response carried ${s.codes.join(', ')}: a burst of ${BURST} concurrent reads did not bring the target into that condition, and no other check's request did`);
      }
    },
  );
});
