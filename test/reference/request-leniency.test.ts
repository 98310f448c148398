/**
 * The reference's request-side leniency (reference/request-leniency.ts, FACTS.md): what a real participant or Splice
 * node accepts or answers otherwise than the strict default, taken by the variants and the version so that the
 * self-test can see a check that demands a rejection a real server never makes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolver, requestShape } from '../../generators/derived.js';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { lenientBody } from '../../reference/request-leniency.js';
import { chooseVariant } from '../../reference/variant.js';
import { startLedger, type LedgerClient } from './ledger-client.js';

const schemas = schemaRegistry();
const doc = schemas.document('ledger') as Record<string, unknown>;
const updateUserBody = requestShape(doc, 'updateUser').body;

/** a seed whose variant takes the option */
const seedWith = (pred: (v: ReturnType<typeof chooseVariant>) => boolean) => [1, 2, 12, 28, 43].find((s) => pred(chooseVariant(s)))!;

describe('lenientBody', () => {
  it('reads a non-object where a message is expected as the empty message, and leaves maps and scalars alone', () => {
    const body = { user: { id: 'u', metadata: 'x', isDeactivated: 'no' }, updateMask: 5 };
    expect(lenientBody(body, updateUserBody, resolver(doc), { nonObjectMessages: 'empty', version: '3.5' })).toBe(true);
    expect(body).toEqual({ user: { id: 'u', metadata: {}, isDeactivated: 'no' }, updateMask: {} });
  });

  it('changes nothing as built', () => {
    const body = { user: { id: 'u', metadata: 'x' }, updateMask: { paths: ['metadata'] } };
    expect(lenientBody(body, updateUserBody, resolver(doc), { nonObjectMessages: 'as-built', version: '3.5' })).toBe(false);
    expect(body.user.metadata).toBe('x');
  });

  it('drops a field the document dates after the version: primaryPartyAuthentication at 3.4', () => {
    const body = { user: { id: 'u', primaryPartyAuthentication: 'not a boolean' }, updateMask: { paths: ['metadata'] } };
    expect(lenientBody(structuredClone(body), updateUserBody, resolver(doc), { nonObjectMessages: 'as-built', version: '3.5' })).toBe(false);
    expect(lenientBody(body, updateUserBody, resolver(doc), { nonObjectMessages: 'as-built', version: '3.4' })).toBe(true);
    expect(body.user).toEqual({ id: 'u' });
  });
});

describe('the reference', () => {
  let l34: LedgerClient;
  let lEmpty: LedgerClient;
  let l404: LedgerClient;
  beforeAll(async () => {
    l34 = await startLedger({ ledgerVersion: '3.4' });
    lEmpty = await startLedger({ variant: seedWith((v) => v.nonObjectMessages === 'empty') });
    l404 = await startLedger({ variant: seedWith((v) => v.missingQuery === '404') });
  });
  afterAll(async () => {
    await Promise.all([l34, lEmpty, l404].map((l) => l?.close()));
  });

  const createUser = async (l: LedgerClient) => {
    const id = l.uid('lenient');
    const x = await l.call('POST', '/v2/users', { body: { user: { id }, rights: [] } });
    expect(x.status).toBe(200);
    return id;
  };

  it('at 3.4 ignores user.primaryPartyAuthentication whatever its value', async () => {
    const id = await createUser(l34);
    const x = await l34.call('PATCH', `/v2/users/${id}`, { body: { user: { id, primaryPartyAuthentication: 'yes please', metadata: { annotations: { a: 'b' } } }, updateMask: { paths: ['metadata.annotations'] } } });
    expect(x.status).toBe(200);
  });

  it('with nonObjectMessages empty reads a non-object message as {} and goes on', async () => {
    const id = await createUser(lEmpty);
    // metadata read as {}: the update of the annotations leaves them as they were, and is accepted
    const x = await lEmpty.call('PATCH', `/v2/users/${id}`, { body: { user: { id, metadata: 'not an object' }, updateMask: { paths: ['metadata.annotations'] } } });
    expect(x.status).toBe(200);
    // a scalar of the wrong type is still refused
    const y = await lEmpty.call('PATCH', `/v2/users/${id}`, { body: { user: { id, isDeactivated: 'no' }, updateMask: { paths: ['is_deactivated'] } } });
    expect(y.status).toBe(400);
  });

  it('with missingQuery 404 answers a Splice request without page_size with the framework 404 text/plain', async () => {
    const base = l404.server.urls.scan;
    const r = await fetch(`${base}/v0/ans-entries`);
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await fetch(`${base}/v0/ans-entries?page_size=abc`)).status).toBe(400);
    expect((await fetch(`${base}/v0/ans-entries?page_size=2`)).status).toBe(200);
  });

  it('accepts an upload without a Content-Type header (FACTS.md: taken as application/octet-stream)', async () => {
    const x = await l34.call('POST', '/v2/packages?vetAllPackages=false', { body: Buffer.from('not a dar'), headers: { 'content-type': '' } });
    const y = await l34.call('POST', '/v2/packages?vetAllPackages=false', { body: Buffer.from('not a dar'), headers: { 'content-type': 'text/csv' } });
    expect(y.text).toMatch(/content type/i);
    // the archive is refused for what it is (400), never for the missing content type
    expect(x.text).not.toMatch(/content type/i);
  });
});
