import { describe } from 'vitest';
import { SignJWT } from 'jose';
import { conformance, type CallAuth, type CheckContext } from '../../../harness/conformance.js';
import { allocationRequest, connectedSynchronizers, createUser, routeNotServed, stableDar } from '../../../harness/fixtures/ledger.js';
import { createAdminUser, grantRights, revokeRights, right, tokenFor, updateUser } from '../../../harness/fixtures/ledger-users.js';
import { TargetOverloaded, type Exchange } from '../../../harness/transport/http.js';
import { saysNothingOfTheRule } from '../../../harness/judging/checks.js';
import { ledgerOperationGone, outOfRange } from '../../../harness/judging/versions.js';
import { judgeBadRequests, judgeRejection } from '../../rejections.js';
import { byOffsetServed, pastRemoval, trafficServed } from '../shared.js';

const api = 'ledger' as const;
/** a refusal, the MUST (SPEC.md: access denied); which 4xx it is, is a SHOULD of its own (FACTS.md) */
const refused = (s: number) => s >= 400 && s < 500;
const UNAUTHENTICATED = 'ledger.auth.unauthenticated-401';
const PERMISSION_DENIED = 'ledger.auth.permission-denied-403';
const USER_REFUSED = 'ledger.auth.refused-user-401-or-403';
/** FACTS.md: 429, 503 and 499 may answer any request (overload, cancellation), and a gateway 502 or 504: none of them judges a refusal. */
const overloaded = (x: Exchange) => saysNothingOfTheRule('ledger', x.status);

/**
 * The answers that say something of the rule (not an overload or gateway status); when none does, nothing was judged:
 * an error, never a pass on answers that judged nothing.
 */
function telling<T extends readonly [string, Exchange]>(answers: readonly T[]): T[] {
  const told = answers.filter(([, x]) => !overloaded(x));
  if (told.length === 0) throw new TargetOverloaded(`every answer was an overload or gateway status (${[...new Set(answers.map(([, x]) => x.status))].join(', ')}): nothing judged`);
  return told;
}

/** One well-formed request per user management operation, addressing `other` (a user that exists). */
async function userOps(t: CheckContext, other: string, auth: CallAuth): Promise<Array<[string, Awaited<ReturnType<CheckContext['call']>>]>> {
  const p = { params: { 'user-id': other }, auth };
  return [
    ['createUser', await t.call('createUser', { json: { user: { id: t.uniqueName('cc-never'), isDeactivated: false, metadata: { resourceVersion: '', annotations: {} } }, rights: [] }, auth })],
    ['listUsers', await t.call('listUsers', { auth })],
    ['getUser', await t.call('getUser', p)],
    ['deleteUser', await t.call('deleteUser', p)],
    ['updateUser', await updateUser(t, other, { primaryParty: '' }, ['primary_party'], { auth })],
    ['grantUserRights', await grantRights(t, other, [right.readAsAnyParty()], auth)],
    ['listUserRights', await t.call('listUserRights', p)],
    ['revokeUserRights', await revokeRights(t, other, [right.readAsAnyParty()], auth)],
  ];
}

const TRAFFIC = ['updateTrafficAccount', 'getTrafficAccount'];

/**
 * Whether an answer shows the operation is not served at all, so it refuses nothing: a 404 or 405 without a
 * JsCantonError body (no such route); an operation its version no longer has (FACTS.md, 3.6), which is not sent; transaction-by-offset's or the tree submission's 404 from 3.5 on, where their removal is
 * scheduled; a traffic route's 404 where the target is not known to serve it (3.5 and later, traffic enforcement on).
 */
function notServed(t: CheckContext, op: string, x: Exchange): boolean {
  if (routeNotServed(x)) return true;
  if (x.status !== 404) return false;
  if (op === 'getTransactionByOffset') return pastRemoval(t) && !byOffsetServed(t, x);
  if (op === 'submitAndWaitForTransactionTree') return pastRemoval(t);
  return TRAFFIC.includes(op) && !trafficServed(t);
}

/**
 * One well-formed request per ledger operation of the API description (bodies valid in shape, ids made up), leaving out
 * the traffic operations where the target's version or configuration excludes them (added in 3.5; served only with
 * traffic enforcement on).
 */
