import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCanton, expectPlain400, ok, right, startLedger, type Json, type LedgerClient } from './ledger-client.js';

let l: LedgerClient;
beforeAll(async () => {
  l = await startLedger();
});
afterAll(async () => l.close());

const ALICE = 'alice::1220aa00000000000000000000000000000000000000000000000000000000000001';

async function createUser(extra: Json = {}, rights: Json[] = []): Promise<Json> {
  const id = l.uid('user');
  return ok(await l.call('POST', '/v2/users', { body: { user: { id, ...extra }, rights } })).user;
}

const patch = (id: string, user: Json, paths: string[], as?: string) =>
  l.call('PATCH', `/v2/users/${encodeURIComponent(id)}`, { body: { user: { id, ...user }, updateMask: { paths } }, as });

describe('version', () => {
  it('advertises the ledger version and the user and vetting limits', async () => {
    const v = ok(await l.call('GET', '/v2/version'));
    expect(v.version).toBe('3.5.0');
    expect(v.features.userManagement).toEqual({ supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 });
    expect(v.features.packageFeature.maxVettedPackagesPageSize).toBe(100);
  });
});

describe('authentication', () => {
  it('answers 401 without a token or with a token of another secret', async () => {
    expectCanton(await l.call('GET', '/v2/users', { as: null }), 401, 'UNAUTHENTICATED');
    expect((await l.call('GET', '/v2/users', { as: null })).body.errorCategory).toBe(6);
    const forged = await l.token('participant_admin', 'another-secret');
    expectCanton(await l.call('GET', '/v2/users', { token: forged }), 401);
    expectCanton(await l.call('GET', '/v2/users', { token: 'not-a-jwt' }), 401);
  });

  it('accepts the websocket-protocol form of the token', async () => {
    const t = await l.token('participant_admin');
    const r = await l.call('GET', '/v2/users/participant_admin', { as: null, headers: { 'sec-websocket-protocol': `daml.ws.auth, jwt.token.${t}` } });
    expect(ok(r).user.id).toBe('participant_admin');
  });

  it('refuses unknown and deactivated users with 403 on every endpoint', async () => {
    expectCanton(await l.call('GET', '/v2/version', { as: 'nobody-at-all' }), 403, 'PERMISSION_DENIED');
    const u = await createUser({}, [right.actAs(ALICE)]);
    expect(ok(await l.call('GET', `/v2/users/${u.id}`, { as: u.id })).user.id).toBe(u.id);
    ok(await patch(u.id, { isDeactivated: true }, ['is_deactivated']));
    for (const [m, p] of [['GET', `/v2/users/${u.id}`], ['GET', '/v2/version'], ['GET', '/v2/state/ledger-end'], ['GET', `/v2/users/${u.id}/rights`]] as const) {
      expectCanton(await l.call(m, p, { as: u.id }), 403);
    }
    ok(await patch(u.id, { isDeactivated: false }, ['is_deactivated']));
    ok(await l.call('GET', '/v2/version', { as: u.id }));
  });

  it('lets a plain user read itself but not manage users', async () => {
    const u = await createUser();
    ok(await l.call('GET', `/v2/users/${u.id}/rights`, { as: u.id }));
    expectCanton(await l.call('GET', '/v2/users/participant_admin', { as: u.id }), 403, 'PERMISSION_DENIED');
    expectCanton(await l.call('GET', '/v2/users', { as: u.id }), 403);
    expectCanton(await l.call('POST', '/v2/users', { as: u.id, body: { user: { id: l.uid('x') } } }), 403);
    expectCanton(await l.call('POST', `/v2/users/${u.id}/rights`, { as: u.id, body: { userId: u.id, rights: [right.admin()] } }), 403);
    expect((await l.call('GET', '/v2/users', { as: u.id })).body.errorCategory).toBe(7);
  });

  it('lets an identity provider admin manage its provider only, without granting ParticipantAdmin', async () => {
    const idpAdmin = await createUser({}, [right.idpAdmin()]);
    ok(await l.call('POST', '/v2/users', { as: idpAdmin.id, body: { user: { id: l.uid('idp-made') } } }));
    expectCanton(await l.call('POST', '/v2/users', { as: idpAdmin.id, body: { user: { id: l.uid('x') }, rights: [right.admin()] } }), 403);
    expectCanton(await l.call('POST', '/v2/users', { as: idpAdmin.id, body: { user: { id: l.uid('x'), identityProviderId: 'reference-idp' } } }), 403);
  });
});

