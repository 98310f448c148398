import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { darArchive, expectCanton, expectPlain400, ok, startLedger, zipArchive, type Json, type LedgerClient } from './ledger-client.js';

let l: LedgerClient;
let SYNC0: string;
let SYNC1: string;
const P1 = 'PAR::participant1::1220aa00000000000000000000000000000000000000000000000000000000000001';
const P2 = 'PAR::participant2::1220cc00000000000000000000000000000000000000000000000000000000000002';

beforeAll(async () => {
  l = await startLedger();
  const sync = ok(await l.call('GET', '/v2/state/connected-synchronizers')).connectedSynchronizers.map((s: Json) => s.synchronizerId);
  [SYNC0, SYNC1] = sync;
});
afterAll(async () => l.close());

const list = (body: Json) => l.call('POST', '/v2/package-vetting/list', { body });
const hex = (s: string) => createHash('sha256').update(s).digest('hex');

function expectSortedPackages(packages: Json[]): void {
  const key = (p: Json) => [p.packageName === undefined ? 0 : 1, p.packageName ?? '', (p.packageVersion ?? '').split('.').map((x: string) => x.padStart(8, '0')).join('.'), p.packageId].join('\u0000');
  const keys = packages.map(key);
  expect(keys).toEqual([...keys].sort());
}

describe('package vetting', () => {
  it('lists records of two synchronizers and two participants, sorted, with sorted packages', async () => {
    const r = ok(await list({}));
    expect(r.nextPageToken).toBe('');
    expect(r.vettedPackages.map((v: Json) => [v.synchronizerId, v.participantId])).toEqual([
      [SYNC0, P1],
      [SYNC0, P2],
      [SYNC1, P1],
      [SYNC1, P2],
    ]);
    for (const v of r.vettedPackages) {
      expect(v.packages.length).toBeGreaterThan(0);
      expect(Number.isInteger(v.topologySerial)).toBe(true);
      expectSortedPackages(v.packages);
    }
    const all = new Set(r.vettedPackages.flatMap((v: Json) => v.packages.map((p: Json) => p.packageId)));
    expect(all.size).toBeGreaterThanOrEqual(25);
    // packages of the other participant that were never uploaded here carry no name
    expect(r.vettedPackages[1].packages.some((p: Json) => p.packageName === undefined)).toBe(true);
    expect(r.vettedPackages[0].packages.every((p: Json) => typeof p.packageName === 'string' && typeof p.packageVersion === 'string')).toBe(true);
  });

  it('answers the deprecated GET with a JSON body like the POST', async () => {
    const body = { topologyStateFilter: { participantIds: [P2] } };
    const viaGet = ok(await l.call('GET', '/v2/package-vetting', { body }));
    expect(viaGet).toEqual(ok(await list(body)));
    expect(viaGet.vettedPackages.map((v: Json) => v.participantId)).toEqual([P2, P2]);
    // no body at all is an empty request
    expect(ok(await l.call('GET', '/v2/package-vetting')).vettedPackages).toHaveLength(4);
    expectPlain400(await l.call('GET', '/v2/package-vetting', { body: '{"pageSize": "x"' }));
  });

  it('matches packages by id or name prefix and keeps only matching packages', async () => {
    const all = ok(await list({})).vettedPackages;
    const foreign = all[3].packages[0].packageId;
    const byId = ok(await list({ packageMetadataFilter: { packageIds: [foreign] } })).vettedPackages;
    expect(byId.length).toBeGreaterThan(0);
    for (const v of byId) expect(v.packages.map((p: Json) => p.packageId)).toEqual([foreign]);
    const byName = ok(await list({ packageMetadataFilter: { packageNamePrefixes: ['splice-amulet'] } })).vettedPackages;
    for (const v of byName) for (const p of v.packages) expect(p.packageName).toBe('splice-amulet');
    const either = ok(await list({ packageMetadataFilter: { packageIds: [foreign], packageNamePrefixes: ['splice-amulet'] } })).vettedPackages;
    const ids = (vs: Json[]) => new Set(vs.flatMap((v: Json) => v.packages.map((p: Json) => `${v.synchronizerId}|${v.participantId}|${p.packageId}`)));
    expect(ids(either)).toEqual(new Set([...ids(byId), ...ids(byName)]));
    expect(ok(await list({ packageMetadataFilter: { packageNamePrefixes: ['no-such-'] } })).vettedPackages).toEqual([]);
  });

  it('requires both topology lists to match when both are set', async () => {
    const r = ok(await list({ topologyStateFilter: { participantIds: [P1], synchronizerIds: [SYNC1] } })).vettedPackages;
    expect(r.map((v: Json) => [v.synchronizerId, v.participantId])).toEqual([[SYNC1, P1]]);
    expectCanton(await list({ topologyStateFilter: { participantIds: ['not a participant'] } }), 400);
  });

  it('pages with tokens whose later records sort after the last one', async () => {
    const all = ok(await list({})).vettedPackages;
    const seen: Json[] = [];
    let token = '';
    let pages = 0;
    do {
      const r = ok(await list({ pageSize: 1, pageToken: token }));
      expect(r.vettedPackages).toHaveLength(1);
      seen.push(...r.vettedPackages);
      token = r.nextPageToken;
      pages++;
    } while (token !== '');
    expect(pages).toBe(4);
    expect(seen).toEqual(all);
    const firstTwo = ok(await list({ pageSize: 3 }));
    expect(firstTwo.vettedPackages).toEqual(all.slice(0, 3));
    expect(ok(await list({ pageSize: 3, pageToken: firstTwo.nextPageToken })).vettedPackages).toEqual(all.slice(3));
  });

  it('rejects a page size above 100 or negative, and an invalid token', async () => {
    ok(await list({ pageSize: 100 }));
    ok(await list({ pageSize: 0 }));
    expectCanton(await list({ pageSize: 101 }), 400);
    expectCanton(await list({ pageSize: -1 }), 400);
    expectCanton(await list({ pageToken: 'garbage' }), 400);
    expectPlain400(await list({ pageSize: 1.5 }));
    expectPlain400(await list({ packageMetadataFilter: { packageIds: 'abc' } }));
  });
});