async function everyOp(t: CheckContext, self: string, auth: CallAuth) {
  const party = 'cc-party::1220' + '0'.repeat(64);
  // a synchronizer the participant is connected to, so that no body names an unknown one (read as the admin)
  const sync = (await connectedSynchronizers(t))[0] ?? 'cc-sync::1220' + '0'.repeat(64);
  const ops: Array<[string, Parameters<CheckContext['call']>[1]]> = [
    ['getVersion', {}],
    ['getPackageVetting', { json: {} }],
    ['listPackageVetting', { json: {} }],
    ['generateExternalPartyTopology', { json: { synchronizer: sync, partyHint: 'cc', publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: Buffer.alloc(32, 7).toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' } } }],
    ['getTransactionByOffset', { json: { offset: 1, transactionFormat: { eventFormat: { filtersByParty: { [party]: {} } }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } } }],
    ['updateTrafficAccount', { json: { accountId: party, balanceDelta: 0, deduplicationId: t.uniqueName('dedup') } }],
    ['getTrafficAccount', { params: { 'account-id': party } }],
    ['createUser', { json: { user: { id: t.uniqueName('cc-never'), metadata: { resourceVersion: '', annotations: {} } }, rights: [] } }],
    ['listUsers', {}],
    ['getUser', { params: { 'user-id': self } }],
    ['deleteUser', { params: { 'user-id': t.uniqueName('cc-nobody') } }],
    ['updateUser', { params: { 'user-id': self }, json: { user: { id: self }, updateMask: { paths: ['primary_party'] } } }],
    ['grantUserRights', { params: { 'user-id': self }, json: { userId: self, rights: [] } }],
    ['listUserRights', { params: { 'user-id': self } }],
    ['revokeUserRights', { params: { 'user-id': self }, json: { userId: self, rights: [] } }],
    ['submitAndWaitForReassignment', { json: { reassignmentCommands: { commandId: t.uniqueName('cmd'), submitter: party, commands: [{ command: { UnassignCommand: { value: { contractId: '00', source: sync, target: sync } } } }] } } }],
    ['submitAndWaitForTransactionTree', { json: { commands: [{ CreateCommand: { templateId: '#pkg:M:T', createArguments: {} } }], commandId: t.uniqueName('cmd'), actAs: [party] } }],
    // a real DAR-shaped archive, uploaded without vetting (no synchronizer needed): a 400 cannot be about the body
    ['uploadPackage', { body: stableDar(t, 'never').bytes, query: { vetAllPackages: 'false' }, headers: { 'content-type': 'application/octet-stream' } }],
    ['allocateParty', { json: await allocationRequest(t, t.uniqueName('cc-never')) }],
    ['submitAndWaitForTransaction', { json: { commands: { commands: [{ CreateCommand: { templateId: '#pkg:M:T', createArguments: {} } }], commandId: t.uniqueName('cmd'), actAs: [party] } } }],
    ['getUpdateByOffset', { json: { offset: 1, updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [party]: {} } }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } } } }],
    ['getConnectedSynchronizers', {}],
    ['getLedgerEnd', {}],
  ];
  const out: Array<[string, Awaited<ReturnType<CheckContext['call']>>]> = [];
  const trafficExcluded = t.target.features.trafficEnforcement === false || outOfRange(t.target.version, '3.5') !== undefined;
  for (const [op, o] of ops) {
    if (!t.schemas.hasOperation('ledger', op)) continue;
    if (ledgerOperationGone(t.target.version, op) !== undefined) continue;
    if (TRAFFIC.includes(op) && trafficExcluded) continue;
    out.push([op, await t.call(op, { ...o, auth, conform: false })]);
  }
  return out;
}

