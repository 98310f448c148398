import fc from 'fast-check';
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { ansNames, dsoAndSvs, isDsoProvided, isExpired, listAns, urlEmptyOrHttp } from '../../../harness/fixtures/scan.js';
import { ansNamePrefix } from '../../../generators/scan/AnsNamePrefix.js';
import { pageLimit } from '../../../generators/scan/PageLimits.js';

const OP = 'listScanProxyAnsEntries';

async function cases(t: CheckContext, maxPage = 40) {
  const names = await ansNames(t, OP);
  return fc.record({ prefix: ansNamePrefix(names), pageSize: pageLimit({ max: maxPage }) });
}

describe('GET /v0/scan-proxy/ans-entries', () => {
  conformance(
    {
      id: 'validator.list-scan-proxy-ans-entries.schema',
      title: 'answers 200 with entries, a list of AnsEntry',
      api: 'validator',
      operations: [OP],
      requirements: ['validator.list-scan-proxy-ans-entries.response-schema'],
    },
    async (t) => {
      t.expectStatus(await t.call(OP, { query: { page_size: 50 } }), 200);
    },
  );

  conformance(
    {
      id: 'validator.list-scan-proxy-ans-entries.page-size-required',
      title: 'rejects a request without page_size with 400',
      api: 'validator',
      operations: [OP],
      requirements: ['validator.list-scan-proxy-ans-entries.page-size-required'],
    },
    async (t) => {
      t.expectStatus(await t.call(OP, { query: {} }), 400);
    },
  );

  conformance(
    {
      id: 'validator.list-scan-proxy-ans-entries.agrees-with-scan',
      title: "returns the entries scan's GET /v0/ans-entries returns for the same query",
      api: 'validator',
      operations: [OP],
      requirements: ['validator.list-scan-proxy-ans-entries.agrees-with-scan'],
    },
    async (t) => {
      if (t.config.targets.scan === undefined) t.skip('no scan target configured to compare with');
      await t.property(await cases(t), async ({ prefix, pageSize }) => {
        const proxy = await listAns(t, OP, { name_prefix: prefix, page_size: pageSize });
        const scan = await listAns(t, 'listAnsEntries', { name_prefix: prefix, page_size: pageSize });
        t.expect(JSON.stringify(proxy.entries) === JSON.stringify(scan.entries), `for name_prefix "${prefix}" and page_size ${pageSize} the proxy lists ${proxy.entries.length} entries that differ from scan's ${scan.entries.length}`, { exchange: proxy.exchange });
      }, { runs: t.scaledRuns(15) });
    },
  );

  conformance(
    {
      id: 'validator.list-scan-proxy-ans-entries.prefix-and-page-size',
      title: 'returns at most page_size entries, each starting with name_prefix',
      api: 'validator',
      operations: [OP],
      requirements: ['validator.list-scan-proxy-ans-entries.at-most-page-size', 'validator.list-scan-proxy-ans-entries.name-prefix-match'],
    },
    async (t) => {
      await t.property(await cases(t), async ({ prefix, pageSize }) => {
        const l = await listAns(t, OP, { name_prefix: prefix, page_size: pageSize });
        t.expect(l.entries.length <= pageSize, `${l.entries.length} entries returned for page_size ${pageSize}`, { exchange: l.exchange });
        const stray = l.entries.find((e) => typeof e.name === 'string' && !e.name.startsWith(prefix));
        t.expect(stray === undefined, `entry "${String(stray?.name)}" does not start with the prefix "${prefix}"`, { requirement: 'validator.list-scan-proxy-ans-entries.name-prefix-match', exchange: l.exchange });
      });
    },
  );

  conformance(
    {
      id: 'validator.list-scan-proxy-ans-entries.non-expired',
      title: 'lists no entry whose expires_at has passed',
      api: 'validator',
      operations: [OP],
      requirements: ['validator.list-scan-proxy-ans-entries.non-expired-only'],
    },
    async (t) => {
      await t.property(await cases(t, 200), async ({ prefix, pageSize }) => {
        const l = await listAns(t, OP, { name_prefix: prefix, page_size: pageSize });
        const expired = l.entries.find((e) => isExpired(e, Date.now()));
        t.expect(expired === undefined, `entry "${String(expired?.name)}" expired at ${String(expired?.expires_at)}`, { exchange: l.exchange });
      });
    },
  );
});

describe('AnsEntry (GET /v0/scan-proxy/ans-entries)', () => {
  conformance(
    {
      id: 'validator.ans.contract-id-absent-only-dso',
      title: 'an entry without contract_id belongs to the DSO or an SV',
      api: 'validator',
      operations: [OP],
      requirements: ['validator.ans.contract-id-absent-only-dso'],
    },
    async (t) => {
      const { dso, svs } = await dsoAndSvs(t);
      if (dso === undefined) t.skip('the DSO party is unknown: no scan validator license names it and no fixtures.dsoParty is configured');
      await t.property(await cases(t), async ({ prefix, pageSize }) => {
        const l = await listAns(t, OP, { name_prefix: prefix, page_size: pageSize });
        const bad = l.entries.find((e) => (e.contract_id === undefined || e.contract_id === null) && !isDsoProvided(e, dso, svs));
        t.expect(bad === undefined, `entry "${String(bad?.name)}" of ${String(bad?.user)}, neither the DSO nor a known SV, has no contract_id`, { exchange: l.exchange });
      });
    },
  );

  conformance(
    {
      id: 'validator.ans.expires-at-absent-only-dso',
      title: 'an entry with a contract_id carries an expires_at',
      api: 'validator',
      operations: [OP],
      requirements: ['validator.ans.expires-at-absent-only-dso'],
    },
    async (t) => {
      await t.property(await cases(t), async ({ prefix, pageSize }) => {
        const l = await listAns(t, OP, { name_prefix: prefix, page_size: pageSize });
        const bad = l.entries.find((e) => typeof e.contract_id === 'string' && typeof e.expires_at !== 'string');
        t.expect(bad === undefined, `entry "${String(bad?.name)}" has contract_id ${String(bad?.contract_id)} but expires_at ${JSON.stringify(bad?.expires_at)}`, { exchange: l.exchange });
      });
    },
  );

  conformance(
    {
      id: 'validator.ans.url-empty-or-http',
      title: "an entry's url is empty or an http(s) URL",
      api: 'validator',
      operations: [OP],
      requirements: ['validator.ans.url-empty-or-http'],
    },
    async (t) => {
      await t.property(await cases(t, 100), async ({ prefix, pageSize }) => {
        const l = await listAns(t, OP, { name_prefix: prefix, page_size: pageSize });
        const bad = l.entries.find((e) => !urlEmptyOrHttp(e.url));
        t.expect(bad === undefined, `entry "${String(bad?.name)}" has url ${JSON.stringify(bad?.url)}`, { exchange: l.exchange });
      });
    },
  );
});
