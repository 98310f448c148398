import fc from 'fast-check';
import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';

interface AnsEntry {
  name: string;
}

describe('GET /v0/ans-entries', () => {
  conformance(
    {
      id: 'scan.list-ans-entries.schema',
      title: 'answers 200 with entries that match the AnsEntry schema',
      api: 'scan',
      operations: ['listAnsEntries'],
      requirements: ['scan.list-ans-entries.response-schema'],
    },
    async (t) => {
      const x = await t.call('listAnsEntries', { query: { page_size: 50 } });
      t.expectStatus(x, 200);
    },
  );

  conformance(
    {
      id: 'scan.list-ans-entries.prefix-and-page-size',
      title: 'returns at most page_size entries, each starting with name_prefix',
      api: 'scan',
      operations: ['listAnsEntries'],
      requirements: ['scan.list-ans-entries.at-most-page-size', 'scan.list-ans-entries.name-prefix-match'],
    },
    async (t) => {
      // prefixes are drawn from names the target actually has, so the property exercises non-empty results
      const seed = await t.call('listAnsEntries', { query: { page_size: 100 } });
      t.expectStatus(seed, 200);
      const names = ((seed.json as { entries?: AnsEntry[] }).entries ?? []).map((e) => e.name);
      const prefix = names.length > 0 ? fc.constantFrom(...names).chain((n) => fc.nat({ max: n.length }).map((k) => n.slice(0, k))) : fc.string({ maxLength: 4 });
      await t.property(fc.record({ prefix, pageSize: fc.integer({ min: 1, max: 40 }) }), async ({ prefix: p, pageSize }) => {
        const x = await t.call('listAnsEntries', { query: { name_prefix: p, page_size: pageSize } });
        t.expectStatus(x, 200, { requirement: 'scan.list-ans-entries.response-schema' });
        const entries = (x.json as { entries?: AnsEntry[] }).entries ?? [];
        t.expect(entries.length <= pageSize, `${entries.length} entries returned for page_size ${pageSize}`, { requirement: 'scan.list-ans-entries.at-most-page-size', exchange: x });
        const stray = entries.find((e) => typeof e.name === 'string' && !e.name.startsWith(p));
        t.expect(stray === undefined, `entry "${stray?.name}" does not start with the prefix "${p}"`, { requirement: 'scan.list-ans-entries.name-prefix-match', exchange: x });
      });
    },
  );
});