describe('package upload', () => {
  const upload = (body: Buffer | string, query = '', headers: Record<string, string> = { 'content-type': 'application/octet-stream' }, as?: string) =>
    l.call('POST', `/v2/packages${query}`, { body, headers, as });

  it('uploads a DAR and vets its main package on the requested synchronizer', async () => {
    const id = hex('uploaded-1');
    const before = ok(await list({ topologyStateFilter: { participantIds: [P1], synchronizerIds: [SYNC1] } })).vettedPackages[0];
    const r = await upload(darArchive('uploaded-pkg', '2.0.0', id), `?vetAllPackages=true&synchronizerId=${encodeURIComponent(SYNC1)}`);
    expect(ok(r)).toEqual({});
    const after = ok(await list({ topologyStateFilter: { participantIds: [P1], synchronizerIds: [SYNC1] } })).vettedPackages[0];
    expect(after.packages.find((p: Json) => p.packageId === id)).toEqual({ packageId: id, packageName: 'uploaded-pkg', packageVersion: '2.0.0' });
    expect(after.topologySerial).toBe(before.topologySerial + 1);
    // not vetted elsewhere
    const elsewhere = ok(await list({ packageMetadataFilter: { packageIds: [id] } })).vettedPackages;
    expect(elsewhere.map((v: Json) => v.synchronizerId)).toEqual([SYNC1]);
  });

  it('does not vet with vetAllPackages=false', async () => {
    const id = hex('uploaded-2');
    ok(await upload(darArchive('unvetted-pkg', '1.0.0', id), '?vetAllPackages=false'));
    expect(ok(await list({ packageMetadataFilter: { packageIds: [id] } })).vettedPackages).toEqual([]);
    expect(ok(await l.call('GET', '/v2/packages')).packageIds).toContain(id);
  });

  it('rejects a vetted upload reusing the name and version of a vetted package with another id, and only that', async () => {
    const q = `?vetAllPackages=true&synchronizerId=${encodeURIComponent(SYNC0)}`;
    const first = darArchive('upgrade-pkg', '1.0.0', hex('upgrade-1'));
    ok(await upload(first, q));
    // the very same DAR again: idempotent
    ok(await upload(first, q));
    const clash = await upload(darArchive('upgrade-pkg', '1.0.0', hex('upgrade-2')), q);
    expectCanton(clash, 400, 'KNOWN_PACKAGE_VERSION');
    expect(ok(await list({ packageMetadataFilter: { packageIds: [hex('upgrade-2')] } })).vettedPackages).toEqual([]);
    // not vetted on the other synchronizer: no conflict there; without vetting no check at all
    ok(await upload(darArchive('upgrade-pkg', '1.0.0', hex('upgrade-3')), `?vetAllPackages=true&synchronizerId=${encodeURIComponent(SYNC1)}`));
    ok(await upload(darArchive('upgrade-pkg', '1.0.0', hex('upgrade-4')), '?vetAllPackages=false'));
    // a higher version and another name are accepted
    ok(await upload(darArchive('upgrade-pkg', '2.0.0', hex('upgrade-5')), q));
    ok(await upload(darArchive('upgrade-pkg-other', '1.0.0', hex('upgrade-6')), q));
    // connected to two synchronizers, a vetting upload must name one (FACTS.md)
    expectCanton(await upload(darArchive('upgrade-pkg', '2.0.0', hex('upgrade-7')), '?vetAllPackages=true'), 400, 'PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER');
    expectCanton(await upload(darArchive('upgrade-pkg-new', '1.0.0', hex('upgrade-8'))), 400, 'PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER');
  });

  it('rejects other content types, non-zip bodies and zips without a manifest with 400 text/plain', async () => {
    const dar = darArchive('x', '1.0.0', hex('x'));
    expectPlain400(await upload(dar, '', { 'content-type': 'application/json' }));
    expectPlain400(await upload(Buffer.from('definitely not a zip file')));
    expectPlain400(await upload(Buffer.from('PK\u0003\u0004 but truncated')));
    expectPlain400(await upload(zipArchive({ 'readme.txt': 'hi' })));
    expectPlain400(await upload(Buffer.alloc(0)));
  });

  it('names an invalid query parameter in a 400 text/plain message', async () => {
    const dar = darArchive('y', '1.0.0', hex('y'));
    const bad = await upload(dar, '?vetAllPackages=maybe');
    expectPlain400(bad);
    expect(bad.text).toContain('vetAllPackages');
    const sync = await upload(dar, '?synchronizerId=unknown::1220ff');
    expectPlain400(sync);
    expect(sync.text).toContain('synchronizerId');
  });

  it('is for administrators only', async () => {
    expectCanton(await upload(darArchive('z', '1.0.0', hex('z')), '', undefined, 'alice_user'), 403, 'PERMISSION_DENIED');
  });
});

