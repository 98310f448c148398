import { describe } from 'vitest';
import fc from 'fast-check';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { expectRejected, judgeRejection } from '../../rejections.js';
import { createUser } from '../../../harness/fixtures/ledger.js';
import { annotationsOf, errorCode, grantRights, listRights, readUser, right, rightKey, tryCreateUser, updateUser, userOf, versionOf } from '../../../harness/fixtures/ledger-users.js';
import { FORBIDDEN_USER_ID_CHARS, USER_ID_ALPHABET, tooLongUserId, userId, userIdWithInvalidChar } from '../../../generators/ledger/userId.js';

const api = 'ledger' as const;

/** Creates, reads, updates and grants a right to a user with the given id; every step must accept the id. */
async function roundTrip(t: CheckContext, id: string): Promise<void> {
  const created = await tryCreateUser(t, { id });
  if (created.status === 409) return; // a user of that id exists already (left by someone else): nothing to learn
  t.expectStatus(created, 200, { what: `creating user ${JSON.stringify(id)}` });
  t.expect(userOf(created)?.id === id, `creating user ${JSON.stringify(id)} returned id ${JSON.stringify(userOf(created)?.id)}`, { exchange: created });
  const read = await t.call('getUser', { params: { 'user-id': id } });
  t.expectStatus(read, 200, { what: `reading user ${JSON.stringify(id)}` });
  t.expect(userOf(read)?.id === id, `reading user ${JSON.stringify(id)} returned id ${JSON.stringify(userOf(read)?.id)}`, { exchange: read });
  const upd = await updateUser(t, id, { metadata: { annotations: { k: 'v' } } }, ['metadata.annotations']);
  t.expectStatus(upd, 200, { what: `updating user ${JSON.stringify(id)}` });
  t.expect(userOf(upd)?.id === id, `updating user ${JSON.stringify(id)} returned id ${JSON.stringify(userOf(upd)?.id)}`, { exchange: upd });
  const g = await grantRights(t, id, [right.readAsAnyParty()]);
  t.expectStatus(g, 200, { what: `granting a right to user ${JSON.stringify(id)}` });
  const { x, rights } = await listRights(t, id);
  t.expect(rights?.map(rightKey).includes('CanReadAsAnyParty'), `the rights of user ${JSON.stringify(id)} do not include the granted right`, { exchange: x });
  await t.clientFor('ledger').call('deleteUser', { params: { 'user-id': id }, conform: false });
}

