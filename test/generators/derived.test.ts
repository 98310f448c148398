import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyMutation, describeMutation, mutationSites, mutationsOfKind, violationKinds, type DerivedRequest, type MutationKind } from '../../generators/derived.js';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import type { Api } from '../../harness/types.js';

const schemas = schemaRegistry();
const WILDCARD = { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] };
const TX_FORMAT = { eventFormat: { filtersByParty: { 'alice::1220': WILDCARD } }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' };
const r = (o: Partial<DerivedRequest>): DerivedRequest => ({ params: {}, query: {}, ...o });

/** one request per operation the derived checks cover, valid by the document (not on any target) */
const SAMPLES: Array<[Api, string, DerivedRequest]> = [
  ['ledger', 'listPackageVetting', r({ json: { pageSize: 10 } })],
  ['ledger', 'generateExternalPartyTopology', r({ json: { synchronizer: 'sync::1220', partyHint: 'hint', publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: 'AAAA', keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' } } })],
  ['ledger', 'getTransactionByOffset', r({ json: { offset: 5, requestingParties: ['alice::1220'] } })],
  ['ledger', 'getUpdateByOffset', r({ json: { offset: 5, updateFormat: { includeTransactions: TX_FORMAT } } })],
  ['ledger', 'updateTrafficAccount', r({ json: { accountId: 'alice::1220', deduplicationId: 'd1', balanceDelta: 1 } })],
  ['ledger', 'updateUser', r({ params: { 'user-id': 'alice' }, json: { user: { id: 'alice', isDeactivated: false }, updateMask: { paths: ['is_deactivated'] } } })],
  ['ledger', 'grantUserRights', r({ params: { 'user-id': 'alice' }, json: { userId: 'alice', rights: [{ kind: { ParticipantAdmin: { value: {} } } }] } })],
  ['ledger', 'createUser', r({ json: { user: { id: 'bob', isDeactivated: false }, rights: [] } })],
  ['ledger', 'listUsers', r({ query: { pageSize: '10' } })],
  ['ledger', 'getUser', r({ params: { 'user-id': 'alice' } })],
  ['ledger', 'allocateParty', r({ json: { partyIdHint: 'p1', identityProviderId: '' } })],
  ['ledger', 'submitAndWaitForTransaction', r({ json: { commands: { commands: [{ CreateCommand: { templateId: '#pkg:M:T', createArguments: { owner: 'alice::1220' } } }], commandId: 'c1', userId: 'u1', actAs: ['alice::1220'] }, transactionFormat: TX_FORMAT } })],
  ['ledger', 'submitAndWaitForTransactionTree', r({ json: { commands: [{ CreateCommand: { templateId: '#pkg:M:T', createArguments: {} } }], commandId: 'c1', userId: 'u1', actAs: ['alice::1220'] } })],
  ['ledger', 'submitAndWaitForReassignment', r({ json: { reassignmentCommands: { commandId: 'c1', submitter: 'alice::1220', userId: 'u1', commands: [{ command: { UnassignCommand: { value: { contractId: '00ab', source: 's1', target: 's2' } } } }] }, eventFormat: { filtersByParty: { 'alice::1220': WILDCARD }, verbose: true } } })],
  ['ledger', 'uploadPackage', r({ query: { vetAllPackages: 'true', synchronizerId: 'sync::1220' } })],
  ['scan', 'getEventById', r({ params: { update_id: '1220ab' } })],
  ['scan', 'listEvents', r({ json: { page_size: 10 } })],
  ['scan', 'listAnsEntries', r({ query: { page_size: '10' } })],
  ['scan', 'listValidatorLicenses', r({ query: { limit: '10' } })],
  ['validator', 'listScanProxyAnsEntries', r({ query: { page_size: '10' } })],
  ['registry', 'getAllocationFactory', r({ json: { choiceArguments: {}, excludeDebugFields: true } })],
  ['registry', 'getTransferInstructionWithdrawContext', r({ params: { transferInstructionId: '00ab' }, json: { excludeDebugFields: true } })],
];

const kindsOf = (api: Api, op: string, req: DerivedRequest): MutationKind[] => {
  const v = schemas.requestBodyValidator(api, op);
  return [...violationKinds(schemas.document(api), op, req, (b) => (v === undefined || v(b) ? [] : [...(v.errors ?? [])]))].sort();
};
const sitesOf = (api: Api, op: string, req: DerivedRequest) => mutationSites(schemas.document(api), op, req, { lenient: api === 'ledger' });

describe('generators/derived', () => {
  for (const [api, op, req] of SAMPLES) {
    describe(`${api} ${op}`, () => {
      it('starts from a request the document accepts, and finds sites to mutate', () => {
        expect(kindsOf(api, op, req)).toEqual([]);
        expect(sitesOf(api, op, req).length).toBeGreaterThan(0);
      });
      it('makes each mutated request fail the document in exactly the declared way', () => {
        for (const site of sitesOf(api, op, req)) {
          for (const m of fc.sample(site.arb, { seed: 7, numRuns: 15 })) {
            expect({ m: describeMutation(m), kinds: kindsOf(api, op, applyMutation(req, m)) }).toEqual({ m: describeMutation(m), kinds: [site.kind] });
          }
        }
      });
      it('gives the same mutations for the same seed, and leaves the valid request as it was', () => {
        const before = JSON.stringify(req);
        const sites = sitesOf(api, op, req);
        for (const kind of new Set(sites.map((s) => s.kind))) {
          const arb = mutationsOfKind(sites, kind)!;
          const a = fc.sample(arb, { seed: 11, numRuns: 20 }).map((m) => applyMutation(req, m));
          expect(fc.sample(arb, { seed: 11, numRuns: 20 }).map((m) => applyMutation(req, m))).toEqual(a);
        }
        expect(JSON.stringify(req)).toBe(before);
      });
    });
  }

  it('removes a ledger field only where its empty default is invalid (the participant decodes leniently)', () => {
    const [, , req] = SAMPLES.find(([, op]) => op === 'generateExternalPartyTopology')!;
    const removed = sitesOf('ledger', 'generateExternalPartyTopology', req).filter((s) => s.kind === 'required-removed').map((s) => s.path.join('.')).sort();
    // synchronizer: "" is a string the document allows, so a lenient participant's answer would not be about the removal
    expect(removed).toEqual(['partyHint', 'publicKey', 'publicKey.format', 'publicKey.keyData', 'publicKey.keySpec']);
  });

  it('sends page_size=abc and after=1.5 style values as non-integers in queries', () => {
    const [, , req] = SAMPLES.find(([, op]) => op === 'listValidatorLicenses')!;
    const arb = mutationsOfKind(sitesOf('scan', 'listValidatorLicenses', req), 'non-integer')!;
    const values = fc.sample(arb, { seed: 3, numRuns: 100 });
    expect(new Set(values.map((m) => m.path[0]))).toEqual(new Set(['after', 'limit']));
    expect(values.some((m) => /^[a-z]+$/.test(String(m.value)))).toBe(true);
    expect(values.some((m) => /^\d+\.5$/.test(String(m.value)))).toBe(true);
  });

  it('shrinks an out-of-range value to the bound next to it (page_size 0 or 1001)', () => {
    const [, , req] = SAMPLES.find(([, op]) => op === 'listAnsEntries')!;
    const arb = mutationsOfKind(sitesOf('scan', 'listAnsEntries', req), 'out-of-range')!;
    for (const seed of [1, 2, 3, 4]) {
      const out = fc.check(fc.property(arb, () => false), { seed });
      expect(['0', '1001']).toContain((out.counterexample?.[0] as { value?: unknown } | undefined)?.value);
    }
  });
});

describe('generators/derived: what real decoders accept is never mutated (FACTS.md)', () => {
  const typeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
  const valueAt = (json: unknown, path: Array<string | number>): unknown => path.reduce<unknown>((o, k) => (o as Record<string | number, unknown> | undefined)?.[k], json);

  it('gives a wrong JSON type only to fields of scalar type or lists of scalars: a non-object where a message is expected is read as the empty message', () => {
    for (const [api, op, req] of SAMPLES) {
      for (const site of sitesOf(api, op, req).filter((s) => s.kind === 'wrong-type' && s.loc === 'body')) {
        const current = valueAt(req.json, site.path);
        // an absent optional field is typed by the document: its mutations never stand where an object goes
        const types = fc.sample(site.arb, { seed: 3, numRuns: 20 }).map((m) => typeOf(m.value));
        if (current !== undefined) expect(typeOf(current), `${api} ${op} ${site.path.join('.')}`).not.toBe('object');
        expect(types.length).toBeGreaterThan(0);
      }
    }
    // metadata, eventFormat and the like are objects: no wrong-type site at them, while their scalar fields keep theirs
    const update = SAMPLES.find(([, op]) => op === 'updateUser')![2];
    const sites = sitesOf('ledger', 'updateUser', update).filter((s) => s.kind === 'wrong-type').map((s) => s.path.join('.'));
    expect(sites).not.toContain('user');
    expect(sites).not.toContain('updateMask');
    expect(sites).not.toContain('user.metadata');
    expect(sites).toContain('user.isDeactivated');
    expect(sites).toContain('updateMask.paths');
  });

  it('never empties a path parameter (the request would route nowhere: the framework 404, no verdict)', () => {
    for (const [api, op, req] of SAMPLES) {
      for (const site of sitesOf(api, op, req).filter((s) => s.loc === 'path')) {
        for (const m of fc.sample(site.arb, { seed: 5, numRuns: 20 })) expect(String(m.value), `${api} ${op}`).not.toBe('');
      }
    }
  });

  it('leaves alone a field the document dates after the target version (a 3.4 participant ignores primaryPartyAuthentication)', () => {
    const req = r({ params: { 'user-id': 'alice' }, json: { user: { id: 'alice', primaryPartyAuthentication: false }, updateMask: { paths: ['primary_party_authentication'] } } });
    const at = (version: string) => mutationSites(schemas.document('ledger'), 'updateUser', req, { lenient: true, version }).map((s) => s.path.join('.'));
    expect(at('3.5')).toContain('user.primaryPartyAuthentication');
    expect(at('3.4')).not.toContain('user.primaryPartyAuthentication');
  });
});