describe('generate external party topology', () => {
  const key = Buffer.from('a public key of the external party').toString('base64');
  const request = (extra: Json = {}, publicKey: Json = {}) => ({
    synchronizer: SYNC0,
    partyHint: 'ext-party',
    publicKey: { format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO', keyData: key, keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519', ...publicKey },
    ...extra,
  });
  const generate = (body: Json, as?: string) => l.call('POST', '/v2/parties/external/generate-topology', { body, as });

  it('derives the party id from the hint and the key fingerprint', async () => {
    const r = ok(await generate(request()));
    const fp = `1220${hex('a public key of the external party')}`;
    expect(r.publicKeyFingerprint).toBe(fp);
    expect(r.partyId).toBe(`ext-party::${fp}`);
    expect(r.topologyTransactions.length).toBeGreaterThan(0);
    for (const t of r.topologyTransactions) expect(Buffer.from(t, 'base64').length).toBeGreaterThan(0);
    expect(r.multiHash.length).toBeGreaterThan(0);
    expect(ok(await generate(request()))).toEqual(r);
  });

  it('accepts other confirmers and a threshold up to their number', async () => {
    const others = ['participant2::1220cc00000000000000000000000000000000000000000000000000000000000002'];
    ok(await generate(request({ otherConfirmingParticipantUids: others, confirmationThreshold: 2 })));
    ok(await generate(request({ confirmationThreshold: 0 })));
  });

  it('rejects invalid requests with 400', async () => {
    const local = 'participant1::1220aa00000000000000000000000000000000000000000000000000000000000001';
    const other = 'participant2::1220cc00000000000000000000000000000000000000000000000000000000000002';
    expectCanton(await generate(request({ partyHint: '' })), 400);
    expectCanton(await generate(request({ confirmationThreshold: -1 })), 400);
    expectCanton(await generate(request({ confirmationThreshold: 2 })), 400);
    expectCanton(await generate(request({ synchronizer: 'unknown::1220ff' })), 400);
    expectCanton(await generate(request({ otherConfirmingParticipantUids: [other, other] })), 400);
    expectCanton(await generate(request({ observingParticipantUids: [local] })), 400);
    expectCanton(await generate(request({}, { keyData: '' })), 400);
    expectPlain400(await generate(request({}, { format: 'CRYPTO_KEY_FORMAT_BOGUS' })));
    expectPlain400(await generate(request({}, { keySpec: 'SIGNING_KEY_SPEC_BOGUS' })));
    expectPlain400(await generate({ synchronizer: SYNC0, partyHint: 'p' }));
  });

  it('needs administration rights', async () => {
    expectCanton(await generate(request(), 'alice_user'), 403);
  });
});
