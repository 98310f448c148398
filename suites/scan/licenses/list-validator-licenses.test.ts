import fc from 'fast-check';
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/http.js';
import { isObj } from '../../../harness/fixtures/scan.js';
import { invalidPageLimitAbove, invalidPageLimitBelow, MAX_PAGE, pageLimit } from '../../../generators/scan/PageLimits.js';

type Obj = Record<string, unknown>;

interface Page {
  exchange: Exchange;
  licenses: Obj[];
  token: unknown;
}

interface Walk {
  pages: Page[];
  licenses: Obj[];
  /** the walk reached a page without next_page_token */
  complete: boolean;
}

/** bound of every walk, in pages */
const MAX_PAGES = 12;
/** bound of the reference walk (limit 1000), in pages */
const MAX_REFERENCE_PAGES = 20;

const tokenOf = (x: Exchange): unknown => (isObj(x.json) ? x.json.next_page_token : undefined);
const hasToken = (v: unknown) => v !== undefined && v !== null;
const keyOf = (c: Obj) => String(c.contract_id);
const timeOf = (c: Obj) => Date.parse(String(c.created_at));

/** follows next_page_token from the first page, at most maxPages pages */
async function walk(t: CheckContext, limit: number | undefined, maxPages = MAX_PAGES): Promise<Walk> {
  const pages: Page[] = [];
  let after: unknown;
  for (let k = 0; k < maxPages; k++) {
    const query: Record<string, string | number> = {};
    if (limit !== undefined) query.limit = limit;
    if (hasToken(after)) query.after = String(after);
    const x = await t.call('listValidatorLicenses', { query });
    t.expectStatus(x, 200, { requirement: 'scan.list-validator-licenses.response-schema' });
    const list = isObj(x.json) && Array.isArray(x.json.validator_licenses) ? x.json.validator_licenses.filter(isObj) : [];
    const token = tokenOf(x);
    pages.push({ exchange: x, licenses: list, token });
    if (!hasToken(token)) return { pages, licenses: pages.flatMap((p) => p.licenses), complete: true };
    after = token;
  }
  return { pages, licenses: pages.flatMap((p) => p.licenses), complete: false };
}

const references = new Map<string, Promise<Walk>>();
/** the walk with limit 1000, once per worker and target */
function referenceWalk(t: CheckContext): Promise<Walk> {
  const key = t.target.url;
  let p = references.get(key);
  if (p === undefined) {
    p = walk(t, MAX_PAGE, MAX_REFERENCE_PAGES);
    references.set(key, p);
  }
  return p;
}

/** limits for generated walks: small enough to need several pages, large enough to stay bounded */
const walkLimits = () => fc.oneof(pageLimit({ min: 1, max: 15 }), pageLimit({ min: 16, max: 150 }));
const runsOf = (t: CheckContext) => t.scaledRuns(10);

