import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startReference, type ReferenceServer } from '../../reference/index.js';
import { AnsStore } from '../../reference/data/ans.js';
import { LicenseStore } from '../../reference/data/contracts.js';
import { createWorld } from '../../reference/world.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('large data sets', () => {
  // how fast these are is measured by the benchmark (npm run bench), not asserted here
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReference({ size: { ansEntries: 100_000, validatorLicenses: 10_000 } });
  });
  afterAll(async () => server.close());

  it('walks all 10 000 validator licenses page by page', async () => {
    const ids = new Set<string>();
    let after: number | undefined;
    let pages = 0;
    let lastCreated = Infinity;
    for (let bound = 0; bound < 20; bound++) {
      const r = await fetch(`${server.urls.scan}/v0/admin/validator/licenses?limit=1000${after === undefined ? '' : `&after=${after}`}`);
      expect(r.status).toBe(200);
      const body = (await r.json()) as Json;
      for (const c of body.validator_licenses) {
        ids.add(c.contract_id);
        const t = Date.parse(c.created_at);
        expect(t).toBeLessThan(lastCreated);
        lastCreated = t;
      }
      pages++;
      if (body.next_page_token === undefined || body.next_page_token === null) break;
      after = body.next_page_token;
    }
    expect(pages).toBe(10);
    expect(ids.size).toBe(10_000);
  });

  it('answers prefix queries over 100 000 ANS entries', async () => {
    for (const [prefix, size] of [['alice-0999', 10], ['a', 1000], ['', 1000], ['bob-01', 50], ['judy-9999', 5], ['zz', 5]] as const) {
      const r = await fetch(`${server.urls.scan}/v0/ans-entries?page_size=${size}&name_prefix=${prefix}`);
      expect(r.status).toBe(200);
      const body = (await r.json()) as Json;
      expect(body.entries.length).toBeLessThanOrEqual(size);
      for (const e of body.entries) expect(e.name.startsWith(prefix)).toBe(true);
    }
    const one = (await (await fetch(`${server.urls.scan}/v0/ans-entries?page_size=3&name_prefix=alice-9999`)).json()) as Json;
    expect(one.entries.map((e: Json) => e.name)).toEqual(['alice-99994.unverified.cns']);
  });
});

describe('ANS index', () => {
  it('agrees with a full scan for any prefix and page size', () => {
    const store = new AnsStore(createWorld(), 3_000);
    const now = Date.now();
    const names = Array.from({ length: store.size }, (_, i) => store.name(i));
    const brute = (prefix: string, pageSize: number) => {
      const out: string[] = [];
      for (let i = 0; i < store.size && out.length < pageSize; i++) if (store.isActive(i, now) && names[i]!.startsWith(prefix)) out.push(names[i]!);
      for (const d of store.dsoEntries) if (out.length < pageSize && d.name.startsWith(prefix)) out.push(d.name);
      return out;
    };
    const prefixArb = fc.oneof(
      fc.constantFrom('', 'a', 'alice', 'alice-0', 'alice-01', 'bob-02', 'judy-2999', 'validator-00', 'd', 'ds', 'sv-', 'x'),
      fc.nat({ max: 2999 }).chain((i) => fc.nat({ max: 30 }).map((n) => names[i]!.slice(0, n))),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(prefixArb, fc.integer({ min: 1, max: 1000 }), (prefix, pageSize) => {
        expect(store.list(prefix, pageSize, now).map((e) => e.name)).toEqual(brute(prefix, pageSize));
      }),
      { numRuns: 300 },
    );
  });

  it('license pages cover every sequence number once', () => {
    const store = new LicenseStore(37, 'dso', ['sv'], { dayMs: Date.UTC(2026, 0, 1) });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), (limit) => {
        const seen: string[] = [];
        let after: number | undefined;
        for (;;) {
          const p = store.page(after, limit);
          seen.push(...p.licenses.map((l) => l.contract_id));
          if (p.next === undefined) break;
          after = p.next;
        }
        expect(seen.length).toBe(37);
        expect(new Set(seen).size).toBe(37);
      }),
      { numRuns: 40 },
    );
  });
});
