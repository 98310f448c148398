/**
 * The checks scan's GET /v0/ans-entries and the validator's GET /v0/scan-proxy/ans-entries share (both list AnsEntry
 * by name_prefix and page_size): declared by each endpoint's test file with its own literal check ids, against its
 * own requirement ids, so both are judged alike.
 */
import fc from 'fast-check';
import { conformance, type CheckContext } from '../harness/conformance.js';
import { ansNames, CLOCK_SKEW_MS, dsoAndSvs, entryKey, isDsoProvided, isExpired, isObj, listAns, scanMaxPageSize, urlEmptyOrHttp, validatorUserIfAny, widePage, type AnsEntryLike } from '../harness/fixtures/scan.js';
import type { Exchange } from '../harness/transport/http.js';
import { ansNamePrefix } from '../generators/scan/AnsNamePrefix.js';
import { pageLimit, pageLimitBounds } from '../generators/scan/PageLimits.js';

export type AnsListingOperation = 'listAnsEntries' | 'listScanProxyAnsEntries';

export interface AnsListingCheckIds {
  prefixAndPageSize: string;
  nonExpired: string;
  contractIdAbsentOnlyDso: string;
  expiresAtAbsentOnlyDso: string;
  urlEmptyOrHttp: string;
  matchingListed: string;
}

const REQ = {
  listAnsEntries: {
    api: 'scan',
    atMostPageSize: 'scan.list-ans-entries.at-most-page-size',
    matchingListed: 'scan.list-ans-entries.matching-listed',
    namePrefixMatch: 'scan.list-ans-entries.name-prefix-match',
    nonExpired: 'scan.list-ans-entries.non-expired-only',
    contractIdAbsentOnlyDso: 'scan.ans.contract-id-absent-only-dso',
    expiresAtAbsentOnlyDso: 'scan.ans.expires-at-absent-only-dso',
    urlEmptyOrHttp: 'scan.ans.url-empty-or-http',
  },
  listScanProxyAnsEntries: {
    api: 'validator',
    atMostPageSize: 'validator.list-scan-proxy-ans-entries.at-most-page-size',
    matchingListed: 'validator.list-scan-proxy-ans-entries.matching-listed',
    namePrefixMatch: 'validator.list-scan-proxy-ans-entries.name-prefix-match',
    nonExpired: 'validator.list-scan-proxy-ans-entries.non-expired-only',
    contractIdAbsentOnlyDso: 'validator.ans.contract-id-absent-only-dso',
    expiresAtAbsentOnlyDso: 'validator.ans.expires-at-absent-only-dso',
    urlEmptyOrHttp: 'validator.ans.url-empty-or-http',
  },
} as const;

/**
 * Names of entries the listing shows, and for the scan-proxy those scan shows too (a proxy that lists nothing is then
 * still asked for names that exist), so that drawn prefixes are not all of names no one has.
 */
export async function knownAnsNames(t: CheckContext, op: AnsListingOperation): Promise<string[]> {
  const own = await ansNames(t, op);
  if (op !== 'listScanProxyAnsEntries' || t.config.targets.scan === undefined) return own;
  return [...new Set([...own, ...(await ansNames(t, 'listAnsEntries'))])];
}

/** name prefixes drawn from the names the listings show (so results are not all empty), with page sizes up to maxPage */
async function cases(t: CheckContext, op: AnsListingOperation, maxPage = 40) {
  const names = await knownAnsNames(t, op);
  // an empty listing passes every "each listed entry is ..." rule: it judges none of them (whether entries are
  // missing is judged by the matching-listed rule, against the entries the suite knows of)
  if (names.length === 0) t.skip(`${op === 'listAnsEntries' ? 'the listing' : "the proxy's listing (and scan's)"} shows no entry, so no listed entry can be judged; whether entries are missing is judged by ${REQ[op].matchingListed}`);
  return fc.record({ prefix: ansNamePrefix(names), pageSize: pageLimit({ max: Math.min(maxPage, scanMaxPageSize(t)) }) });
}

/** an entry the suite knows exists, and where it learnt of it */
interface KnownEntry {
  name: string;
  from: string;
  /** its expiry when the source gives one (ms) */
  expiresMs?: number;
}

