import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import Fastify from 'fastify';
import { resolveReferenceOptions, startReference, type ReferenceContext, type ReferenceServer } from '../../reference/index.js';
import { FaultSet } from '../../reference/faults.js';
import { createWorld } from '../../reference/world.js';
import { validatorRoutes } from '../../reference/validator/routes.js';
import { referenceFixtures } from '../../reference/data/fixtures.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const fx = referenceFixtures();
let server: ReferenceServer;

async function token(sub: string, secret = server.auth.hs256Secret): Promise<string> {
  return new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(secret));
}

interface Res {
  status: number;
  body: Json;
  challenge?: string | null;
}

/** the parsed JSON body, or for a text/plain body (a framework rejection) {text} */
async function get(url: string, headers: Record<string, string> = {}): Promise<Res> {
  const r = await fetch(url, { headers });
  const text = await r.text();
  const body = (r.headers.get('content-type') ?? '').startsWith('text/plain') ? { text } : JSON.parse(text);
  return { status: r.status, body, challenge: r.headers.get('www-authenticate') };
}

/** as the validator user: every validator route needs a token (FACTS.md) */
async function getAsUser(url: string): Promise<Res> {
  return get(url, { authorization: `Bearer ${await token(server.auth.validatorUser)}` });
}

/** an error body: {error}, or a text/plain 400 or 401 of the HTTP framework; a 401 challenges (WWW-Authenticate) */
function expectError(res: Res, status: number): void {
  expect(res.status).toBe(status);
  if ((status === 400 || status === 401) && typeof res.body.text === 'string') expect(res.body.text.length).toBeGreaterThan(0);
  else expect(typeof res.body.error).toBe('string');
  if (status === 401) expect(res.challenge).toMatch(/^Bearer/);
}

beforeAll(async () => {
  server = await startReference();
});
afterAll(async () => server.close());

describe('validator entry/all', () => {
  it('lists the non-expired entries of the calling user', async () => {
    const v = server.urls.validator;
    const res = await get(`${v}/v0/entry/all`, { authorization: `Bearer ${await token(server.auth.validatorUser)}` });
    expect(res.status).toBe(200);
    expect(res.body.entries.map((e: Json) => e.name)).toEqual(fx.validator.activeEntryNames);
    expect(fx.validator.activeEntryNames).toHaveLength(3);
    expect(res.body.entries.map((e: Json) => e.name)).not.toContain(fx.validator.expiredEntryName);
    for (const e of res.body.entries) {
      for (const f of ['contractId', 'name', 'amount', 'unit', 'expiresAt', 'paymentInterval', 'paymentDuration']) expect(typeof e[f]).toBe('string');
      expect(Date.parse(e.expiresAt)).toBeGreaterThan(Date.now());
    }
    // the same entries, as scan shows them, belong to the validator party
    const scanEntries = (await get(`${server.urls.scan}/v0/ans-entries?page_size=10&name_prefix=validator-`)).body.entries;
    expect(scanEntries.map((e: Json) => e.contract_id)).toEqual(res.body.entries.map((e: Json) => e.contractId));
    for (const e of scanEntries) expect(e.user).toBe(fx.validator.party);
  });

  it("lists a ledger user's entries by its primary party", async () => {
    const res = await get(`${server.urls.validator}/v0/entry/all`, { authorization: `Bearer ${await token('alice_user')}` });
    expect(res.status).toBe(200);
    const scanAll = (await get(`${server.urls.scan}/v0/ans-entries?page_size=1000`)).body.entries;
    const alice = scanAll.find((e: Json) => e.name.startsWith('alice-')).user;
    const owned = scanAll.filter((e: Json) => e.user === alice && typeof e.contract_id === 'string');
    expect(owned.length).toBeGreaterThan(5);
    expect(res.body.entries.map((e: Json) => e.contractId)).toEqual(owned.map((e: Json) => e.contract_id));
  });

  it('refuses a deactivated user with 401', async () => {
    const ctx: ReferenceContext = { options: resolveReferenceOptions(), faults: new FaultSet(), world: createWorld() };
    ctx.world.users.get('alice_user')!.isDeactivated = true;
    const app = Fastify();
    await app.register(async (scope) => validatorRoutes(scope, ctx), { prefix: '/api/validator' });
    const tok = await token('alice_user', ctx.options.jwtSecret);
    const r = await app.inject({ method: 'GET', url: '/api/validator/v0/entry/all', headers: { authorization: `Bearer ${tok}` } });
    expect(r.statusCode).toBe(401);
    expect(typeof r.json().error).toBe('string');
    await app.close();
  });

  it('requires a valid bearer token of an onboarded user', async () => {
    const url = `${server.urls.validator}/v0/entry/all`;
    expectError(await get(url), 401);
    expectError(await get(url, { authorization: 'Bearer not-a-jwt' }), 401);
    expectError(await get(url, { authorization: `Bearer ${await token(server.auth.validatorUser, 'wrong-secret')}` }), 401);
    expectError(await get(url, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }), 401);
    expectError(await get(url, { authorization: `Bearer ${await token('someone_else')}` }), 404);
  });

  it('rejects a missing or invalid token with a text/plain 401 and a WWW-Authenticate challenge', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-a-jwt' }] as Array<Record<string, string>>) {
      const r = await fetch(`${server.urls.validator}/v0/entry/all`, { headers });
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type') ?? '').toMatch(/^text\/plain/);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });
});

