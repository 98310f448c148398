import fc from 'fast-check';
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { DEFAULT_MAX_PAGE_SIZE, isObj, scanMaxPageSize, widePage } from '../../../harness/fixtures/scan.js';
import { INT64_MAX, INT64_MIN, invalidPageLimitAbove, invalidPageLimitBelow, pageLimit, pageLimitBounds } from '../../../generators/scan/PageLimits.js';
import { expectStatus, notBusy } from '../../v0-http-checks.js';

type Obj = Record<string, unknown>;

/**
 * What a walk keeps of a page: the exchange without its body text and parsed JSON (a failure's report carries its
 * record, cut to a bound), and of each license the fields the rules read. A walk of limit 1000 over a target with many
 * licenses holds thousands of them, two reference walks at a time per check: full contracts and 1 MB bodies would not
 * stay within memory bounds.
 */
interface Page {
  exchange: Exchange;
  licenses: Obj[];
  token: unknown;
}

/** the fields of a license the rules of this file read, and the parties its payload names */
const slim = (c: Obj): Obj => ({ contract_id: c.contract_id, created_at: c.created_at, template_id: c.template_id, parties: partiesIn(c.payload) });

/** every string of a payload (bounded depth): the parties a license names, whatever its fields are called */
function partiesIn(v: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 6 || out.length > 64) return out;
  if (typeof v === 'string') {
    if (v.includes('::')) out.push(v);
  } else if (Array.isArray(v)) for (const x of v) partiesIn(x, out, depth + 1);
  else if (isObj(v)) for (const x of Object.values(v)) partiesIn(x, out, depth + 1);
  return out;
}
/** the exchange without the body (its record, which a failure reports, is kept) */
const withoutBody = (x: Exchange): Exchange => ({ ...x, text: '', json: undefined, earlier: undefined });

interface Walk {
  pages: Page[];
  licenses: Obj[];
  /** the walk reached a page without next_page_token */
  complete: boolean;
  /** the walk stopped because a page carries a next_page_token the walk already followed: following it never ends */
  loop?: { page: number; token: unknown };
}

const TOKEN_ABSENT = 'scan.list-validator-licenses.token-absent-on-last-page';
const KNOWN_LISTED = 'scan.list-validator-licenses.known-listed';

/** bound of every walk, in pages */
const MAX_PAGES = 12;
/** walks of one property at once: each may hold a whole listing (10 000 licenses in the benchmark's large reference) */
const LICENSE_WALKS_AT_ONCE = 3;
/** bound of the reference walk (limit 1000), in pages */
const MAX_REFERENCE_PAGES = 20;

const tokenOf = (x: Exchange): unknown => (isObj(x.json) ? x.json.next_page_token : undefined);
const hasToken = (v: unknown) => v !== undefined && v !== null;
const keyOf = (c: Obj) => String(c.contract_id);
const timeOf = (c: Obj) => Date.parse(String(c.created_at));

/** follows next_page_token from the first page, at most maxPages pages; stops at a token it already followed (a loop) */
async function walk(t: CheckContext, limit: number | undefined, maxPages = MAX_PAGES): Promise<Walk> {
  const pages: Page[] = [];
  const followed = new Set<string>();
  let after: unknown;
  const done = (complete: boolean, loop?: Walk['loop']): Walk => ({ pages, licenses: pages.flatMap((p) => p.licenses), complete, ...(loop !== undefined ? { loop } : {}) });
  for (let k = 0; k < maxPages; k++) {
    const query: Record<string, string | number> = {};
    if (limit !== undefined) query.limit = limit;
    if (hasToken(after)) query.after = String(after);
    const x = await t.call('listValidatorLicenses', { query });
    expectStatus(t, x, 200, { requirement: 'scan.list-validator-licenses.response-schema' });
    const list = isObj(x.json) && Array.isArray(x.json.validator_licenses) ? x.json.validator_licenses.filter(isObj).map(slim) : [];
    const token = tokenOf(x);
    pages.push({ exchange: withoutBody(x), licenses: list, token });
    if (!hasToken(token)) return done(true);
    if (followed.has(JSON.stringify(token))) return done(false, { page: k + 1, token });
    followed.add(JSON.stringify(token));
    after = token;
  }
  return done(false);
}

