/**
 * The scan, validator and registry parts of the reference server answer with bodies that match specs/*.yaml, for
 * every documented operation and for its error responses. (Named scan-openapi, it covers all three.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { startReference, type ReferenceServer } from '../../reference/index.js';
import { referenceFixtures } from '../../reference/data/fixtures.js';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import type { Api } from '../../harness/types.js';

const fx = referenceFixtures();
const specs = schemaRegistry();
let server: ReferenceServer;
let old: ReferenceServer;

beforeAll(async () => {
  server = await startReference();
  old = await startReference({ scanVersion: '0.6.7' });
});
afterAll(async () => {
  await server.close();
  await old.close();
});

async function check(api: Api, operationId: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}, base?: string): Promise<number> {
  const op = specs.operation(api, operationId);
  const url = `${base ?? server.urls[api]}${path}`;
  const r = await fetch(url, {
    method: init.method ?? op.method,
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  // a framework rejection (400, 401) is text/plain, everything else JSON (FACTS.md): either must be documented
  const type = (r.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const text = await r.text();
  const body = type === 'text/plain' ? text : (JSON.parse(text) as unknown);
  const resp = specs.response(op, r.status);
  expect(resp, `${operationId} ${r.status} is documented`).toBeDefined();
  const media = resp!.content[type];
  expect(media, `${operationId} ${r.status} documents ${type}`).toBeDefined();
  expect(specs.validateBody(api, media!, body), `${operationId} ${r.status} ${JSON.stringify(body).slice(0, 300)}`).toEqual([]);
  return r.status;
}

describe('responses match the OpenAPI documents', () => {
  it('scan', async () => {
    for (const id of Object.values(fx.scan.updateIds)) {
      expect(await check('scan', 'getEventById', `/v0/events/${id}`)).toBe(200);
      expect(await check('scan', 'getEventById', `/v0/events/${id}?daml_value_encoding=protobuf_json`)).toBe(200);
    }
    expect(await check('scan', 'getEventById', '/v0/events/nope')).toBe(404);
    expect(await check('scan', 'getEventById', `/v0/events/${fx.scan.updateIds.assignment}?daml_value_encoding=x`)).toBe(400);
    expect(await check('scan', 'listEvents', '/v0/events', { body: { page_size: 1000 } })).toBe(200);
    expect(await check('scan', 'listEvents', '/v0/events', { body: { page_size: 1000, daml_value_encoding: 'protobuf_json' } })).toBe(200);
    expect(await check('scan', 'listEvents', '/v0/events', { body: { page_size: 0 } })).toBe(400);
    expect(await check('scan', 'listAnsEntries', '/v0/ans-entries?page_size=1000')).toBe(200);
    expect(await check('scan', 'listAnsEntries', '/v0/ans-entries?page_size=0')).toBe(400);
    expect(await check('scan', 'listValidatorLicenses', '/v0/admin/validator/licenses?limit=10')).toBe(200);
    expect(await check('scan', 'listValidatorLicenses', '/v0/admin/validator/licenses')).toBe(200);
    expect(await check('scan', 'listValidatorLicenses', '/v0/admin/validator/licenses?limit=0')).toBe(400);
    expect(await check('scan', 'listActivities', '/v0/activities', { body: { page_size: 5 } })).toBe(404);
    expect(await check('scan', 'listActivities', '/v0/activities', { body: { page_size: 100 } }, old.urls.scan)).toBe(200);
  });

  it('validator', async () => {
    const tok = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(fx.validator.user).sign(new TextEncoder().encode(server.auth.hs256Secret));
    const other = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('nobody').sign(new TextEncoder().encode(server.auth.hs256Secret));
    expect(await check('validator', 'listOwnedAnsEntries', '/v0/entry/all', { headers: { authorization: `Bearer ${tok}` } })).toBe(200);
    expect(await check('validator', 'listOwnedAnsEntries', '/v0/entry/all', { headers: { authorization: `Bearer ${other}` } })).toBe(404);
    expect(await check('validator', 'listOwnedAnsEntries', '/v0/entry/all')).toBe(401);
    const asUser = { headers: { authorization: `Bearer ${tok}` } };
    expect(await check('validator', 'getOpenAndIssuingMiningRounds', '/v0/scan-proxy/open-and-issuing-mining-rounds', asUser)).toBe(200);
    expect(await check('validator', 'getOpenAndIssuingMiningRounds', '/v0/scan-proxy/open-and-issuing-mining-rounds')).toBe(401);
    for (const p of [...fx.validator.featuredProviders, fx.validator.unfeaturedProvider]) {
      expect(await check('validator', 'getFeaturedAppRight', `/v0/scan-proxy/featured-apps/${encodeURIComponent(p)}`, asUser)).toBe(200);
    }
    expect(await check('validator', 'listScanProxyAnsEntries', '/v0/scan-proxy/ans-entries?page_size=1000', asUser)).toBe(200);
    expect(await check('validator', 'listScanProxyAnsEntries', '/v0/scan-proxy/ans-entries?page_size=1001', asUser)).toBe(400);
    expect(await check('validator', 'listScanProxyAnsEntries', '/v0/scan-proxy/ans-entries', asUser)).toBe(400);
  });

  it('registry', async () => {
    const r = fx.registry;
    for (const [op, base, ids, moving] of [
      ['getAllocationInstructionWithdrawContext', '/registry/allocation-instruction/v2', r.allocationInstructionIds, r.reassigningAllocationInstructionId],
      ['getTransferInstructionWithdrawContext', '/registry/transfer-instruction/v1', r.transferInstructionIds, r.reassigningTransferInstructionId],
    ] as const) {
      for (const excludeDebugFields of [false, true]) {
        expect(await check('registry', op, `${base}/${ids[0]}/choice-contexts/withdraw`, { body: { excludeDebugFields } })).toBe(200);
      }
      expect(await check('registry', op, `${base}/nope/choice-contexts/withdraw`, { body: {} })).toBe(404);
      expect(await check('registry', op, `${base}/${ids[0]}/choice-contexts/withdraw`, { body: { meta: 1 } })).toBe(400);
      if (op === 'getAllocationInstructionWithdrawContext') {
        expect(await check('registry', op, `${base}/${moving}/choice-contexts/withdraw`, { body: {} })).toBe(409);
      }
    }
    expect(await check('registry', 'getAllocationFactory', '/registry/allocation-instruction/v2/allocation-factory', { body: r.factoryRequest(25) })).toBe(200);
    expect(await check('registry', 'getAllocationFactory', '/registry/allocation-instruction/v2/allocation-factory', { body: r.factoryRequest(26) })).toBe(400);
  });
});
