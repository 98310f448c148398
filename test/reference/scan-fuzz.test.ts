/**
 * Random requests against the scan, validator and registry parts of the reference server: no input yields a 5xx, and
 * every failure is a JSON {error: string} body, or a text/plain body where the HTTP framework rejects the request (a
 * 400 or a 401, FACTS.md). (Named scan-fuzz, it covers all three prefixes.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { SignJWT } from 'jose';
import { startReference, type ReferenceServer } from '../../reference/index.js';
import { referenceFixtures } from '../../reference/data/fixtures.js';

const fx = referenceFixtures();
let server: ReferenceServer;
let agent: Agent;
let validatorToken: string;

beforeAll(async () => {
  server = await startReference({ scanVersion: '0.6.7' });
  validatorToken = await new SignJWT({ sub: server.auth.validatorUser }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(server.auth.hs256Secret));
  agent = new Agent({ connections: 4 });
});
afterAll(async () => {
  await agent.close();
  await server.close();
});

// '.' and '..' are dot segments the URL parser removes (leaving the prefix); they are not inputs to this server part
const notDot = (s: string) => !/^(\.|%2e){1,2}$/i.test(s);
const segment = fc.oneof(
  fc.constantFrom(fx.scan.updateIds.transactionWithVerdict, fx.registry.allocationInstructionIds[0]!, fx.registry.transferInstructionIds[0]!, fx.registry.reassigningAllocationInstructionId, fx.validator.featuredProviders[0]!, '', 'x'),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.string({ minLength: 101, maxLength: 300 }).map(encodeURIComponent),
  fc.constantFrom('%', '%E0%A4%A', '%2F', '%00', '~', "'", '(x)'),
).filter(notDot);

const templates: ((s: string) => string)[] = [
  (s) => `/api/scan/v0/events/${s}`,
  () => '/api/scan/v0/events',
  () => '/api/scan/v0/ans-entries',
  () => '/api/scan/v0/admin/validator/licenses',
  () => '/api/scan/v0/activities',
  (s) => `/api/scan/${s}`,
  () => '/api/validator/v0/entry/all',
  () => '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds',
  (s) => `/api/validator/v0/scan-proxy/featured-apps/${s}`,
  () => '/api/validator/v0/scan-proxy/ans-entries',
  (s) => `/api/validator/${s}/${s}`,
  (s) => `/api/registry/registry/allocation-instruction/v2/${s}/choice-contexts/withdraw`,
  (s) => `/api/registry/registry/transfer-instruction/v1/${s}/choice-contexts/withdraw`,
  () => '/api/registry/registry/allocation-instruction/v2/allocation-factory',
  (s) => `/api/registry/registry/${s}`,
];

const queryKey = fc.constantFrom('page_size', 'name_prefix', 'limit', 'after', 'daml_value_encoding', 'x');
const queryValue = fc.oneof(
  fc.integer({ min: -5, max: 2000 }).map(String),
  fc.constantFrom('', '1.5', 'abc', '1e3', 'compact_json', 'protobuf_json', '99999999999999999999999', '-0', ' 1'),
  fc.string({ maxLength: 12 }),
);
const query = fc.array(fc.tuple(queryKey, queryValue), { maxLength: 4 }).map((kv) =>
  kv.length === 0 ? '' : `?${kv.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`,
);

const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      page_size: fc.oneof(fc.integer({ min: -2, max: 1200 }), fc.string({ maxLength: 3 }), fc.constant(null)),
      after: fc.oneof(fc.constant(undefined), fc.record({ after_migration_id: fc.oneof(fc.integer(), fc.string()), after_record_time: fc.oneof(fc.string(), fc.constant('2026-01-01T00:00:00Z')) }, { requiredKeys: [] })),
      daml_value_encoding: fc.oneof(fc.constant(undefined), fc.constantFrom('compact_json', 'protobuf_json', 'x')),
      begin_after_id: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 10 }), fc.integer()),
      excludeDebugFields: fc.oneof(fc.constant(undefined), fc.boolean(), fc.string({ maxLength: 3 })),
      meta: fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 })),
      choiceArguments: fc.oneof(
        fc.constant(undefined),
        fc.jsonValue({ maxDepth: 3 }),
        fc.integer({ min: 0, max: 30 }).map((n) => (fx.registry.factoryRequest(n) as { choiceArguments: unknown }).choiceArguments),
      ),
    },
    { requiredKeys: [] },
  ),
);
const body = fc.oneof(
  fc.constant<string | undefined>(undefined),
  jsonBody.map((b) => JSON.stringify(b)),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('{', '{"page_size":', 'null', '[]', '{"__proto__":{"x":1}}', '\u0000'),
);

describe('random requests', () => {
  it('never produce a 5xx, and failures are {error: string} or a framework 400/401 in text/plain', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: templates.length - 1 }),
        segment,
        query,
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
        body,
        fc.constantFrom('application/json', 'text/plain', undefined),
        fc.constantFrom(undefined, 'Bearer x.y.z', 'Bearer '),
        async (t, seg, q, method, b, contentType, authorization) => {
          const path = templates[t]!(seg) + q;
          const headers: Record<string, string> = {};
          if (b !== undefined && contentType !== undefined) headers['content-type'] = contentType;
          if (authorization !== undefined) headers.authorization = authorization;
          const res = await request(new URL(path, server.urls.ledger), {
            dispatcher: agent,
            method,
            headers,
            body: method === 'GET' || method === 'DELETE' ? undefined : b,
          });
          const text = await res.body.text();
          expect(res.statusCode, `${method} ${path}`).toBeLessThan(500);
          if (res.statusCode >= 400) {
            const type = String(res.headers['content-type'] ?? '');
            if (type.startsWith('text/plain')) {
              expect([400, 401], `${method} ${path}: text/plain ${res.statusCode}`).toContain(res.statusCode);
              expect(text.length).toBeGreaterThan(0);
              if (res.statusCode === 401) expect(res.headers['www-authenticate'], `${method} ${path}: 401 without a challenge`).toBeDefined();
            } else {
              const parsed = JSON.parse(text) as { error?: unknown };
              expect(typeof parsed.error, `${method} ${path}: ${text}`).toBe('string');
            }
          }
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 200) },
    );
  });

  it('routes long path segments to a 404, not a 414', async () => {
    const long = 'a'.repeat(300);
    for (const p of [`/api/scan/v0/events/${long}`, `/api/validator/v0/scan-proxy/featured-apps/${long}`, `/api/registry/registry/transfer-instruction/v1/${long}/choice-contexts/withdraw`]) {
      const res = await request(new URL(p, server.urls.ledger), { dispatcher: agent, method: p.includes('registry') ? 'POST' : 'GET', headers: p.includes('validator') ? { authorization: `Bearer ${validatorToken}` } : {} });
      const text = await res.body.text();
      if (p.includes('featured-apps')) expect(res.statusCode).toBe(200);
      else expect(res.statusCode).toBe(404);
      expect(() => JSON.parse(text) as unknown).not.toThrow();
    }
  });
});