describe('create, read, delete users', () => {
  it('creates a user with a fresh resource version and reads it back', async () => {
    const u = await createUser({ primaryParty: ALICE, metadata: { annotations: { 'example.com/team': 'a', owner: 'b' } } }, [right.actAs(ALICE)]);
    expect(u.metadata.resourceVersion).not.toBe('');
    expect(u.primaryParty).toBe(ALICE);
    expect(u.isDeactivated).toBe(false);
    expect(u.identityProviderId).toBe('');
    expect(ok(await l.call('GET', `/v2/users/${u.id}`)).user).toEqual(u);
    expect(ok(await l.call('GET', `/v2/users/${u.id}/rights`)).rights).toEqual([right.actAs(ALICE)]);
  });

  it('rejects an existing id with 409 USER_ALREADY_EXISTS', async () => {
    const u = await createUser();
    expectCanton(await l.call('POST', '/v2/users', { body: { user: { id: u.id } } }), 409, 'USER_ALREADY_EXISTS');
  });

  it('validates the user id', async () => {
    for (const id of ['', 'a b', 'x'.repeat(129), 'é', 'a/b']) {
      expectCanton(await l.call('POST', '/v2/users', { body: { user: { id } } }), 400, 'INVALID_FIELD');
    }
    const special = `ok@^$.!\`-#+'~_|:()${l.uid('')}`;
    ok(await l.call('POST', '/v2/users', { body: { user: { id: special } } }));
    ok(await l.call('POST', '/v2/users', { body: { user: { id: 'y'.repeat(120) + l.uid('').slice(-8) } } }));
  });

  it('rejects a resource version, an empty annotation value or a bad key on create', async () => {
    expectCanton(await l.call('POST', '/v2/users', { body: { user: { id: l.uid('u'), metadata: { resourceVersion: '7' } } } }), 400);
    expectCanton(await l.call('POST', '/v2/users', { body: { user: { id: l.uid('u'), metadata: { annotations: { k: '' } } } } }), 400);
    expectCanton(await l.call('POST', '/v2/users', { body: { user: { id: l.uid('u'), metadata: { annotations: { '-bad': 'v' } } } } }), 400, 'INVALID_ARGUMENT');
  });

  it('answers malformed bodies with 400 text/plain and ignores unknown fields', async () => {
    expectPlain400(await l.call('POST', '/v2/users', { body: '{"user":' }));
    expectPlain400(await l.call('POST', '/v2/users', { body: {} }));
    expectPlain400(await l.call('POST', '/v2/users', { body: { user: { id: 5 } } }));
    expectPlain400(await l.call('POST', '/v2/users', { body: { user: { id: l.uid('u'), isDeactivated: 'yes' } } }));
    expectPlain400(await l.call('POST', '/v2/users', { body: [1, 2] }));
    ok(await l.call('POST', '/v2/users', { body: { user: { id: l.uid('u'), surprise: 1 }, extra: true } }));
  });

  it('deletes a user; unknown users are 404 USER_NOT_FOUND', async () => {
    const u = await createUser();
    ok(await l.call('DELETE', `/v2/users/${u.id}`));
    expectCanton(await l.call('GET', `/v2/users/${u.id}`), 404, 'USER_NOT_FOUND');
    expectCanton(await l.call('DELETE', `/v2/users/${u.id}`), 404, 'USER_NOT_FOUND');
  });
});

