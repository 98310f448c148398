/**
 * The checks scan's GET /v0/ans-entries and the validator's GET /v0/scan-proxy/ans-entries share (both list AnsEntry
 * by name_prefix and page_size): declared by each endpoint's test file with its own literal check ids, against its
 * own requirement ids, so both are judged alike.
 */
import fc from 'fast-check';
import { conformance, type CheckContext } from '../harness/conformance.js';
import { ansNames, dsoAndSvs, isDsoProvided, isExpired, listAns, urlEmptyOrHttp } from '../harness/fixtures/scan.js';
import { ansNamePrefix } from '../generators/scan/AnsNamePrefix.js';
import { pageLimit } from '../generators/scan/PageLimits.js';

export type AnsListingOperation = 'listAnsEntries' | 'listScanProxyAnsEntries';

export interface AnsListingCheckIds {
  prefixAndPageSize: string;
  nonExpired: string;
  contractIdAbsentOnlyDso: string;
  expiresAtAbsentOnlyDso: string;
  urlEmptyOrHttp: string;
}

const REQ = {
  listAnsEntries: {
    api: 'scan',
    atMostPageSize: 'scan.list-ans-entries.at-most-page-size',
    namePrefixMatch: 'scan.list-ans-entries.name-prefix-match',
    nonExpired: 'scan.list-ans-entries.non-expired-only',
    contractIdAbsentOnlyDso: 'scan.ans.contract-id-absent-only-dso',
    expiresAtAbsentOnlyDso: 'scan.ans.expires-at-absent-only-dso',
    urlEmptyOrHttp: 'scan.ans.url-empty-or-http',
  },
  listScanProxyAnsEntries: {
    api: 'validator',
    atMostPageSize: 'validator.list-scan-proxy-ans-entries.at-most-page-size',
    namePrefixMatch: 'validator.list-scan-proxy-ans-entries.name-prefix-match',
    nonExpired: 'validator.list-scan-proxy-ans-entries.non-expired-only',
    contractIdAbsentOnlyDso: 'validator.ans.contract-id-absent-only-dso',
    expiresAtAbsentOnlyDso: 'validator.ans.expires-at-absent-only-dso',
    urlEmptyOrHttp: 'validator.ans.url-empty-or-http',
  },
} as const;

/** name prefixes drawn from the names the listing shows (so results are not all empty), with page sizes up to maxPage */
async function cases(t: CheckContext, op: AnsListingOperation, maxPage = 40) {
  const names = await ansNames(t, op);
  return fc.record({ prefix: ansNamePrefix(names), pageSize: pageLimit({ max: maxPage }) });
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
      await t.property(await cases(t, op), async ({ prefix, pageSize }) => {
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