/** limits for generated walks: small enough to need several pages, large enough to stay bounded (within the maximum) */
const walkLimits = (t: CheckContext) => {
  const max = scanMaxPageSize(t);
  return max > 16 ? fc.oneof(pageLimit({ min: 1, max: 15 }), pageLimit({ min: 16, max: Math.min(150, max) })) : pageLimit({ min: 1, max });
};

/** the walk with the largest limit (the scan's maximum page size, at most 1000) that generated walks are compared with */
const referenceWalk = (t: CheckContext) => walk(t, widePage(t), MAX_REFERENCE_PAGES);

/**
 * The validator parties whose licenses the target says it holds (fixtures.licensedValidators), or undefined when it
 * names none: then nothing tells which licenses must be listed.
 */
function licensedValidators(t: CheckContext): string[] | undefined {
  const f = t.fixture<unknown>('licensedValidators');
  const parties = Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string' && x !== '') : [];
  return parties.length > 0 ? parties : undefined;
}

/**
 * A walk of the listing to judge "each listed license is ..." rules on, or a skip when it lists nothing: an empty
 * listing passes every such rule, so it judges none of them. Whether licenses are missing is judged by
 * scan.list-validator-licenses.known-listed (against fixtures.licensedValidators).
 */
async function nonEmptyWalk(t: CheckContext): Promise<Walk> {
  const w = await referenceWalk(t);
  if (w.licenses.length === 0) {
    const known = licensedValidators(t);
    t.skip(`the listing is empty, so no listed license can be judged; ${known !== undefined ? `that the ${known.length} licenses of fixtures.licensedValidators are missing is judged by ${KNOWN_LISTED}` : 'no fixtures.licensedValidators names licenses the target holds, so nothing tells whether licenses are missing'}`);
  }
  return w;
}

/** What two reference walks, one before and one after a generated walk, say about the licenses that walk should list. */
interface Reference {
  /** listed by both reference walks: the license existed throughout the generated walk */
  stable: Obj[];
  /** keys listed by either reference walk */
  known: Set<string>;
  /** both reference walks reached their last page */
  complete: boolean;
}

/**
 * Runs `judge` on walks with generated limits, each between a reference walk taken before any of them and one of its
 * own after it, so that licenses created or archived while the walk runs are never counted as skipped or extra. The
 * walks run at once: no case reads another's reference.
 */