describe('POST /v2/users', () => {
  conformance(
    {
      id: 'ledger.create-user.id-allowed-characters',
      title: 'accepts user ids of 1 to 128 allowed characters and they round-trip through read, update and rights',
      api,
      operations: ['createUser', 'getUser', 'updateUser', 'grantUserRights', 'listUserRights'],
      requirements: ['ledger.users.id-allowed-characters'],
    },
    async (t) => {
      // every allowed character at once, and the longest id, then generated ids (a minimal one on failure). Every step
      // but creation names the user in the URL path, where the ids "." and ".." are dot segments that URL resolution
      // removes (GET /v2/users/.. is GET /v2/): no client can address them there, and a user created under such an id
      // could not be deleted again, so the generated ids leave them out

      const tag = t.uniqueName('').replace(/[^a-zA-Z0-9]/g, '').slice(-6);
      await roundTrip(t, `${tag}${USER_ID_ALPHABET}`);
      await roundTrip(t, `${tag}${'x'.repeat(128 - tag.length)}`);
      await t.property(userId({ pathSafe: true }), (id) => roundTrip(t, id), { concurrent: true });
    },
  );

  // an id of 129 characters of this check's own: a target that wrongly accepts one creates that user, and another
  // check sending the same id would then meet 409 (already exists), a 4xx, and pass
  const tooLongOwnId = (t: CheckContext): string => {
    const tag = t.uniqueName('').replace(/[^a-zA-Z0-9]/g, '').slice(-12);
    return `${tag}${'a'.repeat(129 - tag.length)}`;
  };
  const invalidCases: Array<[string, string, string, () => fc.Arbitrary<string>, (t: CheckContext) => string[]]> = [
    ['ledger.create-user.id-too-long', 'rejects user ids longer than 128 characters with a 4xx on create, update and grant', 'ledger.users.id-too-long-rejected', tooLongUserId, (t) => [tooLongOwnId(t)]],
    ['ledger.create-user.id-invalid-character', 'rejects user ids with a character outside the allowed set with a 4xx on create, update and grant', 'ledger.users.id-invalid-character-rejected', userIdWithInvalidChar, () => FORBIDDEN_USER_ID_CHARS.map((c) => `cc${c}id`)],
  ];
  for (const [id, title, requirement, arb, fixed] of invalidCases) {
    conformance({ id, title, api, operations: ['createUser', 'updateUser', 'grantUserRights'], requirements: [requirement] }, async (t) => {
      const tryAll = async (bad: string) => {
        const c = await tryCreateUser(t, { id: bad });
        // the MUST is a 4xx; the exact 400 with INVALID_FIELD is ledger.users.invalid-id-code's (FACTS.md)
        expectRejected(t, c, { what: `creating user ${JSON.stringify(bad)}` });
        const u = await updateUser(t, bad, { primaryParty: '' }, ['primary_party']);
        expectRejected(t, u, { what: `updating user ${JSON.stringify(bad)}` });
        const g = await grantRights(t, bad, [right.readAsAnyParty()]);
        expectRejected(t, g, { what: `granting rights to user ${JSON.stringify(bad)}` });
      };
      for (const bad of fixed(t)) {
        const c = await tryCreateUser(t, { id: bad });
        expectRejected(t, c, { what: `creating user ${JSON.stringify(bad)}` });
      }
      await t.property(arb(), tryAll, { runs: t.scaledRuns(15), concurrent: true });
    });
  }

  conformance(
    { id: 'ledger.create-user.id-empty', title: 'rejects an empty user id with a 4xx', api, operations: ['createUser'], requirements: ['ledger.users.id-empty-rejected'] },
    async (t) => {
      const x = await tryCreateUser(t, { id: '' });
      expectRejected(t, x);
    },
  );

  conformance(
    {
      id: 'ledger.create-user.invalid-id-code',
      title: 'answers error code INVALID_FIELD for a user id rejected for its length or characters',
      api,
      operations: ['createUser', 'updateUser', 'grantUserRights'],
      requirements: ['ledger.users.invalid-id-code'],
    },
    async (t) => {
      for (const bad of [tooLongOwnId(t), 'cc id', 'cc/id']) {
        for (const x of [await tryCreateUser(t, { id: bad }), await updateUser(t, bad, { primaryParty: '' }, ['primary_party']), await grantRights(t, bad, [right.readAsAnyParty()])]) {
          t.expectStatus(x, 400);
          t.expect(errorCode(x) === 'INVALID_FIELD', `user id ${JSON.stringify(bad)}: expected code INVALID_FIELD, got ${errorCode(x)}`, { exchange: x });
        }
      }
    },
  );

  conformance(
    {
      id: 'ledger.create-user.default-identity-provider',
      title: 'puts a user created without identityProviderId in the default identity provider',
      api,
      operations: ['createUser', 'getUser', 'grantUserRights'],
      requirements: ['ledger.users.default-identity-provider'],
    },
    async (t) => {
      const u = await createUser(t);
      const read = await t.call('getUser', { params: { 'user-id': u.id } });
      t.expectStatus(read, 200);
      const idp = userOf(read)?.identityProviderId;
      t.expect(idp === undefined || idp === null || idp === '', `the user reads back with identityProviderId ${JSON.stringify(idp)}, not the default (empty, null or absent)`, { exchange: read });
      const g = await grantRights(t, u.id, [right.readAsAnyParty()]);
      t.expectStatus(g, 200, { what: 'granting rights without identityProviderId' });
    },
  );

  conformance(
    {
      id: 'ledger.create-user.active-by-default',
      title: 'creates a user active when the request leaves isDeactivated out',
      api,
      operations: ['createUser', 'getUser'],
      requirements: ['ledger.users.active-when-deactivation-unset'],
    },
    async (t) => {
      const id = t.uniqueName('cc-active');
      // the request's user has no isDeactivated at all (the fixtures send false)
      const x = await t.call('createUser', { json: { user: { id, metadata: { resourceVersion: '', annotations: {} } }, rights: [] } });
      if (x.status === 200) t.defer(async () => t.clientFor('ledger').call('deleteUser', { params: { 'user-id': id }, conform: false }), `deleting user ${id}`);
      t.expectStatus(x, 200, { what: 'creating a user without isDeactivated' });
      t.expect(userOf(x)?.isDeactivated !== true, `the created user is answered with isDeactivated ${JSON.stringify(userOf(x)?.isDeactivated)}, though the request left it unset`, { exchange: x });
      const user = await readUser(t, id);
      t.expect(user.isDeactivated !== true, `the user created without isDeactivated reads back with isDeactivated ${JSON.stringify(user.isDeactivated)}`);
    },
  );

  conformance(
    {
      id: 'ledger.create-user.resource-version-non-empty',
      title: 'returns a non-empty resourceVersion on create, read and update',
      api,
      operations: ['createUser', 'getUser', 'updateUser'],
      requirements: ['ledger.users.resource-version-non-empty'],
    },
    async (t) => {
      const c = await tryCreateUser(t, { id: t.uniqueName('cc-rv') });
      t.expectStatus(c, 200);
      t.expect((versionOf(userOf(c)) ?? '') !== '', 'the created user has an empty resourceVersion', { exchange: c });
      const id = userOf(c)?.id ?? '';
      const r = await t.call('getUser', { params: { 'user-id': id } });
      t.expect((versionOf(userOf(r)) ?? '') !== '', 'the user read back has an empty resourceVersion', { exchange: r });
      const u = await updateUser(t, id, { primaryParty: '' }, ['primary_party']);
      t.expect((versionOf(userOf(u)) ?? '') !== '', 'the updated user has an empty resourceVersion', { exchange: u });
    },
  );

  conformance(
    {
      id: 'ledger.create-user.annotations-may-be-empty',
      title: 'accepts a user with an empty or absent annotations map and reads it back with no unprefixed key',
      api,
      operations: ['createUser', 'getUser'],
      requirements: ['ledger.users.annotations-may-be-empty'],
    },
    async (t) => {
      // keys with a prefix (a '/') are the server's or tools' to set (SPEC.md, ObjectMeta): only unprefixed ones count
      const endUserKeys = (a: Record<string, string>) => Object.keys(a).filter((k) => !k.includes('/'));
      for (const [what, metadata] of [['an empty annotations map', { resourceVersion: '', annotations: {} }], ['no annotations map', { resourceVersion: '' }]] as const) {
        const id = t.uniqueName('cc-noann');
        t.expectStatus(await tryCreateUser(t, { id, metadata }), 200, { what: `creating a user with ${what}` });
        const user = await readUser(t, id);
        t.expect(endUserKeys(annotationsOf(user)).length === 0, `a user created with ${what} reads back with annotations ${JSON.stringify(annotationsOf(user))}`);
      }
    },
  );

  conformance(
    {
      id: 'ledger.create-user.server-annotations-prefixed',
      title: 'adds no unprefixed annotation key of its own',
      api,
      operations: ['createUser', 'getUser'],
      requirements: ['ledger.users.server-annotations-prefixed'],
    },
    async (t) => {
      const mine = { 'cc-mine': 'x' };
      for (const annotations of [{}, mine]) {
        const u = await createUser(t, { annotations });
        const user = await readUser(t, u.id);
        const extra = Object.keys(annotationsOf(user)).filter((k) => !(k in annotations) && !k.includes('/'));
        t.expect(extra.length === 0, `the server set unprefixed annotation keys ${JSON.stringify(extra)}`);
      }
    },
  );

  conformance(
    { id: 'ledger.create-user.schema', title: 'answers 200 with the created user', api, operations: ['createUser'], requirements: ['ledger.create-user.response-schema'] },
    async (t) => {
      const id = t.uniqueName('cc-create');
      const x = await tryCreateUser(t, { id, metadata: { resourceVersion: '', annotations: { 'a.example.com/k': 'v' } } }, [right.readAsAnyParty()]);
      t.expectStatus(x, 200);
      t.expect(userOf(x)?.id === id, `the response's user has id ${JSON.stringify(userOf(x)?.id)}`, { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.create-user.existing-id',
      title: 'answers 409 USER_ALREADY_EXISTS for an id that exists',
      api,
      operations: ['createUser'],
      requirements: ['ledger.create-user.existing-id-conflict'],
    },
    async (t) => {
      const u = await createUser(t);
      const x = await tryCreateUser(t, { id: u.id });
      t.expectStatus(x, 409);
      t.expect(errorCode(x) === 'USER_ALREADY_EXISTS', `expected code USER_ALREADY_EXISTS, got ${errorCode(x)}`, { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.create-user.resource-version-rejected',
      title: 'rejects a non-empty metadata.resourceVersion on creation with a 4xx, 400 as FACTS.md gives',
      api,
      operations: ['createUser'],
      requirements: ['ledger.create-user.non-empty-resource-version-rejected', 'ledger.errors.bad-request-400'],
    },
    async (t) => {
      const x = await tryCreateUser(t, { id: t.uniqueName('cc-rv'), metadata: { resourceVersion: '1', annotations: {} } });
      await judgeRejection(t, x, { requirement: 'ledger.create-user.non-empty-resource-version-rejected', badRequest: 'ledger.errors.bad-request-400', what: 'creating a user with resourceVersion "1"' });
    },
  );
  conformance(
    {
      id: 'ledger.annotations.duplicate-keys',
      title: 'keeps an annotation key sent twice in the raw JSON body once, or rejects the request with a 4xx',
      api: 'ledger',
      operations: ['createUser', 'getUser'],
      requirements: ['ledger.annotations.duplicate-keys-impossible'],
    },
    async (t) => {
      // SPEC.md: "duplicate keys are impossible". JSON itself allows a key twice in an object, and a decoder keeps one
      // of them or refuses the body; either way the user never holds, nor is answered with, the key twice
      const id = t.uniqueName('cc-user');
      const raw = `{"user":{"id":${JSON.stringify(id)},"isDeactivated":false,"metadata":{"resourceVersion":"","annotations":{"dup":"first","dup":"second"}}},"rights":[]}`;
      const x = await t.call('createUser', { body: raw, headers: { 'content-type': 'application/json' } });
      if (x.status >= 400 && x.status < 500) {
        expectRejected(t, x, { what: 'creating a user with an annotation key twice' });
        t.note(`an annotation key sent twice is rejected with ${x.status}`);
        return;
      }
      t.expectStatus(x, 200, { what: 'creating a user with an annotation key twice' });
      t.defer(() => t.call('deleteUser', { params: { 'user-id': id }, conform: false }), `deleting user ${id}`);
      const times = (text: string) => (text.match(/"dup"\s*:/g) ?? []).length;
      t.expect(times(x.text) <= 1, `the created user is answered with the annotation key "dup" ${times(x.text)} times`, { exchange: x });
      const read = await t.call('getUser', { params: { 'user-id': id } });
      t.expectStatus(read, 200, { what: 'reading the user back' });
      t.expect(times(read.text) <= 1, `the user reads back with the annotation key "dup" ${times(read.text)} times`, { exchange: read });
      t.note(`an annotation key sent twice is kept once, as ${JSON.stringify(annotationsOf(userOf(read)).dup)}`);
    },
  );
});
