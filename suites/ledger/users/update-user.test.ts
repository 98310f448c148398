import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { expectRejected, judgeRejection } from '../../rejections.js';
import type { Exchange } from '../../../harness/transport/http.js';
import fc from 'fast-check';
import { FixtureError, createUser, existingParty } from '../../../harness/fixtures/ledger.js';
import { annotationsOf, createAdminUser, errorCode, getUser, hasPpa, readUser, tokenFor, tryCreateUser, updateUser, userOf, versionOf } from '../../../harness/fixtures/ledger-users.js';
import {
  MAX_ANNOTATIONS_BYTES, annotationName, annotationPrefix, annotationValue, annotations, annotationsBytes, annotationsOfSize, invalidPrefix, keyWithTwoSlashes,
  nameOfLength, nameWithBadChar, nameWithBadEnd, prefixOfLength,
} from '../../../generators/ledger/annotations.js';

/** the SHOULD of a rejection's exact 400 (FACTS.md) where no rule names a code for it */
const BAD_REQUEST = 'ledger.errors.bad-request-400';

describe('PATCH /v2/users/{user-id}', () => {
  conformance(
    {
      id: 'ledger.update-user.empty-mask',
      title: 'rejects an update mask with no path with a 4xx',
      api: 'ledger',
      operations: ['updateUser'],
      requirements: ['ledger.update-user.empty-mask-rejected'],
    },
    async (t) => {
      const user = await createUser(t);
      const x = await t.call('updateUser', {
        params: { 'user-id': user.id },
        json: { user: { id: user.id, primaryParty: 'someone', metadata: { resourceVersion: '', annotations: {} } }, updateMask: { paths: [] } },
      });
      // the exact 400 and its code are judged by ledger.update-user.invalid-mask-code
      expectRejected(t, x);
    },
  );
});

// --- update masks, modifiable fields, resourceVersion (ledger user management area) ---

const api = 'ledger' as const;
/** how many users a property that updates a user and reads it back spreads its cases over (each user's cases in order) */
const USER_LANES = 4;

const ALL_PATHS = ['id', 'primary_party', 'is_deactivated', 'metadata', 'metadata.annotations', 'metadata.resource_version', 'identity_provider_id', 'primary_party_authentication'];

/** A path reduced to what any spelling of it shares: no case, nothing but letters, digits and dots (primary_party, primaryParty, PRIMARY-PARTY). */
const spelling = (p: string) => p.toLowerCase().replace(/[^a-z0-9.]/g, '');
/** Every valid path and User field in that reduced form, with the User's own name for good measure. */
const FIELD_SPELLINGS = new Set([...ALL_PATHS, 'user', 'metadata.resourceVersion', 'identityProviderId', 'isDeactivated', 'primaryPartyAuthentication'].map(spelling));