describe('list users', () => {
  it('pages through all users in id order', async () => {
    for (let i = 0; i < 5; i++) await createUser();
    const all: string[] = ok(await l.call('GET', '/v2/users')).users.map((u: Json) => u.id);
    const seen: string[] = [];
    let token = '';
    do {
      const page = ok(await l.call('GET', `/v2/users?pageSize=2&pageToken=${encodeURIComponent(token)}`));
      expect(page.users.length).toBeLessThanOrEqual(2);
      seen.push(...page.users.map((u: Json) => u.id));
      token = page.nextPageToken;
    } while (token !== '');
    expect(seen).toEqual(all);
    expect([...all].sort()).toEqual(all);
  });

  it('caps a page size above the maximum and rejects a negative one or a bad token', async () => {
    ok(await l.call('GET', '/v2/users?pageSize=5000'));
    expectCanton(await l.call('GET', '/v2/users?pageSize=-1'), 400);
    expectCanton(await l.call('GET', '/v2/users?pageToken=%21%21not-a-token'), 400);
    expectPlain400(await l.call('GET', '/v2/users?pageSize=ten'));
  });
});

describe('update user', () => {
  it('rejects an empty mask, an unknown path and a duplicated path', async () => {
    const u = await createUser();
    for (const paths of [[], ['nope'], ['primary_party', 'primary_party'], ['primaryParty']]) {
      expectCanton(await patch(u.id, {}, paths), 400, 'INVALID_USER_UPDATE_REQUEST');
    }
    expectPlain400(await l.call('PATCH', `/v2/users/${u.id}`, { body: { user: { id: u.id } } }));
  });

  it('rejects a body id different from the path and answers 404 for unknown users', async () => {
    const u = await createUser();
    expectCanton(await l.call('PATCH', `/v2/users/${u.id}`, { body: { user: { id: `${u.id}x` }, updateMask: { paths: ['primary_party'] } } }), 400);
    expectCanton(await patch(l.uid('ghost'), {}, ['primary_party']), 404, 'USER_NOT_FOUND');
  });

  it('changes only the masked modifiable fields and a unique resource version every time', async () => {
    const u = await createUser({ primaryParty: ALICE, metadata: { annotations: { keep: '1' } } });
    const versions = new Set([u.metadata.resourceVersion]);
    const a = ok(await patch(u.id, { primaryParty: '', isDeactivated: true, metadata: { annotations: { x: 'y' } } }, ['primary_party'])).user;
    expect(a.primaryParty).toBe('');
    expect(a.isDeactivated).toBe(false);
    expect(a.metadata.annotations).toEqual({ keep: '1' });
    versions.add(a.metadata.resourceVersion);
    const b = ok(await patch(u.id, {}, ['id', 'metadata.resource_version', 'identity_provider_id'])).user;
    expect({ ...b, metadata: { ...b.metadata, resourceVersion: '' } }).toEqual({ ...a, metadata: { ...a.metadata, resourceVersion: '' } });
    versions.add(b.metadata.resourceVersion);
    expect(versions.size).toBe(3);
  });

  it('merges annotations: a value upserts, an empty value deletes', async () => {
    const u = await createUser({ metadata: { annotations: { a: '1', b: '2' } } });
    const r = ok(await patch(u.id, { metadata: { annotations: { a: '', c: '3', missing: '' } } }, ['metadata.annotations'])).user;
    expect(r.metadata.annotations).toEqual({ b: '2', c: '3' });
    const same = ok(await patch(u.id, { metadata: { annotations: {} } }, ['metadata'])).user;
    expect(same.metadata.annotations).toEqual({ b: '2', c: '3' });
  });

  it('enforces annotation key syntax and the 256 KiB size limit', async () => {
    const u = await createUser();
    for (const key of ['', 'a/b/c', '/name', 'bad_/x', 'x'.repeat(64), `${'a'.repeat(254)}/n`, '-a', 'a-']) {
      expectCanton(await patch(u.id, { metadata: { annotations: { [key]: 'v' } } }, ['metadata.annotations']), 400, 'INVALID_ARGUMENT');
    }
    ok(await patch(u.id, { metadata: { annotations: { 'a.b-c.d/N_a.me-1': 'v', [`${'a'.repeat(63)}`]: 'v' } } }, ['metadata.annotations']));
    // exactly at the limit (key 'k' plus value), on a user without other annotations
    const big = 'v'.repeat(262144 - 1);
    const w = await createUser();
    ok(await patch(w.id, { metadata: { annotations: { k: big } } }, ['metadata.annotations']));
    expectCanton(await patch(w.id, { metadata: { annotations: { k2: 'vv' } } }, ['metadata.annotations']), 400);
    expectCanton(await patch(u.id, { metadata: { annotations: { k: `${big}vv` } } }, ['metadata.annotations']), 400, 'INVALID_ARGUMENT');
  });

  it('detects a stale resource version with 409 and skips the check when it is empty', async () => {
    const u = await createUser();
    const v1 = u.metadata.resourceVersion;
    const updated = ok(await patch(u.id, { metadata: { resourceVersion: v1 }, primaryParty: ALICE }, ['primary_party'])).user;
    expectCanton(await patch(u.id, { metadata: { resourceVersion: v1 }, primaryParty: '' }, ['primary_party']), 409, 'CONCURRENT_USER_UPDATE_DETECTED');
    ok(await patch(u.id, { metadata: { resourceVersion: '' }, primaryParty: '' }, ['primary_party']));
    expect(updated.metadata.resourceVersion).not.toBe(v1);
  });

  it('does not let the caller deactivate itself', async () => {
    expectCanton(await patch('participant_admin', { isDeactivated: true }, ['is_deactivated']), 400);
  });
});