/** at most this many known names are each looked up by their full name */
const KNOWN_LOOKUPS = 24;

/**
 * Entries the suite knows exist, whatever the listing under test shows: those the scan target names in creation order
 * (fixtures.ansEntriesOldestFirst), those the validator user owns (GET /v0/entry/all, unexpired), and those of the
 * unfiltered listings of scan and of the proxy (regular entries, unexpired).
 */
async function knownEntries(t: CheckContext, op: AnsListingOperation): Promise<{ known: KnownEntry[]; unfiltered: AnsEntryLike[] }> {
  const out = new Map<string, KnownEntry>();
  const add = (e: KnownEntry) => {
    if (!out.has(e.name)) out.set(e.name, e);
  };
  const named = t.config.targets.scan?.fixtures.ansEntriesOldestFirst;
  if (Array.isArray(named)) for (const n of named) if (typeof n === 'string' && n !== '') add({ name: n, from: "the scan target's fixtures.ansEntriesOldestFirst (an entry that expired since is to be taken off it)" });
  // another interface is asked only when the run selects it too: `--only scan` sends the validator nothing
  const selected = (api: 'scan' | 'validator') => t.config.targets[api] !== undefined && t.config.run.only.includes(api);
  if (selected('validator')) {
    const auth = await validatorUserIfAny(t);
    if (auth !== 'none') {
      const x = await t.clientFor('validator').call('listOwnedAnsEntries', { auth, conform: false });
      const entries = x.status === 200 && isObj(x.json) && Array.isArray(x.json.entries) ? x.json.entries.filter(isObj) : [];
      for (const e of entries) {
        const expiresMs = typeof e.expiresAt === 'string' ? Date.parse(e.expiresAt) : undefined;
        if (typeof e.name === 'string' && e.name !== '') add({ name: e.name, from: "the validator user's GET /v0/entry/all", ...(expiresMs !== undefined && Number.isFinite(expiresMs) ? { expiresMs } : {}) });
      }
    }
  }
  const ops: AnsListingOperation[] = op === 'listScanProxyAnsEntries' && selected('scan') ? [op, 'listAnsEntries'] : [op];
  let unfiltered: AnsEntryLike[] = [];
  for (const o of ops) {
    const l = await listAns(t, o, { page_size: widePage(t) });
    if (o === op) unfiltered = l.entries;
    for (const e of l.entries) {
      const expiresMs = typeof e.expires_at === 'string' ? Date.parse(e.expires_at) : undefined;
      if (typeof e.contract_id === 'string' && typeof e.name === 'string' && e.name !== '') add({ name: e.name, from: o === op ? 'an unfiltered listing' : "scan's unfiltered listing", ...(expiresMs !== undefined && Number.isFinite(expiresMs) ? { expiresMs } : {}) });
    }
  }
  return { known: [...out.values()], unfiltered };
}

/** a bounded, deterministic choice of known entries: every fixture and owned one first, then the listing's ends */
function sampleKnown(known: KnownEntry[]): KnownEntry[] {
  const first = known.filter((k) => !k.from.includes('listing'));
  const listed = known.filter((k) => k.from.includes('listing'));
  const ends = [...listed.slice(0, 6), ...listed.slice(-6), ...listed.filter((_, i) => i % Math.max(1, Math.floor(listed.length / 6)) === 0)];
  return [...new Set([...first, ...ends])].slice(0, KNOWN_LOOKUPS);
}

