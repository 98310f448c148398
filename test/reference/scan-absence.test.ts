/**
 * The reference's side of judging listings on what must be there: the fixtures its target config gives the suite
 * (every one a scan or validator check needs, so none skips against the reference for want of it), its paging with
 * and without look-ahead, its configurable maximum page size, and the planted faults that empty or thin its listings.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceServer } from '../../reference/index.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function hs256(secret: string, sub: string): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc({ sub, aud: 'https://canton.network.global', exp: Math.floor(Date.now() / 1000) + 600 })}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

async function get(url: string, token?: string): Promise<{ status: number; body: Json }> {
  const r = await fetch(url, token !== undefined ? { headers: { authorization: `Bearer ${token}` } } : {});
  const text = await r.text();
  let body: Json;
  try {
    body = JSON.parse(text);
  } catch {
    body = { text };
  }
  return { status: r.status, body };
}

async function post(url: string, json: unknown): Promise<{ status: number; body: Json }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) });
  return { status: r.status, body: await r.json().catch(() => ({})) };
}

/** every page of a license walk with the given limit (bounded) */
async function licensePages(scan: string, limit: number): Promise<Json[]> {
  const pages: Json[] = [];
  let after: unknown;
  for (let k = 0; k < 50; k++) {
    const res = await get(`${scan}/v0/admin/validator/licenses?limit=${limit}${after !== undefined && after !== null ? `&after=${String(after)}` : ''}`);
    expect(res.status).toBe(200);
    pages.push(res.body);
    after = res.body.next_page_token;
    if (after === undefined || after === null) return pages;
  }
  throw new Error('the walk did not end');
}

describe('reference fixtures for the scan and validator checks', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReference({ port: 0 });
  });
  afterAll(async () => server?.close());

  it('names update ids GET answers, licensed validators the listing holds, and the maximum page size', async () => {
    const f = server.targetConfig().scan.fixtures as Json;
    expect(f.maxPageSize).toBe(1000);
    expect(f.updateIds.length).toBeGreaterThan(3);
    for (const id of f.updateIds) expect((await get(`${server.urls.scan}/v0/events/${id}`)).status).toBe(200);
    const listed = JSON.stringify((await licensePages(server.urls.scan, 1000)).flatMap((p) => p.validator_licenses.map((l: Json) => l.payload)));
    expect(f.licensedValidators.length).toBeGreaterThan(0);
    for (const v of f.licensedValidators) expect(listed).toContain(JSON.stringify(v));
    expect(typeof f.dsoParty).toBe('string');
  });

  it("names the validator user's party, a featured provider and the DSO", async () => {
    const f = server.targetConfig().validator.fixtures as Json;
    const token = hs256(server.auth.hs256Secret, server.auth.validatorUser);
    const right = await get(`${server.urls.validator}/v0/scan-proxy/featured-apps/${encodeURIComponent(f.featuredProvider)}`, token);
    expect(right.status).toBe(200);
    expect(right.body.featured_app_right.payload.provider).toBe(f.featuredProvider);
    const owned = await get(`${server.urls.validator}/v0/entry/all`, token);
    expect(owned.body.entries.length).toBeGreaterThan(0);
    const scanList = await get(`${server.urls.scan}/v0/ans-entries?page_size=1000`);
    const mine = scanList.body.entries.filter((e: Json) => e.user === f.validatorParty);
    expect(mine.length).toBeGreaterThan(0);
    expect(typeof f.dsoParty).toBe('string');
    expect(f.maxPageSize).toBe(1000);
  });

  it('pages licenses with look-ahead: the last page of licenses carries no token', async () => {
    const pages = await licensePages(server.urls.scan, 7);
    expect(pages[pages.length - 1].validator_licenses.length).toBeGreaterThan(0);
  });
});

describe('a reference variant without look-ahead and with a smaller maximum page size', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    // variant 5 draws license-pages no-look-ahead and scan-max-page 500
    server = await startReference({ port: 0, variant: 5 });
  });
  afterAll(async () => server?.close());

  it('hands a token on the short last page of licenses, which leads to an empty page without one', async () => {
    const pages = await licensePages(server.urls.scan, 7);
    const last = pages[pages.length - 1];
    const before = pages[pages.length - 2];
    expect(last.validator_licenses).toEqual([]);
    expect(before.validator_licenses.length).toBeGreaterThan(0);
    expect(before.next_page_token).not.toBeNull();
  });

  it('accepts page sizes and limits up to its maximum, names it in its target config, and refuses one more', async () => {
    const scan = server.urls.scan;
    expect((server.targetConfig().scan.fixtures as Json).maxPageSize).toBe(500);
    expect((await get(`${scan}/v0/admin/validator/licenses?limit=500`)).status).toBe(200);
    expect((await get(`${scan}/v0/admin/validator/licenses?limit=501`)).status).toBe(400);
    expect((await get(`${scan}/v0/ans-entries?page_size=500`)).status).toBe(200);
    expect((await get(`${scan}/v0/ans-entries?page_size=501`)).status).toBe(400);
    expect((await post(`${scan}/v0/events`, { page_size: 500 })).status).toBe(200);
    expect((await post(`${scan}/v0/events`, { page_size: 501 })).status).toBe(400);
  });
});

describe('planted faults that empty or open the listings', () => {
  it('scan-empty-listings empties ANS entries, licenses and events at once', async () => {
    const server = await startReference({ port: 0, faults: ['scan-empty-listings'] });
    try {
      const scan = server.urls.scan;
      expect((await get(`${scan}/v0/ans-entries?page_size=100`)).body.entries).toEqual([]);
      expect((await get(`${scan}/v0/admin/validator/licenses`)).body.validator_licenses).toEqual([]);
      expect((await post(`${scan}/v0/events`, { page_size: 100 })).body.events).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('validator-scan-proxy-accepts-invalid-token answers a garbage token, which the clean reference refuses with 401', async () => {
    const clean = await startReference({ port: 0 });
    const broken = await startReference({ port: 0, faults: ['validator-scan-proxy-accepts-invalid-token'] });
    try {
      const path = '/v0/scan-proxy/open-and-issuing-mining-rounds';
      expect((await get(`${clean.urls.validator}${path}`, 'not-a-jwt')).status).toBe(401);
      const r = await get(`${broken.urls.validator}${path}`, 'not-a-jwt');
      expect(r.status).toBe(200);
      expect(r.body.open_mining_rounds.length).toBeGreaterThan(0);
    } finally {
      await clean.close();
      await broken.close();
    }
  });
});