describe('GET /v0/admin/validator/licenses', () => {
  conformance(
    {
      id: 'scan.list-validator-licenses.schema',
      title: 'answers 200 with validator_licenses, a list of Contract, and an optional next_page_token',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.response-schema'],
    },
    async (t) => {
      t.expectStatus(await t.call('listValidatorLicenses', { query: { limit: 10 } }), 200);
      t.expectStatus(await t.call('listValidatorLicenses', {}), 200);
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.newest-first',
      title: 'lists licenses newest first, within and across pages',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.newest-first'],
    },
    async (t) => {
      const check = (w: Walk) => {
        let prev: Obj | undefined;
        for (const p of w.pages) {
          for (const c of p.licenses) {
            t.expect(prev === undefined || !(timeOf(c) > timeOf(prev)), `license ${keyOf(c)} created ${String(c.created_at)} follows ${keyOf(prev ?? {})} created ${String(prev?.created_at)}`, { exchange: p.exchange });
            prev = c;
          }
        }
      };
      check(await referenceWalk(t));
      await t.property(walkLimits(), async (limit) => check(await walk(t, limit)), { runs: runsOf(t) });
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.template',
      title: 'every listed contract is a ValidatorLicense',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.validator-license-template'],
    },
    async (t) => {
      const w = await referenceWalk(t);
      for (const p of w.pages) {
        const bad = p.licenses.find((c) => typeof c.template_id !== 'string' || !/(^|:)Splice\.ValidatorLicense:ValidatorLicense$/.test(c.template_id));
        t.expect(bad === undefined, `contract ${keyOf(bad ?? {})} has template_id ${JSON.stringify(bad?.template_id)}`, { exchange: p.exchange });
      }
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.after-continues',
      title: 'after continues a walk without repeating or skipping licenses, whatever the limit',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.after-continues'],
    },
    async (t) => {
      const ref = await referenceWalk(t);
      const refKeys = new Set(ref.licenses.map(keyOf));
      await t.property(
        walkLimits(),
        async (limit) => {
          const w = await walk(t, limit);
          const seen = new Set<string>();
          for (const p of w.pages) {
            for (const c of p.licenses) {
              t.expect(!seen.has(keyOf(c)), `limit ${limit}: license ${keyOf(c)} is listed twice in one walk`, { exchange: p.exchange });
              seen.add(keyOf(c));
            }
          }
          if (w.licenses.length === 0) return;
          const oldest = Math.min(...w.licenses.map(timeOf));
          // every license the reference walk lists that is newer than the oldest this walk reached must be in it
          const skipped = ref.licenses.find((c) => timeOf(c) > oldest && !seen.has(keyOf(c)));
          t.expect(skipped === undefined, `limit ${limit}: the walk skips license ${keyOf(skipped ?? {})} (created ${String(skipped?.created_at)}), which a walk with limit 1000 lists`, { exchange: w.pages[w.pages.length - 1]!.exchange });
          if (ref.complete) {
            const extra = w.licenses.find((c) => !refKeys.has(keyOf(c)));
            t.expect(extra === undefined, `limit ${limit}: license ${keyOf(extra ?? {})} is not listed by a walk with limit 1000`, { exchange: w.pages[0]!.exchange });
          }
        },
        { runs: runsOf(t) },
      );
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.token-present-when-more',
      title: 'a page followed by further licenses carries a next_page_token',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.token-present-when-more'],
    },
    async (t) => {
      const ref = await referenceWalk(t);
      await t.property(
        walkLimits(),
        async (limit) => {
          const w = await walk(t, limit);
          if (!w.complete || w.licenses.length === 0) return;
          const oldest = Math.min(...w.licenses.map(timeOf));
          const older = ref.licenses.find((c) => timeOf(c) < oldest);
          t.expect(older === undefined, `limit ${limit}: the walk ends (no next_page_token) after ${w.licenses.length} licenses, but older license ${keyOf(older ?? {})} exists`, { exchange: w.pages[w.pages.length - 1]!.exchange });
        },
        { runs: runsOf(t) },
      );
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.token-absent-on-last-page',
      title: 'the last page carries no next_page_token',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.token-absent-on-last-page'],
    },
    async (t) => {
      const check = (w: Walk, limit: number) => {
        w.pages.forEach((p, k) => {
          const next = w.pages[k + 1];
          if (hasToken(p.token) && next !== undefined) {
            t.expect(next.licenses.length > 0, `limit ${limit}: page ${k + 1} carries next_page_token ${JSON.stringify(p.token)}, but it was the last page (the next one is empty)`, { exchange: p.exchange });
          }
        });
      };
      check(await referenceWalk(t), MAX_PAGE);
      await t.property(walkLimits(), async (limit) => check(await walk(t, limit), limit), { runs: runsOf(t) });
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.default-limit',
      title: 'a request without limit lists as with limit 1000',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.default-limit'],
    },
    async (t) => {
      const plain = await t.call('listValidatorLicenses', {});
      t.expectStatus(plain, 200, { requirement: 'scan.list-validator-licenses.response-schema' });
      const explicit = await t.call('listValidatorLicenses', { query: { limit: MAX_PAGE } });
      t.expectStatus(explicit, 200, { requirement: 'scan.list-validator-licenses.response-schema' });
      const list = (x: Exchange) => (isObj(x.json) && Array.isArray(x.json.validator_licenses) ? x.json.validator_licenses.filter(isObj) : []);
      t.expect(list(plain).length <= MAX_PAGE, `${list(plain).length} licenses without limit`, { exchange: plain });
      t.expect(
        JSON.stringify(list(plain).map(keyOf)) === JSON.stringify(list(explicit).map(keyOf)),
        `without limit ${list(plain).length} licenses are listed, with limit 1000 ${list(explicit).length}: the default is not 1000`,
        { exchange: plain },
      );
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.limit-respected',
      title: 'a page holds at most limit licenses',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.limit-respected'],
    },
    async (t) => {
      await t.property(
        walkLimits(),
        async (limit) => {
          const w = await walk(t, limit, 3);
          for (const p of w.pages) t.expect(p.licenses.length <= limit, `${p.licenses.length} licenses on a page with limit ${limit}`, { exchange: p.exchange });
        },
        { runs: t.scaledRuns(15) },
      );
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.limit-below-min',
      title: 'rejects a limit below 1 with 400',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.limit-below-min-rejected'],
    },
    async (t) => {
      await t.property(invalidPageLimitBelow(), async (limit) => t.expectStatus(await t.call('listValidatorLicenses', { query: { limit } }), 400), { runs: runsOf(t) });
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.limit-above-max',
      title: 'rejects a limit above 1000 with 400',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.limit-above-max-rejected'],
    },
    async (t) => {
      await t.property(invalidPageLimitAbove(), async (limit) => t.expectStatus(await t.call('listValidatorLicenses', { query: { limit } }), 400), { runs: runsOf(t) });
    },
  );
});