export function ansListingChecks(op: AnsListingOperation, ids: AnsListingCheckIds): void {
  const req = REQ[op];
  const { api } = req;
  const operations = [op];

  conformance(
    {
      id: ids.prefixAndPageSize,
      title: 'returns at most page_size entries, each starting with name_prefix',
      api,
      operations,
      requirements: [req.atMostPageSize, req.namePrefixMatch],
    },
    async (t) => {
      const arb = await cases(t, op);
      // the bounds every run, unfiltered: page_size 1 and the scan's maximum page size
      for (const pageSize of pageLimitBounds(scanMaxPageSize(t)).valid) {
        const l = await listAns(t, op, { page_size: pageSize });
        await t.judge(req.atMostPageSize, () =>
          t.expect(l.entries.length <= pageSize, `${l.entries.length} entries returned for page_size ${pageSize}`, { requirement: req.atMostPageSize, exchange: l.exchange }),
        );
      }
      await t.property(arb, async ({ prefix, pageSize }) => {
        const l = await listAns(t, op, { name_prefix: prefix, page_size: pageSize });
        // each requirement in its own block: a page too long is still judged on its names, and the other way round
        await t.judge(req.atMostPageSize, () =>
          t.expect(l.entries.length <= pageSize, `${l.entries.length} entries returned for page_size ${pageSize}`, { requirement: req.atMostPageSize, exchange: l.exchange }),
        );
        await t.judge(req.namePrefixMatch, () => {
          const stray = l.entries.find((e) => typeof e.name === 'string' && !e.name.startsWith(prefix));
          t.expect(stray === undefined, `entry "${String(stray?.name)}" does not start with the prefix "${prefix}"`, { requirement: req.namePrefixMatch, exchange: l.exchange });
        });
      });
    },
  );

  conformance(
    {
      id: ids.matchingListed,
      title: 'lists every unexpired entry it knows of for a prefix of its name, unless the page is full',
      api,
      operations,
      requirements: [req.matchingListed],
    },
    async (t) => {
      const { known, unfiltered } = await knownEntries(t, op);
      if (known.length === 0) t.skip('no entry is known to exist: no listing shows one, the validator user owns none and no fixtures.ansEntriesOldestFirst is configured, so nothing tells what must be listed');
      const max = widePage(t);
      const alive = (k: KnownEntry) => k.expiresMs === undefined || k.expiresMs > Date.now() + CLOCK_SKEW_MS;
      // a page is full when its regular entries fill it: DSO-provided entries (no contract_id) may only be added when
      // fewer than page_size entries are found (FACTS.md), so they never take the room of a matching entry
      const regularCount = (es: AnsEntryLike[]) => es.filter((e) => typeof e.contract_id === 'string').length;
      // each known entry, asked for by its whole name: the page holds it unless it is full of other entries
      for (const k of sampleKnown(known).filter(alive)) {
        let l = await listAns(t, op, { name_prefix: k.name, page_size: max });
        // an entry its owner's validator shows before scan has ingested it is missing once: asked again, it is there
        if (!l.entries.some((e) => e.name === k.name) && regularCount(l.entries) < max) l = await listAns(t, op, { name_prefix: k.name, page_size: max });
        if (l.entries.some((e) => e.name === k.name) || regularCount(l.entries) >= max) continue;
        t.fail(`entry "${k.name}", known from ${k.from}, is not listed for name_prefix "${k.name}" (page_size ${max}, ${l.entries.length} entries listed), twice in a row`, { requirement: req.matchingListed, exchange: l.exchange });
      }
      // the unfiltered listing (no prefix matches every name) holds every entry known from elsewhere (fixtures, the
      // owner's listing) unless its regular entries fill the page
      const elsewhere = sampleKnown(known).filter((k) => alive(k) && !k.from.includes('listing'));
      if (elsewhere.length > 0 && regularCount(unfiltered) < max) {
        const missing = (es: AnsEntryLike[]) => elsewhere.find((k) => !es.some((e) => e.name === k.name));
        let l: { entries: AnsEntryLike[]; exchange?: Exchange } = { entries: unfiltered };
        if (missing(l.entries) !== undefined) l = await listAns(t, op, { page_size: max });
        const miss = regularCount(l.entries) < max ? missing(l.entries) : undefined;
        t.expect(miss === undefined, `entry "${String(miss?.name)}", known from ${String(miss?.from)}, is not in the listing without name_prefix (page_size ${max}, ${regularCount(l.entries)} regular entries listed), twice in a row`, { requirement: req.matchingListed, ...(l.exchange !== undefined ? { exchange: l.exchange } : {}) });
      }
      // prefixes of the known names with small pages: a page with room holds every entry of the unfiltered listing
      // (when that one was not full) that matches; the empty prefix with pages of 1 and 2 every run
      const complete = unfiltered.length < max;
      const names = known.map((k) => k.name);
      const judgePage = async ({ prefix, pageSize }: { prefix: string; pageSize: number }) => {
        const l = await listAns(t, op, { name_prefix: prefix, page_size: pageSize });
        if (regularCount(l.entries) >= pageSize || !complete) return;
        const listed = new Set(l.entries.map(entryKey));
        const missed = unfiltered.find((e) => typeof e.name === 'string' && e.name.startsWith(prefix) && typeof e.contract_id === 'string' && !listed.has(entryKey(e)) && !isExpired(e, Date.now() + 2 * CLOCK_SKEW_MS));
        t.expect(missed === undefined, `entry "${String(missed?.name)}" (${String(missed?.contract_id)}) matches name_prefix "${prefix}" and is listed without a prefix, but the listing for "${prefix}" with page_size ${pageSize} leaves it out with room to spare (${regularCount(l.entries)} regular entries of ${l.entries.length})`, { requirement: req.matchingListed, exchange: l.exchange });
      };
      for (const pageSize of [1, 2]) await judgePage({ prefix: '', pageSize });
      await t.property(fc.record({ prefix: ansNamePrefix(names), pageSize: pageLimit({ max: 40 }) }), judgePage, { runs: t.scaledRuns(15), concurrent: true });
    },
  );

  conformance(
    { id: ids.nonExpired, title: 'lists no entry whose expires_at has passed', api, operations, requirements: [req.nonExpired] },
    async (t) => {
      await t.property(await cases(t, op, 200), async ({ prefix, pageSize }) => {
        const l = await listAns(t, op, { name_prefix: prefix, page_size: pageSize });
        const expired = l.entries.find((e) => isExpired(e, Date.now()));
        t.expect(expired === undefined, `entry "${String(expired?.name)}" expired at ${String(expired?.expires_at)}`, { exchange: l.exchange });
      });
    },
  );

  conformance(
    { id: ids.contractIdAbsentOnlyDso, title: 'an entry without contract_id belongs to the DSO or an SV', api, operations, requirements: [req.contractIdAbsentOnlyDso] },
    async (t) => {
      const { dso, svs } = await dsoAndSvs(t);
      if (dso === undefined) t.skip('the DSO party is unknown: no scan validator license names it and no fixtures.dsoParty is configured');
      await t.property(await cases(t, op), async ({ prefix, pageSize }) => {
        const l = await listAns(t, op, { name_prefix: prefix, page_size: pageSize });
        const bad = l.entries.find((e) => (e.contract_id === undefined || e.contract_id === null) && !isDsoProvided(e, dso, svs));
        t.expect(bad === undefined, `entry "${String(bad?.name)}" of ${String(bad?.user)}, neither the DSO nor a known SV, has no contract_id`, { exchange: l.exchange });
      });
    },
  );

  conformance(
    { id: ids.expiresAtAbsentOnlyDso, title: 'an entry with a contract_id carries an expires_at', api, operations, requirements: [req.expiresAtAbsentOnlyDso] },
    async (t) => {
      await t.property(await cases(t, op), async ({ prefix, pageSize }) => {
        const l = await listAns(t, op, { name_prefix: prefix, page_size: pageSize });
        const bad = l.entries.find((e) => typeof e.contract_id === 'string' && typeof e.expires_at !== 'string');
        t.expect(bad === undefined, `entry "${String(bad?.name)}" has contract_id ${String(bad?.contract_id)} but expires_at ${JSON.stringify(bad?.expires_at)}`, { exchange: l.exchange });
      });
    },
  );

  conformance(
    { id: ids.urlEmptyOrHttp, title: "an entry's url is empty or an http(s) URL", api, operations, requirements: [req.urlEmptyOrHttp] },
    async (t) => {
      await t.property(await cases(t, op, 100), async ({ prefix, pageSize }) => {
        const l = await listAns(t, op, { name_prefix: prefix, page_size: pageSize });
        const bad = l.entries.find((e) => !urlEmptyOrHttp(e.url));
        t.expect(bad === undefined, `entry "${String(bad?.name)}" has url ${JSON.stringify(bad?.url)}`, { exchange: l.exchange });
      });
    },
  );
}