describe('validator scan proxy authentication', () => {
  it('requires a valid token on every scan-proxy route, whoever it names', async () => {
    const v = server.urls.validator;
    const routes = [`${v}/v0/scan-proxy/open-and-issuing-mining-rounds`, `${v}/v0/scan-proxy/featured-apps/${encodeURIComponent(fx.validator.featuredProviders[0]!)}`, `${v}/v0/scan-proxy/ans-entries?page_size=2`];
    for (const url of routes) {
      expectError(await get(url), 401);
      expectError(await get(url, { authorization: `Bearer ${await token(server.auth.validatorUser, 'wrong-secret')}` }), 401);
      // any valid user token: one of a user the validator does not onboard too
      expect((await get(url, { authorization: `Bearer ${await token('someone_else')}` })).status).toBe(200);
    }
  });
});

describe('validator scan proxy', () => {
  it('returns open and issuing mining rounds', async () => {
    const res = await getAsUser(`${server.urls.validator}/v0/scan-proxy/open-and-issuing-mining-rounds`);
    expect(res.status).toBe(200);
    expect(res.body.open_mining_rounds.length).toBeGreaterThan(0);
    expect(res.body.issuing_mining_rounds.length).toBeGreaterThan(0);
    for (const r of [...res.body.open_mining_rounds, ...res.body.issuing_mining_rounds]) {
      for (const f of ['template_id', 'contract_id', 'created_event_blob', 'created_at']) expect(typeof r.contract[f]).toBe('string');
      expect(typeof r.contract.payload).toBe('object');
      expect(typeof r.domain_id).toBe('string');
    }
    expect(res.body.open_mining_rounds[0].contract.template_id).toMatch(/:Splice\.Round:OpenMiningRound$/);
  });

  it('returns the featured app right of a featured provider and null otherwise', async () => {
    for (const p of fx.validator.featuredProviders) {
      const res = await getAsUser(`${server.urls.validator}/v0/scan-proxy/featured-apps/${encodeURIComponent(p)}`);
      expect(res.status).toBe(200);
      expect(res.body.featured_app_right.template_id).toMatch(/:Splice\.Amulet:FeaturedAppRight$/);
      expect(res.body.featured_app_right.payload.provider).toBe(p);
    }
    const none = await getAsUser(`${server.urls.validator}/v0/scan-proxy/featured-apps/${encodeURIComponent(fx.validator.unfeaturedProvider)}`);
    expect({ status: none.status, body: none.body }).toEqual({ status: 200, body: { featured_app_right: null } });
  });

  it('lists the same ANS entries as scan', async () => {
    for (const q of ['page_size=1000', 'page_size=7&name_prefix=bob', 'page_size=50&name_prefix=d', 'page_size=3&name_prefix=zz', 'page_size=2&name_prefix=']) {
      const a = await get(`${server.urls.scan}/v0/ans-entries?${q}`);
      const b = await getAsUser(`${server.urls.validator}/v0/scan-proxy/ans-entries?${q}`);
      expect(b.status).toBe(200);
      expect(b.body).toEqual(a.body);
    }
    for (const q of ['', 'page_size=0', 'page_size=1001', 'page_size=x']) expectError(await getAsUser(`${server.urls.validator}/v0/scan-proxy/ans-entries?${q}`), 400);
  });

  it('answers unknown routes with {error}', async () => {
    expectError(await get(`${server.urls.validator}/v0/unknown`), 404);
    expectError(await get(`${server.urls.validator}/v0/scan-proxy/featured-apps/`), 404);
  });
});