async function againstReference(t: CheckContext, judge: (limit: number, w: Walk, ref: Reference) => void): Promise<void> {
  const before = await nonEmptyWalk(t);
  const judgeWalk = async (limit: number) => {
    const w = await walk(t, limit);
    const after = await referenceWalk(t);
    const afterKeys = new Set(after.licenses.map(keyOf));
    const ref: Reference = {
      stable: before.licenses.filter((c) => afterKeys.has(keyOf(c))),
      known: new Set([...before.licenses, ...after.licenses].map(keyOf)),
      complete: before.complete && after.complete,
    };
    judge(limit, w, ref);
  };
  // the documented minimum every run (pages of one license), besides the drawn limits
  await judgeWalk(1);
  await t.property(walkLimits(t), judgeWalk, { runs: t.scaledRuns(10), concurrent: LICENSE_WALKS_AT_ONCE });
}

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
      expectStatus(t, await t.call('listValidatorLicenses', { query: { limit: 10 } }), 200);
      expectStatus(t, await t.call('listValidatorLicenses', {}), 200);
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
      check(await nonEmptyWalk(t));
      await t.property(walkLimits(t), async (limit) => check(await walk(t, limit)), { runs: t.scaledRuns(10), concurrent: LICENSE_WALKS_AT_ONCE });
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
      // SPEC.md names the template's kind only (ValidatorLicense), not its module: the entity name is judged
      const entity = (id: unknown) => (typeof id === 'string' ? id.split(':').pop() : undefined);
      const w = await nonEmptyWalk(t);
      for (const p of w.pages) {
        const bad = p.licenses.find((c) => entity(c.template_id) !== 'ValidatorLicense');
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
      await againstReference(t, (limit, w, ref) => {
        const seen = new Set<string>();
        for (const p of w.pages) {
          for (const c of p.licenses) {
            t.expect(!seen.has(keyOf(c)), `limit ${limit}: license ${keyOf(c)} is listed twice in one walk`, { exchange: p.exchange });
            seen.add(keyOf(c));
          }
        }
        if (w.licenses.length === 0) return;
        const oldest = Math.min(...w.licenses.map(timeOf));
        // every license both walks with limit 1000 list that is newer than the oldest this walk reached must be in it
        const skipped = ref.stable.find((c) => timeOf(c) > oldest && !seen.has(keyOf(c)));
        t.expect(skipped === undefined, `limit ${limit}: the walk skips license ${keyOf(skipped ?? {})} (created ${String(skipped?.created_at)}), which walks with limit 1000 before and after it list`, { exchange: w.pages[w.pages.length - 1]!.exchange });
        if (ref.complete) {
          const extra = w.licenses.find((c) => !ref.known.has(keyOf(c)));
          t.expect(extra === undefined, `limit ${limit}: license ${keyOf(extra ?? {})} is listed by neither walk with limit 1000, before or after it`, { exchange: w.pages[0]!.exchange });
        }
      });
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
      await againstReference(t, (limit, w, ref) => {
        if (!w.complete) return;
        // a first page without licenses and without a token ends the listing before any of the licenses that exist
        if (w.licenses.length === 0) {
          t.expect(ref.stable.length === 0, `limit ${limit}: the walk ends (no next_page_token) on a first page without licenses, but ${ref.stable.length} licenses exist (listed by the walks before and after it)`, { exchange: w.pages[w.pages.length - 1]!.exchange });
          return;
        }
        const oldest = Math.min(...w.licenses.map(timeOf));
        const older = ref.stable.find((c) => timeOf(c) < oldest);
        t.expect(older === undefined, `limit ${limit}: the walk ends (no next_page_token) after ${w.licenses.length} licenses, but older license ${keyOf(older ?? {})} exists`, { exchange: w.pages[w.pages.length - 1]!.exchange });
      });
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.token-absent-on-last-page',
      title: 'a walk that follows next_page_token ends: it reaches a page without one and never comes back to where it was',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: [TOKEN_ABSENT],
    },
    async (t) => {
      // SPEC.md: the last page carries no next_page_token. Splice pages without looking ahead (FACTS.md): every page
      // that holds a license carries a token, a page shorter than the limit included, and the empty page it leads to
      // carries none and is the last one; a server that looks ahead leaves the token off the last page of licenses.
      // Both end the walk. A page that hands out a token the walk already followed sends it round in a loop that never
      // reaches a last page. (A page repeating licenses of earlier pages is judged by
      // scan.list-validator-licenses.after-continues.)
      let ended = 0;
      const check = async (w: Walk, limit: number) => {
        if (w.complete) ended++;
        if (w.loop !== undefined) {
          const loop = w.loop;
          await t.judge(TOKEN_ABSENT, () => t.fail(`limit ${limit}: the walk never ends: page ${loop.page} carries next_page_token ${JSON.stringify(loop.token)}, which the walk already followed`, { requirement: TOKEN_ABSENT, exchange: w.pages[loop.page - 1]!.exchange }));
        }
      };
      await check(await referenceWalk(t), widePage(t));
      await t.property(walkLimits(t), async (limit) => check(await walk(t, limit), limit), { runs: t.scaledRuns(10), concurrent: LICENSE_WALKS_AT_ONCE });
      if (ended === 0) t.notObserved(TOKEN_ABSENT, `no walk reached a page without next_page_token within its bound (${MAX_REFERENCE_PAGES} pages of ${widePage(t)}, ${MAX_PAGES} of smaller limits)`);
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.known-listed',
      title: 'lists the license of every validator the target names (fixtures.licensedValidators)',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: [KNOWN_LISTED],
    },
    async (t) => {
      const known = licensedValidators(t) ?? t.skip('no fixtures.licensedValidators (validator parties that hold a license) is configured: nothing tells which licenses the listing must hold');
      const w = await referenceWalk(t);
      const named = new Set(w.licenses.flatMap((c) => c.parties as string[]));
      const missing = known.filter((p) => !named.has(p));
      if (missing.length === 0) return;
      const last = w.pages[w.pages.length - 1]!.exchange;
      if (!w.complete && w.licenses.length > 0) {
        t.skip(`the licenses of ${missing.length} of the ${known.length} validators of fixtures.licensedValidators (${missing.slice(0, 3).join(', ')}) are not among the ${w.licenses.length} licenses of ${w.pages.length} pages, where the bounded walk stopped before the last page`);
      }
      t.fail(`the listing${w.licenses.length === 0 ? ' is empty: it' : `, walked to its last page (${w.licenses.length} licenses),`} holds no license of ${missing.length} of the ${known.length} validators of fixtures.licensedValidators: ${missing.slice(0, 5).join(', ')}`, { exchange: last });
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.default-limit',
      title: 'a request without limit lists as with limit 1000 (or the scan\'s maximum page size, when it is smaller)',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.default-limit'],
    },
    async (t) => {
      // SPEC.md's default of 1000; an operator's smaller maximum page size (FACTS.md) bounds it
      const limit = Math.min(DEFAULT_MAX_PAGE_SIZE, scanMaxPageSize(t));
      const plain = await t.call('listValidatorLicenses', {});
      expectStatus(t, plain, 200, { requirement: 'scan.list-validator-licenses.response-schema' });
      const explicit = await t.call('listValidatorLicenses', { query: { limit } });
      expectStatus(t, explicit, 200, { requirement: 'scan.list-validator-licenses.response-schema' });
      const list = (x: Exchange) => (isObj(x.json) && Array.isArray(x.json.validator_licenses) ? x.json.validator_licenses.filter(isObj) : []);
      if (list(plain).length === 0 && list(explicit).length === 0) t.skip(`the listing is empty with and without limit ${limit}: two empty pages do not tell the default limit`);
      t.expect(list(plain).length <= limit, `${list(plain).length} licenses without limit`, { exchange: plain });
      t.expect(
        JSON.stringify(list(plain).map(keyOf)) === JSON.stringify(list(explicit).map(keyOf)),
        `without limit ${list(plain).length} licenses are listed, with limit ${limit} ${list(explicit).length}: the default is not ${limit}`,
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
      await nonEmptyWalk(t);
      // the bounds themselves, every run: limit 1 and the largest limit the scan accepts
      for (const limit of pageLimitBounds(scanMaxPageSize(t)).valid) {
        const w = await walk(t, limit, 2);
        for (const p of w.pages) t.expect(p.licenses.length <= limit, `${p.licenses.length} licenses on a page with limit ${limit}`, { exchange: p.exchange });
      }
      await t.property(
        walkLimits(t),
        async (limit) => {
          const w = await walk(t, limit, 3);
          for (const p of w.pages) t.expect(p.licenses.length <= limit, `${p.licenses.length} licenses on a page with limit ${limit}`, { exchange: p.exchange });
        },
        { runs: t.scaledRuns(15), concurrent: LICENSE_WALKS_AT_ONCE },
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
      for (const limit of pageLimitBounds(scanMaxPageSize(t)).invalidBelow) expectStatus(t, await t.call('listValidatorLicenses', { query: { limit } }), 400);
      await t.property(invalidPageLimitBelow(), async (limit) => expectStatus(t, await t.call('listValidatorLicenses', { query: { limit } }), 400), { runs: t.scaledRuns(10), concurrent: true });
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.limit-above-max',
      title: "rejects a limit above the scan's maximum page size (1000 unless configured) with 400",
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.list-validator-licenses.limit-above-max-rejected'],
    },
    async (t) => {
      const max = scanMaxPageSize(t);
      for (const limit of pageLimitBounds(max).invalidAbove) expectStatus(t, await t.call('listValidatorLicenses', { query: { limit } }), 400);
      await t.property(invalidPageLimitAbove(max), async (limit) => expectStatus(t, await t.call('listValidatorLicenses', { query: { limit } }), 400), { runs: t.scaledRuns(10), concurrent: true });
    },
  );

  conformance(
    {
      id: 'scan.list-validator-licenses.after-int64-bounds',
      title: 'takes after up to the int64 bounds and rejects a value beyond them with a 4xx',
      api: 'scan',
      operations: ['listValidatorLicenses'],
      requirements: ['scan.derived.out-of-range-rejected'],
    },
    async (t) => {
      // SPEC.md types after int64: its bounds are integers the query may carry (a 200, or a 4xx for a token the scan
      // never issued, both allowed; a 5xx is judged by the generic rules), one past them is no int64 at all
      for (const after of [INT64_MAX, INT64_MIN]) {
        notBusy(t, await t.call('listValidatorLicenses', { query: { after: String(after), limit: 1 } }));
      }
      for (const after of [INT64_MAX + 1n, INT64_MIN - 1n, 10n ** 19n]) {
        const x = await t.call('listValidatorLicenses', { query: { after: String(after), limit: 1 } });
        notBusy(t, x);
        t.expect(x.status >= 400 && x.status < 500, `after=${after}, beyond the int64 range SPEC.md gives it, answered ${x.status}, not a 4xx`, { exchange: x });
      }
    },
  );
});