describe('ledger authentication: users', () => {
  conformance(
    {
      id: 'ledger.auth.deactivated-user-refused',
      title: 'refuses a deactivated user with a 4xx on every ledger endpoint, 401 or 403 as real participants do',
      api,
      operations: ['updateUser'],
      requirements: ['ledger.auth.deactivated-user-refused', USER_REFUSED],
    },
    async (t) => {
      const u = await createAdminUser(t, { rights: [right.readAsAnyParty(), right.executeAsAnyParty()] });
      const auth = tokenFor(t, u.id);
      t.expectStatus(await updateUser(t, u.id, { isDeactivated: true }, ['is_deactivated']), 200, { what: 'deactivating the user' });
      let judged = 0;
      const seen: Array<{ x: Exchange; what: string }> = [];
      for (const [op, x] of await everyOp(t, u.id, auth)) {
        if (notServed(t, op, x) || overloaded(x)) continue;
        judged++;
        await judgeRejection(t, x, { refusal: 'caller', requirement: 'ledger.auth.deactivated-user-refused', badRequest: USER_REFUSED, what: `${op} as a deactivated user`, deferBadRequest: seen });
        if (refused(x.status)) t.note(`a deactivated user is refused with ${x.status}`);
      }
      if (judged === 0) t.skip('every request was answered as not served or with an overload status (429, 499, 503)');
      await judgeBadRequests(t, USER_REFUSED, seen, [401, 403]);
    },
  );

  conformance(
    {
      id: 'ledger.auth.reactivated-user-accepted',
      title: "serves a reactivated user's requests again",
      api,
      operations: ['updateUser', 'getUser', 'listUsers'],
      requirements: ['ledger.auth.reactivated-user-accepted'],
    },
    async (t) => {
      const u = await createAdminUser(t);
      const auth = tokenFor(t, u.id);
      t.expectStatus(await updateUser(t, u.id, { isDeactivated: true }, ['is_deactivated']), 200, { what: 'deactivating the user' });
      const off = await t.call('listUsers', { auth });
      t.expect(refused(off.status), `listUsers as the deactivated user answered ${off.status}`, { exchange: off });
      t.expectStatus(await updateUser(t, u.id, { isDeactivated: false }, ['is_deactivated']), 200, { what: 'reactivating the user' });
      t.expectStatus(await t.call('listUsers', { auth }), 200, { what: 'listUsers as the reactivated user' });
      t.expectStatus(await t.call('getUser', { params: { 'user-id': u.id }, auth }), 200, { what: 'getUser of itself as the reactivated user' });
    },
  );

  conformance(
    { id: 'ledger.auth.users-missing-token', title: 'refuses user management requests without a token with a 4xx, 401 as FACTS.md gives', api, operations: ['createUser', 'listUsers', 'getUser', 'deleteUser', 'updateUser', 'grantUserRights', 'listUserRights', 'revokeUserRights'], requirements: ['ledger.auth.missing-token-unauthenticated', UNAUTHENTICATED] },
    async (t) => {
      const other = await createUser(t);
      const seen: Array<{ x: Exchange; what: string }> = [];
      for (const [op, x] of telling(await userOps(t, other.id, 'none'))) {
        await judgeRejection(t, x, { refusal: 'caller', requirement: 'ledger.auth.missing-token-unauthenticated', badRequest: UNAUTHENTICATED, what: `${op} without a token`, deferBadRequest: seen });
      }
      await judgeBadRequests(t, UNAUTHENTICATED, seen, [401]);
    },
  );

  conformance(
    { id: 'ledger.auth.users-invalid-token', title: 'refuses a malformed or wrongly signed token with a 4xx, 401 as FACTS.md gives', api, operations: ['listUsers', 'getUser', 'deleteUser'], requirements: ['ledger.auth.invalid-token-unauthenticated', UNAUTHENTICATED] },
    async (t) => {
      const other = await createUser(t);
      const admin = t.client.tokens.userOf('admin') ?? 'participant_admin';
      const forged = await new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(admin).setIssuedAt().setExpirationTime('10m')
        .sign(new TextEncoder().encode('not-the-secret-of-this-participant-0123456789'));
      const seen: Array<{ x: Exchange; what: string }> = [];
      const answers: Array<[string, Exchange]> = [];
      for (const token of ['not-a-jwt', forged]) {
        const kind = token === forged ? 'wrongly signed' : 'malformed';
        answers.push(
          [`listUsers with a ${kind} token`, await t.call('listUsers', { auth: { token } })],
          [`getUser with a ${kind} token`, await t.call('getUser', { params: { 'user-id': other.id }, auth: { token } })],
          [`deleteUser with a ${kind} token`, await t.call('deleteUser', { params: { 'user-id': other.id }, auth: { token } })],
        );
      }
      for (const [what, x] of telling(answers)) {
        await judgeRejection(t, x, { refusal: 'caller', requirement: 'ledger.auth.invalid-token-unauthenticated', badRequest: UNAUTHENTICATED, what, deferBadRequest: seen });
      }
      await judgeBadRequests(t, UNAUTHENTICATED, seen, [401]);
    },
  );

  conformance(
    { id: 'ledger.auth.token-subject', title: "serves a token with the rights of the user its sub names", api, operations: ['listUsers'], requirements: ['ledger.auth.token-subject-is-user'] },
    async (t) => {
      const admin = await createAdminUser(t);
      const plain = await createUser(t, { rights: [right.readAsAnyParty()] });
      t.expectStatus(await t.call('listUsers', { auth: tokenFor(t, admin.id) }), 200, { what: 'listUsers as a user holding ParticipantAdmin' });
      t.expectStatus(await t.call('listUsers', { auth: tokenFor(t, plain.id) }), 403, { what: 'listUsers as a user without admin rights' });
    },
  );

  conformance(
    { id: 'ledger.auth.users-missing-right', title: 'refuses a user without admin rights managing another user with a 4xx, 403 as FACTS.md gives', api, operations: ['createUser', 'listUsers', 'getUser', 'deleteUser', 'listUserRights', 'revokeUserRights'], requirements: ['ledger.auth.missing-right-forbidden', PERMISSION_DENIED] },
    async (t) => {
      const plain = await createUser(t, { rights: [right.readAsAnyParty()] });
      const other = await createUser(t);
      const seen: Array<{ x: Exchange; what: string }> = [];
      // updateUser and grantUserRights have their own requirements
      const answers = (await userOps(t, other.id, tokenFor(t, plain.id))).filter(([op]) => op !== 'updateUser' && op !== 'grantUserRights');
      for (const [op, x] of telling(answers)) {
        await judgeRejection(t, x, { refusal: 'caller', requirement: 'ledger.auth.missing-right-forbidden', badRequest: PERMISSION_DENIED, what: `${op} by a user without admin rights`, deferBadRequest: seen });
      }
      await judgeBadRequests(t, PERMISSION_DENIED, seen, [403]);
    },
  );

  const adminOnly: Array<[string, string, string, string]> = [
    ['ledger.auth.update-user-admin', 'refuses a user update by a user without admin rights with a 4xx, 403 as FACTS.md gives', 'ledger.auth.update-user-requires-admin', 'updateUser'],
    ['ledger.auth.grant-rights-admin', 'refuses a rights grant by a user without admin rights with a 4xx, 403 as FACTS.md gives', 'ledger.auth.grant-rights-requires-admin', 'grantUserRights'],
  ];
  for (const [id, title, requirement, op] of adminOnly) {
    conformance({ id, title, api, operations: [op], requirements: [requirement, PERMISSION_DENIED] }, async (t) => {
      const plain = await createUser(t, { rights: [right.readAsAnyParty()] });
      const other = await createUser(t);
      const auth = tokenFor(t, plain.id);
      const seen: Array<{ x: Exchange; what: string }> = [];
      const x = op === 'updateUser' ? await updateUser(t, other.id, { primaryParty: '' }, ['primary_party'], { auth }) : await grantRights(t, other.id, [right.readAsAnyParty()], auth);
      await judgeRejection(t, x, { refusal: 'caller', requirement, badRequest: PERMISSION_DENIED, what: `${op} of another user by a user without admin rights`, deferBadRequest: seen });
      const self = op === 'updateUser' ? await updateUser(t, plain.id, { metadata: { annotations: { a: 'b' } } }, ['metadata.annotations'], { auth }) : await grantRights(t, plain.id, [right.participantAdmin()], auth);
      await judgeRejection(t, self, { refusal: 'caller', requirement, badRequest: PERMISSION_DENIED, what: `${op} of itself by a user without admin rights`, deferBadRequest: seen });
      await judgeBadRequests(t, PERMISSION_DENIED, seen, [403]);
    });
  }

  conformance(
    { id: 'ledger.auth.unknown-user', title: 'refuses a token naming a user that does not exist with 401 or 403', api, operations: ['getVersion', 'getUser', 'listUserRights'], requirements: ['ledger.auth.unknown-user-refused'] },
    async (t) => {
      const ghost = t.uniqueName('cc-ghost');
      const auth = tokenFor(t, ghost);
      const answers = [
        ['getVersion', await t.call('getVersion', { auth })],
        ['getUser', await t.call('getUser', { params: { 'user-id': ghost }, auth })],
        ['listUserRights', await t.call('listUserRights', { params: { 'user-id': ghost }, auth })],
      ] as const;
      for (const [op, x] of telling(answers)) t.expect(x.status === 401 || x.status === 403, `${op} with a token of an unknown user answered ${x.status}`, { exchange: x });
    },
  );
});