describe('PATCH /v2/users/{user-id}: masks and fields', () => {
  conformance(
    { id: 'ledger.update-user.schema', title: 'answers 200 with the updated user', api, operations: ['updateUser'], requirements: ['ledger.update-user.response-schema'] },
    async (t) => {
      const u = await createUser(t);
      const x = await updateUser(t, u.id, { primaryPartyAuthentication: false, metadata: { resourceVersion: u.resourceVersion, annotations: { k: 'v' } } }, ['metadata.annotations']);
      t.expectStatus(x, 200);
      t.expect(userOf(x)?.id === u.id, `the response's user has id ${JSON.stringify(userOf(x)?.id)}`, { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.update-user.unknown-path',
      title: 'rejects a mask naming a path that is not a field of User in any spelling with a 4xx',
      api,
      operations: ['updateUser'],
      requirements: ['ledger.update-user.unknown-path-rejected'],
    },
    async (t) => {
      const u = await createUser(t);
      // only paths no implementation could take for a User field: FACTS.md lists the valid paths in snake_case, but
      // SPEC.md names the fields in camelCase, so neither spelling of a field (nor one differing in case) is sent here;
      // the exact 400 and its code are judged by ledger.update-user.invalid-mask-code
      const unknown = fc.oneof(
        fc.constantFrom('user.id', 'metadata.no_such_field', 'rights', 'no_such_field', 'cc_unknown.path'),
        fc.string({ minLength: 1, maxLength: 20 }).filter((p) => p.trim() !== '' && !FIELD_SPELLINGS.has(spelling(p))),
      );
      await t.property(fc.tuple(fc.subarray(['primary_party', 'metadata']), unknown), async ([valid, bad]) => {
        const x = await updateUser(t, u.id, { primaryParty: '' }, [...valid, bad]);
        t.expect(x.status >= 400 && x.status <= 499, `mask ${JSON.stringify([...valid, bad])} was answered ${x.status}, not a 4xx`, { exchange: x });
      }, { runs: t.scaledRuns(15), concurrent: true });
    },
  );

  conformance(
    { id: 'ledger.update-user.duplicate-path', title: 'rejects a mask naming the same path twice with 400', api, operations: ['updateUser'], requirements: ['ledger.update-user.duplicate-path-rejected'] },
    async (t) => {
      const u = await createUser(t);
      for (const p of ['primary_party', 'metadata.annotations']) {
        const x = await updateUser(t, u.id, { primaryParty: '' }, [p, p]);
        t.expectStatus(x, 400, { what: `mask ${JSON.stringify([p, p])}` });
      }
    },
  );

  conformance(
    {
      id: 'ledger.update-user.invalid-mask-code',
      title: 'answers INVALID_USER_UPDATE_REQUEST for an empty mask, an unknown path and a duplicated path',
      api,
      operations: ['updateUser'],
      requirements: ['ledger.update-user.invalid-mask-code'],
    },
    async (t) => {
      const u = await createUser(t);
      for (const paths of [[], ['no_such_field'], ['primary_party', 'primary_party']]) {
        const x = await updateUser(t, u.id, { primaryParty: '' }, paths);
        t.expectStatus(x, 400, { what: `mask ${JSON.stringify(paths)}` });
        t.expect(errorCode(x) === 'INVALID_USER_UPDATE_REQUEST', `mask ${JSON.stringify(paths)}: expected code INVALID_USER_UPDATE_REQUEST, got ${errorCode(x)}`, { exchange: x });
      }
    },
  );

  conformance(
    {
      id: 'ledger.update-user.identity-paths',
      title: 'accepts the mask paths id and metadata.resource_version beside a modifiable path',
      api,
      operations: ['updateUser'],
      requirements: ['ledger.update-user.identity-paths-accepted'],
    },
    async (t) => {
      const u = await createUser(t);
      // SPEC.md: they "may appear" in a mask, not that they make a mask alone
      for (const paths of [['id', 'primary_party'], ['metadata.resource_version', 'primary_party'], ['id', 'metadata.resource_version', 'primary_party']]) {
        const cur = await readUser(t, u.id);
        const x = await updateUser(t, u.id, { primaryParty: '', metadata: { resourceVersion: versionOf(cur) ?? '', annotations: {} } }, paths);
        t.expectStatus(x, 200, { what: `mask ${JSON.stringify(paths)}` });
      }
    },
  );

  conformance(
    {
      id: 'ledger.update-user.valid-paths',
      title: 'does not reject any valid User path as unknown',
      api,
      operations: ['updateUser'],
      requirements: ['ledger.update-user.valid-paths-accepted'],
    },
    async (t) => {
      const u = await createUser(t);
      // a path that names no modifiable field goes beside primary_party, so that the mask changes something
      const modifies = ['primary_party', 'is_deactivated', 'metadata', 'metadata.annotations', 'primary_party_authentication'];
      for (const p of ALL_PATHS.filter((q) => hasPpa(t) || q !== 'primary_party_authentication')) {
        const paths = modifies.includes(p) ? [p] : [p, 'primary_party'];
        const x = await updateUser(t, u.id, { primaryParty: '', isDeactivated: false, primaryPartyAuthentication: false, identityProviderId: '', metadata: { resourceVersion: '', annotations: {} } }, paths);
        t.expect(x.status !== 400, `mask ${JSON.stringify(paths)} was rejected with 400: ${x.text.slice(0, 200)}`, { exchange: x });
      }
    },
  );

  conformance(
    {
      id: 'ledger.update-user.only-masked-fields',
      title: 'leaves every field that no mask path names at its stored value',
      api,
      operations: ['updateUser', 'getUser'],
      requirements: ['ledger.update-user.only-masked-fields-change'],
    },
    async (t) => {
      // a few users, each case on one of them (its lane, cases of a lane one after another, the lanes beside each
      // other); a case first puts its user in a state it draws (every field the property watches, under a full mask),
      // so that what it sees depends on its own value alone, never on the cases before it: the same first failing
      // case, replay and shrink at any concurrency (a chain of updates on one user, each case starting where the one
      // before left, met the planted fault at another case when spread over users)
      const [party, users] = await Promise.all([existingParty(t), Promise.all(Array.from({ length: USER_LANES }, () => createUser(t, { annotations: { keep: 'me' } })))]);
      const field = { primary_party: 'primaryParty', primary_party_authentication: 'primaryPartyAuthentication', is_deactivated: 'isDeactivated' } as const;
      const ppa = hasPpa(t);
      const allPaths = ['primary_party', ...(ppa ? ['primary_party_authentication'] : []), 'is_deactivated', 'metadata.annotations'];
      const state = fc.record({
        primaryParty: fc.constantFrom('', party),
        primaryPartyAuthentication: fc.boolean(),
        isDeactivated: fc.boolean(),
        // the keys the bodies write: `keep` always there, `added` there or not (an empty value deletes it)
        annotations: fc.record({ keep: fc.constantFrom('me', 'changed'), added: fc.constantFrom('', 'x') }),
      });
      const body = fc.record({
        primaryParty: fc.constantFrom(party, ''),
        primaryPartyAuthentication: fc.boolean(),
        isDeactivated: fc.boolean(),
        annotations: fc.constantFrom<Record<string, string>>({}, { keep: 'changed' }, { added: 'x' }),
      });
      const masks = fc.subarray(allPaths, { minLength: 1 });
      await t.property(fc.tuple(body, masks, state, fc.nat({ max: USER_LANES - 1 })), async ([b, paths, s, lane]) => {
        const u = users[lane]!;
        const set = await updateUser(t, u.id, { primaryParty: s.primaryParty, ...(ppa ? { primaryPartyAuthentication: s.primaryPartyAuthentication } : {}), isDeactivated: s.isDeactivated, metadata: { annotations: s.annotations } }, allPaths);
        if (set.status !== 200) throw new FixtureError(`setup: setting user ${u.id} to ${JSON.stringify(s)} under the mask ${JSON.stringify(allPaths)} answered ${set.status}: ${set.text.slice(0, 300)}`);
        const before = await readUser(t, u.id);
        const x = await updateUser(t, u.id, { primaryParty: b.primaryParty, primaryPartyAuthentication: b.primaryPartyAuthentication, isDeactivated: b.isDeactivated, metadata: { annotations: b.annotations } }, paths);
        t.expectStatus(x, 200, { what: `update with mask ${JSON.stringify(paths)}` });
        const after = await readUser(t, u.id);
        for (const [path, name] of Object.entries(field)) {
          if (paths.includes(path)) continue;
          t.expect(JSON.stringify(after[name] ?? null) === JSON.stringify(before[name] ?? null) || (before[name] === undefined && !after[name]),
            `${name} changed from ${JSON.stringify(before[name])} to ${JSON.stringify(after[name])} though the mask ${JSON.stringify(paths)} does not name ${path}`);
        }
        if (!paths.includes('metadata.annotations')) {
          t.expect(JSON.stringify(annotationsOf(after)) === JSON.stringify(annotationsOf(before)), `annotations changed though the mask ${JSON.stringify(paths)} does not name them`);
        }
      }, { runs: t.scaledRuns(20), concurrent: true, stateKey: ([, , , lane]) => String(lane) });
    },
  );

  conformance(
    { id: 'ledger.update-user.id-unchanged', title: "never changes the user's id, also with id in the mask", api, operations: ['updateUser', 'getUser'], requirements: ['ledger.update-user.id-never-changes'] },
    async (t) => {
      const u = await createUser(t);
      const x = await updateUser(t, u.id, { primaryParty: '' }, ['id', 'primary_party']);
      t.expectStatus(x, 200);
      t.expect(userOf(x)?.id === u.id, `the response's user has id ${JSON.stringify(userOf(x)?.id)}`, { exchange: x });
      const { x: r, user } = await getUser(t, u.id);
      t.expect(user?.id === u.id, `reading user ${u.id} after the update answered ${r.status} with id ${JSON.stringify(user?.id)}`, { exchange: r });
    },
  );

  conformance(
    {
      id: 'ledger.update-user.idp-unchanged',
      title: 'never changes identityProviderId, also with identity_provider_id in the mask',
      api,
      operations: ['updateUser', 'getUser'],
      requirements: ['ledger.update-user.identity-provider-not-modified'],
    },
    async (t) => {
      const u = await createUser(t);
      const before = await readUser(t, u.id);
      const other = t.uniqueName('cc-idp');
      const x = await updateUser(t, u.id, { identityProviderId: other }, ['identity_provider_id']);
      // FACTS.md: GET /v2/users/{user-id} reads within the provider its identity-provider-id names (the default when
      // absent): a user no longer found in the default provider is looked for in the one the update named
      const read = await t.call('getUser', { params: { 'user-id': u.id } });
      const moved = read.status === 404 ? await t.call('getUser', { params: { 'user-id': u.id }, query: { 'identity-provider-id': other } }) : undefined;
      if (moved !== undefined && moved.status === 200) t.fail(`identityProviderId changed to ${JSON.stringify(other)}: the user is found there and no longer in the default provider (update answered ${x.status})`, { exchange: x });
      const after = await readUser(t, u.id);
      t.expect((after.identityProviderId ?? '') === (before.identityProviderId ?? ''),
        `identityProviderId changed from ${JSON.stringify(before.identityProviderId)} to ${JSON.stringify(after.identityProviderId)} (update answered ${x.status})`, { exchange: x });
    },
  );

  const settable: Array<[string, string, string, string, (party: string) => Record<string, unknown>, string]> = [
    ['ledger.update-user.set-primary-party', 'sets primaryParty with primary_party in the mask', 'ledger.update-user.primary-party-modifiable', 'primary_party', (p) => ({ primaryParty: p }), 'primaryParty'],
    ['ledger.update-user.set-ppa', 'sets primaryPartyAuthentication with primary_party_authentication in the mask', 'ledger.update-user.primary-party-authentication-modifiable', 'primary_party_authentication', () => ({ primaryPartyAuthentication: true }), 'primaryPartyAuthentication'],
  ];
  for (const [id, title, requirement, path, body, name] of settable) {
    conformance({ id, title, api, operations: ['updateUser', 'getUser'], requirements: [requirement] }, async (t) => {
      const [party, u] = await Promise.all([path === 'primary_party' ? existingParty(t) : '', createUser(t)]);
      const want = body(party);
      const x = await updateUser(t, u.id, want, [path]);
      t.expectStatus(x, 200);
      const after = await readUser(t, u.id);
      t.expect(after[name] === want[name], `${name} reads back as ${JSON.stringify(after[name])}, not ${JSON.stringify(want[name])}`);
    });
  }

  conformance(
    {
      id: 'ledger.update-user.self-unmasked-field',
      title: "lets an admin update its own user with isDeactivated true in the body but not in the mask: accepted, and it stays active",
      api,
      operations: ['updateUser', 'getUser'],
      requirements: ['ledger.update-user.only-masked-fields-change'],
    },
    async (t) => {
      const admin = await createAdminUser(t);
      const auth = tokenFor(t, admin.id);
      // the body's isDeactivated is outside the mask: it neither deactivates the caller nor makes the update its own
      // deactivation
      const x = await updateUser(t, admin.id, { isDeactivated: true, metadata: { annotations: { self: 'updated' } } }, ['metadata.annotations'], { auth });
      t.expectStatus(x, 200, { what: "an admin's update of its own annotations with isDeactivated true outside the mask" });
      const after = await readUser(t, admin.id);
      t.expect(after.isDeactivated !== true, `the admin user reads back with isDeactivated ${JSON.stringify(after.isDeactivated)} after an update whose mask does not name is_deactivated`);
    },
  );

  conformance(
    {
      id: 'ledger.update-user.unset-ppa',
      title: 'clears primaryPartyAuthentication with primary_party_authentication in the mask and the field left out',
      api,
      operations: ['updateUser', 'getUser'],
      requirements: ['ledger.update-user.unset-ppa-cleared'],
    },
    async (t) => {
      const u = await createUser(t);
      const set = await updateUser(t, u.id, { primaryPartyAuthentication: true }, ['primary_party_authentication']);
      if (set.status !== 200) throw new FixtureError(`setup: setting primaryPartyAuthentication true answered ${set.status}: ${set.text.slice(0, 300)}`);
      if ((await readUser(t, u.id)).primaryPartyAuthentication !== true) t.skip('primaryPartyAuthentication does not read back true after it was set: nothing to clear (judged by ledger.update-user.set-ppa)');
      // the body's user has no primaryPartyAuthentication at all: its empty default is false
      t.expectStatus(await updateUser(t, u.id, {}, ['primary_party_authentication']), 200);
      const after = await readUser(t, u.id);
      t.expect(after.primaryPartyAuthentication !== true, `primaryPartyAuthentication reads back ${JSON.stringify(after.primaryPartyAuthentication)} after an update naming its path with the field left out`);
    },
  );

  conformance(
    { id: 'ledger.update-user.deactivate', title: 'deactivates a user with isDeactivated true and is_deactivated in the mask', api, operations: ['updateUser', 'getUser'], requirements: ['ledger.update-user.deactivate'] },
    async (t) => {
      const u = await createUser(t);
      t.expectStatus(await updateUser(t, u.id, { isDeactivated: true }, ['is_deactivated']), 200);
      const after = await readUser(t, u.id);
      t.expect(after.isDeactivated === true, `the user reads back with isDeactivated ${JSON.stringify(after.isDeactivated)}`);
    },
  );

  conformance(
    { id: 'ledger.update-user.reactivate', title: 'reactivates a deactivated user with isDeactivated unset and is_deactivated in the mask', api, operations: ['updateUser', 'getUser'], requirements: ['ledger.update-user.reactivate'] },
    async (t) => {
      const u = await createUser(t, { isDeactivated: true });
      t.expectStatus(await updateUser(t, u.id, { isDeactivated: true }, ['is_deactivated']), 200);
      t.expectStatus(await updateUser(t, u.id, {}, ['is_deactivated']), 200);
      const after = await readUser(t, u.id);
      t.expect(after.isDeactivated !== true, `the user reads back with isDeactivated ${JSON.stringify(after.isDeactivated)}`);
    },
  );

  conformance(
    {
      id: 'ledger.update-user.returns-updated',
      title: "answers with the updated values and the new resourceVersion",
      api,
      operations: ['updateUser'],
      requirements: ['ledger.update-user.returns-updated-user'],
    },
    async (t) => {
      const u = await createUser(t, { annotations: { a: '1' } });
      const x = await updateUser(t, u.id, { primaryPartyAuthentication: true, metadata: { annotations: { b: '2' } } }, ['metadata.annotations', ...(hasPpa(t) ? ['primary_party_authentication'] : [])]);
      t.expectStatus(x, 200);
      const got = userOf(x);
      t.expect(JSON.stringify(annotationsOf(got)) === JSON.stringify({ a: '1', b: '2' }) || (annotationsOf(got).a === '1' && annotationsOf(got).b === '2'),
        `the response's annotations are ${JSON.stringify(annotationsOf(got))}, expected a=1 and b=2`, { exchange: x });
      const rv = versionOf(got);
      t.expect(typeof rv === 'string' && rv !== '' && rv !== u.resourceVersion, rv === undefined || rv === '' ? "the response's user carries no resourceVersion" : 'the response carries the old resourceVersion', { exchange: x });
    },
  );

  conformance(
    { id: 'ledger.update-user.persisted', title: 'a later read returns the values and the resourceVersion the update returned', api, operations: ['updateUser', 'getUser'], requirements: ['ledger.update-user.update-persisted'] },
    async (t) => {
      const u = await createUser(t);
      const x = await updateUser(t, u.id, { metadata: { annotations: { k: 'v' } } }, ['metadata.annotations']);
      t.expectStatus(x, 200);
      const after = await readUser(t, u.id);
      t.expect(versionOf(after) === versionOf(userOf(x)), `the update returned resourceVersion ${JSON.stringify(versionOf(userOf(x)))}, a read returns ${JSON.stringify(versionOf(after))}`, { exchange: x });
      t.expect(annotationsOf(after).k === 'v', `the updated annotation reads back as ${JSON.stringify(annotationsOf(after).k)}`);
    },
  );

  conformance(
    { id: 'ledger.update-user.current-version', title: 'accepts an update passing the current resourceVersion', api, operations: ['updateUser'], requirements: ['ledger.update-user.current-resource-version-accepted'] },
    async (t) => {
      const u = await createUser(t);
      for (let i = 0; i < 3; i++) {
        const cur = await readUser(t, u.id);
        const x = await updateUser(t, u.id, { metadata: { resourceVersion: versionOf(cur) ?? '', annotations: { n: String(i) } } }, ['metadata.annotations']);
        t.expectStatus(x, 200, { what: `update ${i + 1} with the current resourceVersion` });
      }
    },
  );

  conformance(
    {
      id: 'ledger.update-user.stale-version',
      title: 'fails an update passing a replaced resourceVersion and leaves the user unchanged',
      api,
      operations: ['updateUser', 'getUser'],
      requirements: ['ledger.update-user.stale-resource-version-fails'],
    },
    async (t) => {
      const u = await createUser(t);
      t.expectStatus(await updateUser(t, u.id, { metadata: { annotations: { n: '1' } } }, ['metadata.annotations']), 200);
      const before = await readUser(t, u.id);
      const x = await updateUser(t, u.id, { metadata: { resourceVersion: u.resourceVersion, annotations: { n: 'stale' } } }, ['metadata.annotations']);
      t.expect(x.status >= 400 && x.status < 500, `a stale update answered ${x.status}`, { exchange: x });
      const after = await readUser(t, u.id);
      t.expect(annotationsOf(after).n === '1' && versionOf(after) === versionOf(before), `the stale update changed the user: ${JSON.stringify(after.metadata)}`);
    },
  );

  conformance(
    {
      id: 'ledger.update-user.stale-version-conflict',
      title: 'answers 409 CONCURRENT_USER_UPDATE_DETECTED to a stale resourceVersion',
      api,
      operations: ['updateUser'],
      requirements: ['ledger.update-user.stale-resource-version-conflict'],
    },
    async (t) => {
      const u = await createUser(t);
      t.expectStatus(await updateUser(t, u.id, { metadata: { annotations: { n: '1' } } }, ['metadata.annotations']), 200);
      const x = await updateUser(t, u.id, { metadata: { resourceVersion: u.resourceVersion, annotations: { n: 'stale' } } }, ['metadata.annotations']);
      t.expectStatus(x, 409);
      t.expect(errorCode(x) === 'CONCURRENT_USER_UPDATE_DETECTED', `expected code CONCURRENT_USER_UPDATE_DETECTED, got ${errorCode(x)}`, { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.update-user.empty-version',
      title: 'accepts an empty or absent resourceVersion whatever updates happened',
      api,
      operations: ['updateUser'],
      requirements: ['ledger.update-user.empty-resource-version-no-check'],
    },
    async (t) => {
      const u = await createUser(t);
      t.expectStatus(await updateUser(t, u.id, { metadata: { resourceVersion: u.resourceVersion, annotations: { n: '1' } } }, ['metadata.annotations']), 200);
      t.expectStatus(await updateUser(t, u.id, { metadata: { resourceVersion: '', annotations: { n: '2' } } }, ['metadata.annotations']), 200, { what: 'update with an empty resourceVersion' });
      t.expectStatus(await updateUser(t, u.id, { primaryParty: '' }, ['primary_party']), 200, { what: 'update without metadata' });
    },
  );

  conformance(
    {
      id: 'ledger.update-user.path-body-mismatch',
      title: "rejects a path user id different from the body's with 400",
      api,
      operations: ['updateUser'],
      requirements: ['ledger.update-user.path-body-id-mismatch-rejected'],
    },
    async (t) => {
      const a = await createUser(t);
      const b = await createUser(t);
      const x = await updateUser(t, b.id, { metadata: { annotations: { touched: 'yes' } } }, ['metadata.annotations'], { pathId: a.id });
      t.expectStatus(x, 400);
    },
  );

  conformance(
    { id: 'ledger.update-user.version-changes', title: 'returns a different resourceVersion after every update', api, operations: ['updateUser'], requirements: ['ledger.users.resource-version-changes'] },
    async (t) => {
      const u = await createUser(t);
      let prev = u.resourceVersion;
      const steps = [
        [['metadata.annotations'], { metadata: { annotations: { a: '1' } } }],
        ...(hasPpa(t) ? ([[['primary_party_authentication'], { primaryPartyAuthentication: true }]] as const) : []),
        [['metadata'], { metadata: { annotations: { a: '' } } }],
      ] as const;
      for (const [paths, user] of steps) {
        const x = await updateUser(t, u.id, user, [...paths]);
        t.expectStatus(x, 200);
        const next = versionOf(userOf(x));
        t.expect(next !== prev, `an update with mask ${JSON.stringify(paths)} kept resourceVersion ${JSON.stringify(prev)}`, { exchange: x });
        prev = next ?? '';
      }
    },
  );

  conformance(
    { id: 'ledger.update-user.version-unique', title: 'never gives a user a resourceVersion it held before', api, operations: ['updateUser', 'getUser'], requirements: ['ledger.users.resource-version-unique'] },
    async (t) => {
      const u = await createUser(t);
      const seen = [u.resourceVersion];
      for (let i = 0; i < 5; i++) {
        t.expectStatus(await updateUser(t, u.id, { metadata: { annotations: { n: String(i) } } }, ['metadata.annotations']), 200);
        const v = versionOf(await readUser(t, u.id)) ?? '';
        t.expect(!seen.includes(v), `resourceVersion ${JSON.stringify(v)} came back after update ${i + 1} (earlier: ${JSON.stringify(seen)})`);
        seen.push(v);
      }
    },
  );
});

// --- annotations: key syntax, size, merge semantics (create and update) ---

describe('PATCH /v2/users/{user-id}: annotations', () => {
  type Judged = number | ((x: Exchange, what: string) => Promise<void> | void);
  /** Sends the annotations on create and on update of a fresh user (the user's creation beside the first). */
  async function sendOnCreateAndUpdate(t: CheckContext, a: Record<string, string>): Promise<[Exchange, Exchange]> {
    const [c, u] = await Promise.all([tryCreateUser(t, { id: t.uniqueName('cc-ann'), metadata: { resourceVersion: '', annotations: a } }), createUser(t)]);
    return [c, await updateUser(t, u.id, { metadata: { annotations: a } }, ['metadata.annotations'])];
  }
  /** `expected`: a status, or how to judge a rejection (the MUST of a 4xx, with or without the SHOULD of its 400) */
  async function judgeOnCreateAndUpdate(t: CheckContext, [c, x]: [Exchange, Exchange], expected: Judged, what: string): Promise<void> {
    const judge = async (e: Exchange, w: string) => (typeof expected === 'number' ? t.expectStatus(e, expected, { what: w }) : expected(e, w));
    await judge(c, `creating a user with ${what}`);
    await judge(x, `updating a user with ${what}`);
  }
  /** Sends the annotations on create and on update of a fresh user; both must answer as `expected`. */
  async function onCreateAndUpdate(t: CheckContext, a: Record<string, string>, expected: Judged, what: string): Promise<void> {
    await judgeOnCreateAndUpdate(t, await sendOnCreateAndUpdate(t, a), expected, what);
  }
  /** a rejection whose exact 400 another check judges with its code (invalid-key-code) */
  const rejectedKey = (t: CheckContext) => (x: Exchange, what: string) => expectRejected(t, x, { what });
  /** a rejection judged as the MUST of a 4xx and the SHOULD of a 400 (ledger.errors.bad-request-400) */
  const rejectedWith400 = (t: CheckContext, requirement: string) => (x: Exchange, what: string) => judgeRejection(t, x, { requirement, badRequest: BAD_REQUEST, what });

  const rejected: Array<[string, string, string, string[], (() => fc.Arbitrary<string>) | undefined]> = [
    ['ledger.annotations.prefix-too-long', 'rejects a key prefix of 254 characters with a 4xx', 'ledger.annotations.prefix-max-253', [`${prefixOfLength(254)}/n`], undefined],
    ['ledger.annotations.prefix-not-dns', 'rejects key prefixes that are not DNS subdomains with a 4xx', 'ledger.annotations.prefix-dns-subdomain', ['-a/n', 'a-/n', 'a..b/n', '.a/n', 'a_b/n', '/n'], () => fc.tuple(invalidPrefix(), annotationName(10)).map(([p, n]) => `${p}/${n}`)],
    ['ledger.annotations.name-empty', 'rejects a key whose name is empty with a 4xx', 'ledger.annotations.name-required', ['example.com/', ''], undefined],
    ['ledger.annotations.name-too-long', 'rejects a key name of 64 characters with a 4xx', 'ledger.annotations.name-max-63', [nameOfLength(64), `example.com/${nameOfLength(64)}`], undefined],
    ['ledger.annotations.name-bad-char', 'rejects key names with characters other than letters, digits, dot, hyphen, underscore with a 4xx', 'ledger.annotations.name-characters', ['a b', 'a*b', 'a@b', 'a:b', 'aéb', 'a+b', 'a~b', 'a#b'], nameWithBadChar],
    ['ledger.annotations.name-bad-end', 'rejects key names that start or end with a non-alphanumeric with a 4xx', 'ledger.annotations.name-alphanumeric-ends', ['.a', 'a.', '-a', 'a-', '_a', 'a_', 'example.com/a_'], nameWithBadEnd],
    ['ledger.annotations.two-slashes', 'rejects keys with more than one slash with a 4xx', 'ledger.annotations.single-slash', ['a/b/c', 'example.com/a/b'], keyWithTwoSlashes],
  ];
  for (const [id, title, requirement, fixed, arb] of rejected) {
    conformance({ id, title, api, operations: ['createUser', 'updateUser'], requirements: [requirement] }, async (t) => {
      // the MUST is a 4xx; the exact 400 with INVALID_ARGUMENT is ledger.annotations.invalid-key-code's (FACTS.md)
      // every fixed key sent at once (each on its own user), then judged in their order, as one after another
      const [sent, u] = await Promise.all([Promise.all(fixed.map((key) => sendOnCreateAndUpdate(t, { [key]: 'v' }))), arb !== undefined ? createUser(t) : undefined]);
      for (const [i, key] of fixed.entries()) await judgeOnCreateAndUpdate(t, sent[i]!, rejectedKey(t), `annotation key ${JSON.stringify(key)}`);
      if (arb !== undefined && u !== undefined) {
        await t.property(arb(), async (key) => {
          const x = await updateUser(t, u.id, { metadata: { annotations: { [key]: 'v' } } }, ['metadata.annotations']);
          expectRejected(t, x, { what: `updating with annotation key ${JSON.stringify(key)}` });
        }, { runs: t.scaledRuns(15), concurrent: true });
      }
    });
  }

  const accepted: Array<[string, string, string, string[], () => fc.Arbitrary<string>]> = [
    ['ledger.annotations.prefixed-key', 'accepts prefixed keys and reads them back unchanged', 'ledger.annotations.prefixed-key-accepted', [`${prefixOfLength(253)}/${nameOfLength(63)}`, 'a/b', 'x-1.example.com/a.b-c_d'], () => fc.tuple(annotationPrefix(), annotationName()).map(([p, n]) => `${p}/${n}`)],
    ['ledger.annotations.unprefixed-key', 'accepts unprefixed keys and reads them back unchanged', 'ledger.annotations.unprefixed-key-accepted', [nameOfLength(63), 'a', 'a.b-c_d', 'A9'], () => annotationName()],
  ];
  for (const [id, title, requirement, fixed, arb] of accepted) {
    conformance({ id, title, api, operations: ['createUser', 'updateUser', 'getUser'], requirements: [requirement] }, async (t) => {
      const fixedMap = Object.fromEntries(fixed.map((k, i) => [k, `v${i}`]));
      // the property's users created beside the fixed keys' user
      const [c, users] = await Promise.all([
        tryCreateUser(t, { id: t.uniqueName('cc-ann'), metadata: { resourceVersion: '', annotations: fixedMap } }),
        Promise.all(Array.from({ length: USER_LANES }, () => createUser(t))),
      ]);
      t.expectStatus(c, 200, { what: `creating a user with annotation keys ${JSON.stringify(fixed)}` });
      const back = annotationsOf(await readUser(t, userOf(c)?.id ?? ''));
      for (const [k, v] of Object.entries(fixedMap)) t.expect(back[k] === v, `key ${JSON.stringify(k)} reads back as ${JSON.stringify(back[k])}`);
      await t.property(fc.tuple(arb(), annotationValue(), fc.nat({ max: USER_LANES - 1 })), async ([key, value, lane]) => {
        const u = users[lane]!;
        const x = await updateUser(t, u.id, { metadata: { annotations: { [key]: value } } }, ['metadata.annotations']);
        t.expectStatus(x, 200, { what: `updating with annotation key ${JSON.stringify(key)}` });
        const got = annotationsOf(await readUser(t, u.id))[key];
        t.expect(got === value, `key ${JSON.stringify(key)} reads back with ${JSON.stringify(got)}, not ${JSON.stringify(value)}`);
      }, { runs: t.scaledRuns(15), concurrent: true, stateKey: ([, , lane]) => String(lane) });
    });
  }

  conformance(
    { id: 'ledger.annotations.invalid-key-code', title: 'answers INVALID_ARGUMENT for an invalid annotation key', api, operations: ['createUser', 'updateUser'], requirements: ['ledger.annotations.invalid-key-code'] },
    async (t) => {
      const u = await createUser(t);
      const keys = ['-a/n', 'a/b/c', '_n'];
      // every key's creation and update at once (updates of the same user, each rejected, so none changes it), judged in order
      const sent = await Promise.all(keys.map((key) => Promise.all([
        tryCreateUser(t, { id: t.uniqueName('cc-ann'), metadata: { resourceVersion: '', annotations: { [key]: 'v' } } }),
        updateUser(t, u.id, { metadata: { annotations: { [key]: 'v' } } }, ['metadata.annotations']),
      ])));
      for (const [i, key] of keys.entries()) {
        for (const x of sent[i]!) {
          t.expectStatus(x, 400);
          t.expect(errorCode(x) === 'INVALID_ARGUMENT', `key ${JSON.stringify(key)}: expected code INVALID_ARGUMENT, got ${errorCode(x)}`, { exchange: x });
        }
      }
    },
  );

  conformance(
    { id: 'ledger.annotations.size-over-limit', title: 'rejects annotations of 262145 UTF-8 bytes with a 4xx, 400 as FACTS.md gives', api, operations: ['createUser', 'updateUser'], requirements: ['ledger.annotations.total-size-limit', BAD_REQUEST] },
    async (t) => {
      const rejected = rejectedWith400(t, 'ledger.annotations.total-size-limit');
      await onCreateAndUpdate(t, annotationsOfSize(MAX_ANNOTATIONS_BYTES + 1), rejected, 'annotations of 262145 bytes');
      // over the limit only together with what the user already has
      const u = await createUser(t, { annotations: annotationsOfSize(1000, { keyPrefix: 'old' }) });
      const x = await updateUser(t, u.id, { metadata: { annotations: annotationsOfSize(MAX_ANNOTATIONS_BYTES - 999) } }, ['metadata.annotations']);
      await rejected(x, 'an update bringing the annotations to 262145 bytes');
    },
  );

  conformance(
    { id: 'ledger.annotations.size-at-limit', title: 'accepts annotations of exactly 262144 UTF-8 bytes', api, operations: ['createUser', 'updateUser'], requirements: ['ledger.annotations.total-size-at-limit-accepted'] },
    async (t) => {
      await onCreateAndUpdate(t, annotationsOfSize(MAX_ANNOTATIONS_BYTES), 200, 'annotations of 262144 bytes');
      const u = await createUser(t, { annotations: annotationsOfSize(1000, { keyPrefix: 'old' }) });
      const x = await updateUser(t, u.id, { metadata: { annotations: annotationsOfSize(MAX_ANNOTATIONS_BYTES - 1000) } }, ['metadata.annotations']);
      t.expectStatus(x, 200, { what: 'an update bringing the annotations to 262144 bytes' });
    },
  );

  conformance(
    { id: 'ledger.annotations.size-utf8', title: 'counts multi-byte characters by their UTF-8 bytes toward the limit', api, operations: ['createUser', 'updateUser'], requirements: ['ledger.annotations.size-counted-in-utf8-bytes', BAD_REQUEST] },
    async (t) => {
      const a = annotationsOfSize(MAX_ANNOTATIONS_BYTES + 1, { multibyte: true });
      t.expect(annotationsBytes(a) === MAX_ANNOTATIONS_BYTES + 1, 'generator: wrong size');
      await onCreateAndUpdate(t, a, rejectedWith400(t, 'ledger.annotations.size-counted-in-utf8-bytes'), 'annotations of 262145 UTF-8 bytes in fewer characters');
      await onCreateAndUpdate(t, annotationsOfSize(MAX_ANNOTATIONS_BYTES, { multibyte: true }), 200, 'annotations of 262144 UTF-8 bytes with multi-byte characters');
    },
  );

  conformance(
    { id: 'ledger.annotations.size-without-deletions', title: 'does not count keys sent with an empty value toward the limit', api, operations: ['updateUser'], requirements: ['ledger.annotations.size-excludes-empty-values'] },
    async (t) => {
      const u = await createUser(t, { annotations: annotationsOfSize(MAX_ANNOTATIONS_BYTES - 300, { keyPrefix: 'keep' }) });
      // 1000 deletions of missing keys of about 300 characters each: over 256 KiB of keys, all with empty values
      const deletions = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`${prefixOfLength(230)}/${nameOfLength(60)}${i}`, '']));
      const x = await updateUser(t, u.id, { metadata: { annotations: { ...deletions, added: 'x' } } }, ['metadata.annotations']);
      t.expectStatus(x, 200);
    },
  );

  conformance(
    { id: 'ledger.annotations.empty-value-on-create', title: 'rejects an annotation with an empty value on creation with a 4xx, 400 as FACTS.md gives', api, operations: ['createUser'], requirements: ['ledger.annotations.empty-value-rejected-on-create', BAD_REQUEST] },
    async (t) => {
      const x = await tryCreateUser(t, { id: t.uniqueName('cc-ann'), metadata: { resourceVersion: '', annotations: { a: 'x', b: '' } } });
      await judgeRejection(t, x, { requirement: 'ledger.annotations.empty-value-rejected-on-create', badRequest: BAD_REQUEST, what: 'creating a user with an annotation of empty value' });
    },
  );

  /** Creates a user with `initial`, applies `update` under `path`, and expects `expected` to read back. */
  async function merge(t: CheckContext, initial: Record<string, string>, update: Record<string, string>, expected: Record<string, string>, path = 'metadata.annotations'): Promise<void> {
    const u = await createUser(t, { annotations: initial });
    const base = annotationsOf(await readUser(t, u.id)); // keys the server may have set itself stay
    const x = await updateUser(t, u.id, { metadata: { annotations: update } }, [path]);
    t.expectStatus(x, 200, { what: `updating annotations ${JSON.stringify(initial)} with ${JSON.stringify(update)} under ${path}` });
    const want = { ...Object.fromEntries(Object.entries(base).filter(([k]) => !(k in initial))), ...expected };
    const got = annotationsOf(await readUser(t, u.id));
    const sort = (o: Record<string, string>) => JSON.stringify(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
    t.expect(sort(got) === sort(want), `annotations ${JSON.stringify(initial)} updated with ${JSON.stringify(update)} under ${path} read back as ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  }

  conformance(
    { id: 'ledger.annotations.empty-value-deletes', title: 'removes a key sent with an empty value in an update', api, operations: ['updateUser'], requirements: ['ledger.annotations.empty-value-deletes'] },
    async (t) => {
      await merge(t, { a: '1', b: '2' }, { a: '' }, { b: '2' });
      await merge(t, { 'x.io/a': '1' }, { 'x.io/a': '' }, {}, 'metadata');
    },
  );

  conformance(
    { id: 'ledger.annotations.delete-missing-key', title: 'accepts deleting a key the user does not have and changes nothing', api, operations: ['updateUser'], requirements: ['ledger.annotations.delete-missing-key-noop'] },
    async (t) => {
      await merge(t, { a: '1' }, { missing: '' }, { a: '1' });
    },
  );

  conformance(
    { id: 'ledger.annotations.upsert', title: 'adds new keys and overwrites existing ones in an update', api, operations: ['updateUser'], requirements: ['ledger.annotations.update-upserts'] },
    async (t) => {
      await merge(t, { a: '1' }, { a: '2', b: '3' }, { a: '2', b: '3' });
    },
  );

  conformance(
    { id: 'ledger.annotations.merge', title: 'keeps the keys an update does not send (random merges)', api, operations: ['updateUser'], requirements: ['ledger.annotations.update-merges'] },
    async (t) => {
      await t.property(fc.tuple(annotations({ maxKeys: 3 }), annotations({ maxKeys: 2 })), async ([initial, update]) => {
        const expected = { ...initial, ...update };
        await merge(t, initial, update, expected);
      }, { runs: t.scaledRuns(10), concurrent: true });
    },
  );

  conformance(
    { id: 'ledger.annotations.empty-map', title: 'leaves annotations unchanged for an empty map under metadata or metadata.annotations', api, operations: ['updateUser'], requirements: ['ledger.annotations.empty-map-unchanged'] },
    async (t) => {
      await merge(t, { a: '1' }, {}, { a: '1' }, 'metadata.annotations');
      await merge(t, { a: '1' }, {}, { a: '1' }, 'metadata');
    },
  );
});