describe('user rights', () => {
  it('grants exactly the new rights, idempotently, without changing the resource version', async () => {
    const u = await createUser({}, [right.readAs(ALICE)]);
    const grant = (rights: Json[]) => l.call('POST', `/v2/users/${u.id}/rights`, { body: { userId: u.id, rights } });
    expect(ok(await grant([right.readAs(ALICE), right.actAs(ALICE), right.readAny()])).newlyGrantedRights).toEqual([right.actAs(ALICE), right.readAny()]);
    expect(ok(await grant([right.actAs(ALICE)])).newlyGrantedRights).toEqual([]);
    expect(ok(await l.call('GET', `/v2/users/${u.id}`)).user.metadata.resourceVersion).toBe(u.metadata.resourceVersion);
    expect(ok(await l.call('GET', `/v2/users/${u.id}/rights`)).rights).toHaveLength(3);
  });

  it('rejects the Empty right, a mismatched user id and unknown users', async () => {
    const u = await createUser();
    expectCanton(await l.call('POST', `/v2/users/${u.id}/rights`, { body: { userId: u.id, rights: [right.empty()] } }), 400);
    expectCanton(await l.call('POST', `/v2/users/${u.id}/rights`, { body: { userId: 'someone-else', rights: [] } }), 400);
    const ghost = l.uid('ghost');
    expectCanton(await l.call('POST', `/v2/users/${ghost}/rights`, { body: { userId: ghost, rights: [right.readAny()] } }), 404, 'USER_NOT_FOUND');
    expectPlain400(await l.call('POST', `/v2/users/${u.id}/rights`, { body: { rights: [] } }));
    expectPlain400(await l.call('POST', `/v2/users/${u.id}/rights`, { body: { userId: u.id, rights: [{ kind: { Bogus: {} } }] } }));
  });

  it('refuses more rights than maxRightsPerUser', async () => {
    const u = await createUser();
    const many = Array.from({ length: 1001 }, (_, i) => right.readAs(`p${i}::1220ab`));
    expectCanton(await l.call('POST', `/v2/users/${u.id}/rights`, { body: { userId: u.id, rights: many } }), 400, 'TOO_MANY_USER_RIGHTS');
    expect(ok(await l.call('POST', `/v2/users/${u.id}/rights`, { body: { userId: u.id, rights: many.slice(0, 1000) } })).newlyGrantedRights).toHaveLength(1000);
  });

  it('revokes rights and reports the ones actually revoked', async () => {
    const u = await createUser({}, [right.actAs(ALICE), right.readAny()]);
    const revoke = (rights: Json[]) => l.call('PATCH', `/v2/users/${u.id}/rights`, { body: { userId: u.id, rights } });
    expect(ok(await revoke([right.actAs(ALICE), right.admin()])).newlyRevokedRights).toEqual([right.actAs(ALICE)]);
    expect(ok(await revoke([right.actAs(ALICE)])).newlyRevokedRights).toEqual([]);
    expect(ok(await l.call('GET', `/v2/users/${u.id}/rights`)).rights).toEqual([right.readAny()]);
  });
});
