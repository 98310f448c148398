import fc from 'fast-check';
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { entryKey, listAns, sameJson, type AnsEntryLike } from '../../../harness/fixtures/scan.js';
import { ansNamePrefix } from '../../../generators/scan/AnsNamePrefix.js';
import { pageLimit } from '../../../generators/scan/PageLimits.js';
import { ansListingChecks, knownAnsNames } from '../../ans-listing-checks.js';
import { expectStatus, MISSING_QUERY_STATUSES, judgeRejection, validatorUser } from '../../v0-http-checks.js';

const OP = 'listScanProxyAnsEntries';

/**
 * The AnsEntry fields SPEC.md gives, for comparing the proxy's entries with scan's: extra fields are left out, an absent
 * and a null contract_id or expires_at are the same (no contract, no expiry), and expires_at is compared as an instant.
 */
function documented(e: AnsEntryLike): Record<string, unknown> {
  const at = typeof e.expires_at === 'string' ? Date.parse(e.expires_at) : null;
  return { key: entryKey(e), contract_id: e.contract_id ?? null, user: e.user, name: e.name, url: e.url, description: e.description, expires_at: Number.isNaN(at) ? e.expires_at : at };
}

describe('GET /v0/scan-proxy/ans-entries', () => {
  conformance(
    {
      id: 'validator.list-scan-proxy-ans-entries.schema',
      title: 'answers 200 with entries, a list of AnsEntry, present also when no name matches',
      api: 'validator',
      operations: [OP],
      requirements: ['validator.list-scan-proxy-ans-entries.response-schema'],
    },
    async (t) => {
      const auth = await validatorUser(t);
      expectStatus(t, await t.call(OP, { auth, query: { page_size: 50 } }), 200);
      // a prefix no name has: entries is still sent (FACTS.md), as [] (or DSO-provided entries)
      expectStatus(t, await t.call(OP, { auth, query: { page_size: 50, name_prefix: t.uniqueName('no-such-name') } }), 200);
    },
  );

  conformance(
    {
      id: 'validator.list-scan-proxy-ans-entries.page-size-required',
      title: 'rejects a request without page_size with a 4xx status, 400 as Splice answers',
      api: 'validator',
      operations: [OP],
      requirements: ['validator.list-scan-proxy-ans-entries.page-size-required', 'validator.errors.bad-request-400'],
    },
    async (t) => {
      const x = await t.call(OP, { auth: await validatorUser(t), query: {} });
      await judgeRejection(t, x, { requirement: 'validator.list-scan-proxy-ans-entries.page-size-required', statuses: MISSING_QUERY_STATUSES, badRequest: 'validator.errors.bad-request-400', what: 'a scan-proxy ANS listing without page_size' });
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
      // names from both listings: a proxy that lists nothing is still asked for names scan has
      const cases = fc.record({ prefix: ansNamePrefix(await knownAnsNames(t, OP)), pageSize: pageLimit({ max: 40 }) });
      const compare = async (t: CheckContext, query: { name_prefix: string; page_size: number }) => {
        const proxy = await listAns(t, OP, query);
        const scan = await listAns(t, 'listAnsEntries', query);
        return { proxy, scan, same: sameJson(proxy.entries.map(documented), scan.entries.map(documented)) };
      };
      await t.property(
        cases,
        async ({ prefix, pageSize }) => {
          const query = { name_prefix: prefix, page_size: pageSize };
          // an entry that expires or is renewed between the two requests makes them differ once: asked again, they agree
          let r = await compare(t, query);
          if (!r.same) r = await compare(t, query);
          const { proxy, scan } = r;
          t.expect(
            r.same,
            `for name_prefix "${prefix}" and page_size ${pageSize} the proxy lists ${proxy.entries.length} entries (${proxy.entries.map(entryKey).join(', ').slice(0, 300)}) that differ from scan's ${scan.entries.length} (${scan.entries.map(entryKey).join(', ').slice(0, 300)}), twice in a row`,
            { exchange: proxy.exchange },
          );
        },
        { runs: t.scaledRuns(15), concurrent: true },
      );
    },
  );

  ansListingChecks(OP, {
    prefixAndPageSize: 'validator.list-scan-proxy-ans-entries.prefix-and-page-size',
    nonExpired: 'validator.list-scan-proxy-ans-entries.non-expired',
    contractIdAbsentOnlyDso: 'validator.ans.contract-id-absent-only-dso',
    expiresAtAbsentOnlyDso: 'validator.ans.expires-at-absent-only-dso',
    urlEmptyOrHttp: 'validator.ans.url-empty-or-http',
    matchingListed: 'validator.list-scan-proxy-ans-entries.matching-listed',
  });
});
