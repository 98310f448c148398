import { describe } from 'vitest';
import fc from 'fast-check';
import { conformance, waitingLanes } from '../../../harness/conformance.js';
import { judgeBadRequests, judgeRejection } from '../../rejections.js';
import { mayAnswerAnywhere } from '../../../harness/judging/checks.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { createUser, existingParties, existingParty, stableDar } from '../../../harness/fixtures/ledger.js';
import {
  allRightVariants, annotationsOf, createAdminUser, errorCode, grantRights, listRights, newlyGranted, readUser, right, rightKey, rightKeys, tokenFor, tryCreateUser, updateUser, userLimits, userOf, versionOf,
} from '../../../harness/fixtures/ledger-users.js';

const api = 'ledger' as const;
/** Bound of the parties the rights-limit check allocates (3 rights each): enough for the default limit of 1000. */
const MAX_PARTIES_FOR_LIMIT = 400;

const BAD_REQUEST = 'ledger.errors.bad-request-400';
/** The rights limit on POST /v2/users, judged beside the grant's by the check that allocates the parties for it. */
const CREATE_LIMIT = 'ledger.create-user.rights-limit';

describe('POST /v2/users/{user-id}/rights', () => {
  conformance(
    { id: 'ledger.grant-user-rights.schema', title: 'answers 200 with the list of newly granted rights', api, operations: ['grantUserRights'], requirements: ['ledger.grant-user-rights.response-schema'] },
    async (t) => {
      const u = await createUser(t);
      const x = await grantRights(t, u.id, [right.readAsAnyParty()]);
      t.expectStatus(x, 200);
    },
  );

  conformance(
    {
      id: 'ledger.grant-user-rights.newly-granted',
      title: 'lists exactly the requested rights the user did not hold',
      api,
      operations: ['grantUserRights', 'createUser'],
      requirements: ['ledger.grant-user-rights.newly-granted'],
    },
    async (t) => {
      const party = await existingParty(t);
      const variants = allRightVariants(party);
      const arb = fc.tuple(fc.subarray(variants), fc.subarray(variants, { minLength: 1 })).filter(([held, req]) => req.some((r) => !held.includes(r)));
      await t.property(arb, async ([held, requested]) => {
        const u = await createUser(t, { rights: held });
        const x = await grantRights(t, u.id, requested);
        t.expectStatus(x, 200);
        const want = requested.filter((r) => !held.includes(r)).map(rightKey).sort();
        const got = rightKeys(newlyGranted(x));
        t.expect(JSON.stringify(got) === JSON.stringify(want), `holding ${JSON.stringify(held.map(rightKey))} and requesting ${JSON.stringify(requested.map(rightKey))}: newlyGrantedRights ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`, { exchange: x });
        await t.clientFor('ledger').call('deleteUser', { params: { 'user-id': u.id }, conform: false });
      }, { runs: t.scaledRuns(15), concurrent: true });
    },
  );

  conformance(
    { id: 'ledger.grant-user-rights.regrant', title: 'answers an empty newlyGrantedRights when every requested right is held', api, operations: ['grantUserRights'], requirements: ['ledger.grant-user-rights.regrant-empty'] },
    async (t) => {
      const [party, u] = await Promise.all([existingParty(t), createUser(t)]);
      const rs = allRightVariants(party);
      t.expectStatus(await grantRights(t, u.id, rs), 200);
      const x = await grantRights(t, u.id, rs);
      t.expectStatus(x, 200);
      t.expect(newlyGranted(x).length === 0, `re-granting answered newlyGrantedRights ${JSON.stringify(rightKeys(newlyGranted(x)))}`, { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.grant-user-rights.persisted',
      title: 'stores every granted right, each variant round-tripping through the rights list',
      api,
      operations: ['grantUserRights', 'listUserRights'],
      requirements: ['ledger.grant-user-rights.rights-persisted'],
    },
    async (t) => {
      const [party, u] = await Promise.all([existingParty(t), createUser(t)]);
      const rs = allRightVariants(party);
      t.expectStatus(await grantRights(t, u.id, rs), 200);
      const { x, rights } = await listRights(t, u.id);
      t.expectStatus(x, 200);
      const got = new Set((rights ?? []).map(rightKey));
      const missing = rs.map(rightKey).filter((k) => !got.has(k));
      t.expect(missing.length === 0, `the rights list lacks ${JSON.stringify(missing)}`, { exchange: x });
    },
  );

  conformance(
    { id: 'ledger.grant-user-rights.version-unchanged', title: "leaves the user's resourceVersion unchanged", api, operations: ['grantUserRights', 'getUser'], requirements: ['ledger.grant-user-rights.resource-version-unchanged'] },
    async (t) => {
      const [party, u] = await Promise.all([existingParty(t), createUser(t)]);
      const before = versionOf(await readUser(t, u.id));
      t.expectStatus(await grantRights(t, u.id, [right.actAs(party), right.readAsAnyParty()]), 200);
      const after = versionOf(await readUser(t, u.id));
      t.expect(before === after, `granting changed resourceVersion from ${JSON.stringify(before)} to ${JSON.stringify(after)}`);
    },
  );

  conformance(
    { id: 'ledger.grant-user-rights.rights-optional', title: 'accepts a grant without rights with an empty newlyGrantedRights', api, operations: ['grantUserRights'], requirements: ['ledger.grant-user-rights.rights-optional'] },
    async (t) => {
      const u = await createUser(t);
      const x = await t.call('grantUserRights', { params: { 'user-id': u.id }, json: { userId: u.id } });
      t.expectStatus(x, 200);
      t.expect(newlyGranted(x).length === 0, `newlyGrantedRights is ${JSON.stringify(newlyGranted(x))}`, { exchange: x });
    },
  );

  conformance(
    { id: 'ledger.grant-user-rights.empty-right', title: 'rejects the Empty right with 400', api, operations: ['grantUserRights'], requirements: ['ledger.grant-user-rights.empty-right-rejected'] },
    async (t) => {
      const u = await createUser(t);
      t.expectStatus(await grantRights(t, u.id, [right.empty()]), 400);
      t.expectStatus(await grantRights(t, u.id, [right.readAsAnyParty(), right.empty()]), 400);
    },
  );

  conformance(
    {
      id: 'ledger.grant-user-rights.too-many',
      title: 'accepts a grant up to exactly maxRightsPerUser rights and rejects one right more with 400 TOO_MANY_USER_RIGHTS',
      api,
      operations: ['grantUserRights', 'getVersion'],
      requirements: ['ledger.grant-user-rights.too-many-rights-rejected', 'ledger.grant-user-rights.rights-limit-reachable', CREATE_LIMIT],
    },
    async (t) => {
      const limits = await userLimits(t);
      if (limits.maxRightsPerUser === undefined) t.skip('GET /v2/version does not advertise maxRightsPerUser');
      const maxRightsPerUser = limits.maxRightsPerUser ?? 0;
      if (maxRightsPerUser === 0) t.unsupported('maxRightsPerUser is 0: the target sets no limit');
      // maxRightsPerUser + 1 distinct rights naming only parties that exist (a participant refuses rights for unknown
      // parties before it counts them): the four rights without a party, and three per allocated party
      const plain = [right.executeAsAnyParty(), right.readAsAnyParty(), right.identityProviderAdmin(), right.participantAdmin()];
      const partiesNeeded = Math.max(0, Math.ceil((maxRightsPerUser + 1 - plain.length) / 3));
      if (partiesNeeded > MAX_PARTIES_FOR_LIMIT) t.skip(`maxRightsPerUser ${maxRightsPerUser} needs ${partiesNeeded} parties to exceed, more than the ${MAX_PARTIES_FOR_LIMIT} this check allocates`);
      // hundreds of allocations where the limit is a participant's default (1000): as many at once as the run allows
      const [parties, u] = await Promise.all([existingParties(t, partiesNeeded, 'limit', Math.max(16, waitingLanes(t.config))), createUser(t)]);
      const rights = [...plain, ...parties.flatMap((p) => [right.actAs(p), right.executeAs(p), right.readAs(p)])].slice(0, maxRightsPerUser + 1);
      // the boundary and one past it, every run: the user (created with no right) is granted exactly the limit, then one
      // right more; where the limit is refused, one past it is still asked for, by a fresh user in one grant
      const atLimit = await grantRights(t, u.id, rights.slice(0, maxRightsPerUser));
      const reached = await t.judge('ledger.grant-user-rights.rights-limit-reachable', () =>
        t.expectStatus(atLimit, 200, { requirement: 'ledger.grant-user-rights.rights-limit-reachable', what: `a grant of exactly maxRightsPerUser (${maxRightsPerUser}) rights to a user holding none` }),
      );
      const x = reached ? await grantRights(t, u.id, rights.slice(maxRightsPerUser)) : await grantRights(t, (await createUser(t)).id, rights);
      const what = reached ? `a grant of one right to a user holding maxRightsPerUser (${maxRightsPerUser})` : `a grant of maxRightsPerUser + 1 (${maxRightsPerUser + 1}) rights`;
      // the same limit on rights given with the user's creation: exactly the limit is accepted, one right more refused
      await t.judge(CREATE_LIMIT, async () => {
        const atMax = await tryCreateUser(t, { id: t.uniqueName('cc-maxrights') }, rights.slice(0, maxRightsPerUser));
        t.expectStatus(atMax, 200, { requirement: CREATE_LIMIT, what: `creating a user with exactly maxRightsPerUser (${maxRightsPerUser}) rights` });
        const over = await tryCreateUser(t, { id: t.uniqueName('cc-overrights') }, rights);
        t.expectStatus(over, 400, { requirement: CREATE_LIMIT, what: `creating a user with maxRightsPerUser + 1 (${maxRightsPerUser + 1}) rights` });
        t.expect(errorCode(over) === 'TOO_MANY_USER_RIGHTS', `creating a user with maxRightsPerUser + 1 rights: expected code TOO_MANY_USER_RIGHTS, got ${errorCode(over)}`, { requirement: CREATE_LIMIT, exchange: over });
      });
      t.expectStatus(x, 400, { what });
      t.expect(errorCode(x) === 'TOO_MANY_USER_RIGHTS', `${what}: expected code TOO_MANY_USER_RIGHTS, got ${errorCode(x)}`, { exchange: x });
    },
  );

  conformance(
    { id: 'ledger.rights.unknown-kind', title: 'rejects a right of an unknown kind with a 4xx, 400 as FACTS.md gives', api, operations: ['grantUserRights'], requirements: ['ledger.rights.unknown-kind-rejected', BAD_REQUEST] },
    async (t) => {
      const u = await createUser(t);
      const seen: Array<{ x: Exchange; what: string }> = [];
      for (const kind of [{ CanSing: { value: {} } }, { canActAs: { value: { party: 'p' } } }]) {
        const what = `granting right kind ${Object.keys(kind)[0]}`;
        await judgeRejection(t, await grantRights(t, u.id, [{ kind }]), { requirement: 'ledger.rights.unknown-kind-rejected', badRequest: BAD_REQUEST, what, deferBadRequest: seen });
      }
      // no variant at all: a right without kind, and one whose kind names none (read leniently as the empty message)
      // (a kind of null, a non-object value, is read as the empty message too: FACTS.md)
      for (const [r, what] of [[{}, 'granting a right without kind'], [{ kind: {} }, 'granting a right whose kind names no variant'], [{ kind: null }, 'granting a right whose kind is null']] as const) {
        await judgeRejection(t, await grantRights(t, u.id, [r]), { requirement: 'ledger.rights.unknown-kind-rejected', badRequest: BAD_REQUEST, what, deferBadRequest: seen });
      }
      await judgeBadRequests(t, BAD_REQUEST, seen);
    },
  );

  conformance(
    { id: 'ledger.rights.party-required', title: 'rejects CanActAs, CanExecuteAs and CanReadAs without value.party with a 4xx, 400 as FACTS.md gives', api, operations: ['grantUserRights'], requirements: ['ledger.rights.party-required', BAD_REQUEST] },
    async (t) => {
      const u = await createUser(t);
      const seen: Array<{ x: Exchange; what: string }> = [];
      for (const name of ['CanActAs', 'CanExecuteAs', 'CanReadAs']) {
        await judgeRejection(t, await grantRights(t, u.id, [{ kind: { [name]: { value: {} } } }]), { requirement: 'ledger.rights.party-required', badRequest: BAD_REQUEST, what: `granting ${name} without a party`, deferBadRequest: seen });
      }
      await judgeBadRequests(t, BAD_REQUEST, seen);
    },
  );

  conformance(
    {
      id: 'ledger.rights.identity-provider-admin',
      title: 'lets an IdentityProviderAdmin update and grant rights to users of its identity provider',
      api,
      operations: ['updateUser', 'grantUserRights'],
      requirements: ['ledger.rights.identity-provider-admin'],
    },
    async (t) => {
      const admin = await createUser(t, { rights: [right.identityProviderAdmin()] });
      const auth = tokenFor(t, admin.id);
      const target = await createUser(t);
      t.expectStatus(await updateUser(t, target.id, { metadata: { annotations: { by: 'idp-admin' } } }, ['metadata.annotations'], { auth }), 200, { what: 'update by an IdentityProviderAdmin' });
      t.expectStatus(await grantRights(t, target.id, [right.readAsAnyParty()], auth), 200, { what: 'grant by an IdentityProviderAdmin' });
    },
  );

  conformance(
    {
      id: 'ledger.rights.identity-provider-admin-other-provider',
      title: 'refuses an IdentityProviderAdmin that updates or grants rights to a user of another identity provider with a 4xx, leaving the user unchanged',
      api,
      operations: ['updateUser', 'grantUserRights', 'getUser'],
      requirements: ['ledger.rights.identity-provider-admin-other-provider'],
    },
    async (t) => {
      // the administrator belongs to the default identity provider (a token without an issuer names it); the user to
      // another one the participant has configured, which no endpoint of SPEC.md creates: a fixture names it
      const idp = t.fixture<string>('otherIdentityProviderId') ?? t.skip('no fixtures.otherIdentityProviderId: an identity provider other than the default one, configured on the participant');
      const admin = await createUser(t, { rights: [right.identityProviderAdmin()] });
      const auth = tokenFor(t, admin.id);
      const target = await createUser(t, { identityProviderId: idp, annotations: { state: 'before' } });
      // SPEC.md names no status for the refusal: any 4xx (403, or 404 for a user the caller cannot see); an overload
      // answer judges nothing
      const refused = (x: Exchange, what: string) => {
        if (mayAnswerAnywhere('ledger', x.status)) t.expectStatus(x, 403, { what });
        t.expect(x.status >= 400 && x.status < 500, `${what} answered ${x.status}, not a 4xx refusal`, { exchange: x });
      };
      // the request names the administrator's own identity provider, where the user is not: a request naming the user's
      // provider is not sent, since a participant checks the provider a request names against the caller's only when
      // the caller's token names one, and a default-provider token names none
      for (const claimed of ['']) {
        const u = await t.call('updateUser', { params: { 'user-id': target.id }, json: { user: { id: target.id, identityProviderId: claimed, metadata: { resourceVersion: '', annotations: { state: 'after' } } }, updateMask: { paths: ['metadata.annotations'] } }, auth });
        refused(u, `an update naming identity provider ${JSON.stringify(claimed)} by an IdentityProviderAdmin of the default one`);
        const g = await t.call('grantUserRights', { params: { 'user-id': target.id }, json: { userId: target.id, rights: [right.readAsAnyParty()], identityProviderId: claimed }, auth });
        refused(g, `a grant naming identity provider ${JSON.stringify(claimed)} by an IdentityProviderAdmin of the default one`);
      }
      // FACTS.md: the user is read naming its provider as `identity-provider-id`; the rights listing acts within the
      // default provider only (a user of another one is not found there), so the refused grants are judged by their
      // statuses alone
      const read = await t.call('getUser', { params: { 'user-id': target.id }, query: { 'identity-provider-id': idp } });
      t.expectStatus(read, 200, { what: 'reading the user back as participant admin' });
      t.expect(annotationsOf(userOf(read)).state === 'before', `the user's annotations changed to ${JSON.stringify(annotationsOf(userOf(read)))} although every update was refused`, { exchange: read });
    },
  );

  conformance(
    {
      id: 'ledger.rights.identity-provider-admin-participant-admin',
      title: 'refuses an IdentityProviderAdmin that grants ParticipantAdmin with a 4xx, and the user does not get it',
      api,
      operations: ['grantUserRights', 'listUserRights'],
      requirements: ['ledger.rights.identity-provider-admin-grants-no-participant-admin'],
    },
    async (t) => {
      const admin = await createUser(t, { rights: [right.identityProviderAdmin()] });
      const target = await createUser(t);
      const x = await grantRights(t, target.id, [right.participantAdmin()], tokenFor(t, admin.id));
      // administering the participant node is beyond the provider an IdentityProviderAdmin administers: any 4xx refuses
      // it (403 or 400); an overload answer judges nothing
      if (mayAnswerAnywhere('ledger', x.status)) t.expectStatus(x, 403, { what: 'a grant of ParticipantAdmin by an IdentityProviderAdmin' });
      t.expect(x.status >= 400 && x.status < 500, `a grant of ParticipantAdmin by an IdentityProviderAdmin answered ${x.status}, not a 4xx refusal`, { exchange: x });
      const { x: listed, rights } = await listRights(t, target.id);
      t.expectStatus(listed, 200, { what: 'listing the user\'s rights as participant admin' });
      t.expect(!(rights ?? []).map(rightKey).includes('ParticipantAdmin'), 'the user holds ParticipantAdmin after a refused grant by an IdentityProviderAdmin', { exchange: listed });
    },
  );

  conformance(
    {
      id: 'ledger.rights.participant-admin',
      title: 'lets a ParticipantAdmin administer users and upload packages',
      api,
      operations: ['updateUser', 'grantUserRights', 'uploadPackage'],
      requirements: ['ledger.rights.participant-admin'],
    },
    async (t) => {
      const admin = await createAdminUser(t);
      const auth = tokenFor(t, admin.id);
      const target = await createUser(t);
      t.expectStatus(await updateUser(t, target.id, { metadata: { annotations: { by: 'admin' } } }, ['metadata.annotations'], { auth }), 200, { what: 'update by a ParticipantAdmin' });
      t.expectStatus(await grantRights(t, target.id, [right.readAsAnyParty()], auth), 200, { what: 'grant by a ParticipantAdmin' });
      // a DAR-shaped archive uploaded without vetting: whatever the verdict on the archive, the caller is not refused
      // for lack of authorization
      const up = await t.call('uploadPackage', { body: stableDar(t, 'admin').bytes, query: { vetAllPackages: 'false' }, headers: { 'content-type': 'application/octet-stream' }, auth });
      t.expect(up.status !== 401 && up.status !== 403, `a package upload by a ParticipantAdmin was refused with ${up.status}`, { exchange: up });
    },
  );
});
