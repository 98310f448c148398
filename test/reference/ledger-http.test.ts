import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCanton, expectPlain400, isCantonError, ok, startLedger, type LedgerClient } from './ledger-client.js';

let l: LedgerClient;
beforeAll(async () => {
  l = await startLedger();
});
afterAll(async () => l.close());

describe('HTTP layer', () => {
  it('answers unknown routes and methods with a 404 JsCantonError', async () => {
    expectCanton(await l.call('GET', '/v2/no-such-thing'), 404);
    expectCanton(await l.call('PUT', '/v2/users'), 404);
    expectCanton(await l.call('DELETE', '/v2/version'), 404);
    expectCanton(await l.call('GET', '/'), 404);
  });

  it('takes JSON without a content type and refuses other content types with 400 text/plain', async () => {
    const id = l.uid('no-ct');
    ok(await l.call('POST', '/v2/users', { body: { user: { id } }, headers: { 'content-type': '' } }));
    expectPlain400(await l.call('POST', '/v2/users', { body: JSON.stringify({ user: { id: l.uid('x') } }), headers: { 'content-type': 'text/plain' } }));
    expectPlain400(await l.call('POST', '/v2/users', { body: '{}', headers: { 'content-type': '???' } }));
    ok(await l.call('POST', '/v2/users', { body: { user: { id: l.uid('cs') } }, headers: { 'content-type': 'application/json; charset=utf-8' } }));
  });

  it('parses the JSON body of a GET without a content type', async () => {
    const r = ok(await l.call('GET', '/v2/package-vetting', { body: { pageSize: 1 }, headers: { 'content-type': '' } }));
    expect(r.vettedPackages).toHaveLength(1);
  });
});

const PATHS = [
  '/v2/users',
  '/v2/users/{}',
  '/v2/users/{}/rights',
  '/v2/version',
  '/v2/package-vetting',
  '/v2/package-vetting/list',
  '/v2/parties',
  '/v2/parties/external/generate-topology',
  '/v2/updates/transaction-by-offset',
  '/v2/traffic/accounts',
  '/v2/traffic/accounts/{}',
  '/v2/commands/submit-and-wait-for-reassignment',
  '/v2/commands/submit-and-wait-for-transaction-tree',
  '/v2/packages',
  '/v2/state/ledger-end',
  '/v2/state/connected-synchronizers',
  '/v2/{}',
  '/v2/{}/{}',
];

/** Field names of the ledger's requests, so random bodies reach past the first decoding step. */
const FIELDS = [
  'user', 'rights', 'updateMask', 'paths', 'id', 'metadata', 'annotations', 'resourceVersion', 'userId', 'kind', 'offset',
  'transactionFormat', 'eventFormat', 'transactionShape', 'requestingParties', 'filtersByParty', 'filtersForAnyParty',
  'cumulative', 'identifierFilter', 'pageSize', 'pageToken', 'packageMetadataFilter', 'topologyStateFilter', 'accountId',
  'balanceDelta', 'deduplicationId', 'reassignmentCommands', 'commands', 'commandId', 'submitter', 'actAs', 'synchronizer',
  'partyHint', 'publicKey', 'keyData', 'format', 'keySpec', 'confirmationThreshold', 'CreateCommand', 'templateId',
];

const jsonish: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }),
    fc.dictionary(fc.constantFrom(...FIELDS), tie('value'), { maxKeys: 4 }),
    fc.array(tie('value'), { maxLength: 3 }),
  ),
})).value;

const segment = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('participant_admin', 'alice_user', '', '..', '%', 'a::1220ab'));
const pathArb = fc
  .tuple(fc.constantFrom(...PATHS), fc.array(segment, { minLength: 3, maxLength: 3 }), fc.option(fc.string({ maxLength: 10 })))
  .map(([p, segs, q]) => {
    let i = 0;
    const path = p.replace(/\{\}/g, () => encodeURIComponent(segs[i++] as string));
    return q === null ? path : `${path}?pageSize=${encodeURIComponent(q)}&vetAllPackages=${encodeURIComponent(q)}`;
  });

const bodyArb = fc.oneof(
  jsonish.map((v) => JSON.stringify(v)),
  fc.dictionary(fc.constantFrom(...FIELDS), jsonish, { maxKeys: 5 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 30 }),
  fc.constant(undefined),
);

describe('robustness', () => {
  it('never answers 5xx; every error is a 400 text/plain or a JsCantonError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT'),
        pathArb,
        bodyArb,
        fc.constantFrom<string | null>('participant_admin', 'alice_user', null),
        fc.constantFrom('application/json', '', 'application/octet-stream', 'text/plain'),
        // a broken credential in place of the token, and a header the server does not know
        fc.option(fc.constantFrom('Bearer not-a-jwt', 'Basic dXNlcjpwdw==', 'Bearer ', 'bearer eyJ.eyJ.x', 'Bearer a.b.c'), { nil: undefined }),
        fc.option(fc.tuple(fc.constantFrom('x-random', 'accept', 'sec-websocket-protocol'), fc.string({ maxLength: 20 })), { nil: undefined }),
        async (method, path, body, as, contentType, authorization, extra) => {
          const headers: Record<string, string> = { 'content-type': body === undefined ? '' : contentType };
          if (authorization !== undefined) headers.authorization = authorization;
          if (extra !== undefined && /^[\x20-\x7e]*$/.test(extra[1])) headers[extra[0]] = extra[1];
          const r = await l.call(method, path, { body, as, headers });
          expect(r.status, `${method} ${path} ${body} -> ${r.text}`).toBeLessThan(500);
          if (r.status >= 400) {
            const plain = r.status === 400 && r.contentType.startsWith('text/plain');
            expect(plain || isCantonError(r.body), `${method} ${path} ${body} -> ${r.status} ${r.contentType} ${r.text}`).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
