import { describe } from 'vitest';
import fc from 'fast-check';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { SHARED_STATE } from '../../../harness/run/shared-state.js';
import type { Exchange } from '../../../harness/transport/http.js';
import {
  MAX_VETTING_PAGES, VETTED_BEFORE, cmp, cmpRecords, comparePackageVersions, maxVettingPageSize, recordKey as key, tryAllVettingRecords, vettingOpFor, vettingPage, type VPage as Page, type VPkg as Pkg, type VRecord, type VettingOp,
} from '../../../harness/fixtures/ledger-vetting.js';
import { ledgerOperationGone } from '../../../harness/judging/versions.js';
import { FixtureError, stableDar, vettingUploadQuery } from '../../../harness/fixtures/ledger.js';
import { invalidNegativePageSize, invalidPageToken, vettingFilter, walkPageSize, type VettingFilter, type VettingUniverse } from '../../../generators/ledger/vetting.js';

/** One page; a valid request must be answered 200 (the deprecated GET and its replacement are both served). */
async function page(t: CheckContext, body: Record<string, unknown> | undefined, op: VettingOp = vettingOpFor(t)): Promise<Page> {
  const p = await vettingPage(t, body, op);
  t.expectStatus(p.x, 200, { requirement: op === 'getPackageVetting' ? 'ledger.versioning.get-package-vetting-served' : 'ledger.versioning.list-package-vetting-served' });
  return p;
}

/**
 * Every page of a request, bounded; checks the pagination rules on the way. A page may hold fewer than pageSize
 * records and still carry a token (SPEC.md asks only that a token's records sort after the previous page's), so the
 * page after a token may be empty: then it is the last page. What breaks "empty nextPageToken on the last page" is
 * a walk that never reaches a page with an empty token: an empty page that hands back the very token it was asked
 * with (following it can only repeat), or no last page within the page bound.
 */
async function walk(t: CheckContext, body: Record<string, unknown>, pageSize: number, op: VettingOp = vettingOpFor(t)): Promise<VRecord[]> {
  const all: VRecord[] = [];
  let token = '';
  for (let n = 0; n < MAX_VETTING_PAGES; n++) {
    const p = await page(t, { ...body, pageSize, pageToken: token }, op);
    t.expect(p.records.length <= pageSize, `a page of pageSize ${pageSize} holds ${p.records.length} records`, { requirement: 'ledger.get-package-vetting.page-size-respected', exchange: p.x });
    if (n > 0 && p.records.length === 0 && p.token !== '' && p.token === token) {
      t.fail(`the nextPageToken led to an empty page that carries the same token again: there are no more records, yet the token is not empty and following it never ends`, { requirement: 'ledger.get-package-vetting.next-page-token-empty-on-last', exchange: p.x });
    }
    const prev = all[all.length - 1];
    if (prev !== undefined && p.records[0] !== undefined) {
      t.expect(cmpRecords(prev, p.records[0]) < 0, `the first record of the next page (${key(p.records[0])}) does not sort after the last one of the previous page (${key(prev)})`, { requirement: 'ledger.get-package-vetting.next-page-sorts-after', exchange: p.x });
    }
    for (let i = 1; i < p.records.length; i++) {
      t.expect(cmpRecords(p.records[i - 1]!, p.records[i]!) < 0, `records ${key(p.records[i - 1]!)} and ${key(p.records[i]!)} are out of order`, { requirement: 'ledger.get-package-vetting.records-sorted', exchange: p.x });
    }
    all.push(...p.records);
    if (p.token === '') return all;
    token = p.token;
  }
  return t.fail(`no page with an empty nextPageToken after ${MAX_VETTING_PAGES} pages of size ${pageSize} (${all.length} records)`, { requirement: 'ledger.get-package-vetting.next-page-token-empty-on-last' });
}

/** The unfiltered listing, walked with the largest page size, and the filter universe it shows. */
async function everything(t: CheckContext): Promise<{ records: VRecord[]; universe: VettingUniverse; max: number }> {
  const max = await maxVettingPageSize(t);
  const records = await walk(t, {}, max);
  if (records.length < 2) t.skip('the target lists fewer than two vetting records');
  const uniq = (xs: string[]) => [...new Set(xs)].sort();
  const pkgs = records.flatMap((r) => r.packages);
  return {
    records,
    max,
    universe: {
      packageIds: uniq(pkgs.map((p) => p.packageId)),
      packageNames: uniq(pkgs.map((p) => p.packageName).filter((n): n is string => typeof n === 'string')),
      participantIds: uniq(records.map((r) => r.participantId)),
      synchronizerIds: uniq(records.map((r) => r.synchronizerId)),
    },
  };
}

const pkgMatches = (f: VettingFilter, p: Pkg) => {
  const ids = f.packageMetadataFilter?.packageIds ?? [];
  const prefixes = f.packageMetadataFilter?.packageNamePrefixes ?? [];
  if (ids.length === 0 && prefixes.length === 0) return true;
  return ids.includes(p.packageId) || (typeof p.packageName === 'string' && prefixes.some((x) => p.packageName!.startsWith(x)));
};
const topoMatches = (f: VettingFilter, r: VRecord) => {
  const ps = f.topologyStateFilter?.participantIds ?? [];
  const ss = f.topologyStateFilter?.synchronizerIds ?? [];
  return (ps.length === 0 || ps.includes(r.participantId)) && (ss.length === 0 || ss.includes(r.synchronizerId));
};

/** A record as a comparable text: identity, serial and packages in the listed order, fields in a fixed order. */
const recordText = (r: VRecord) =>
  `${key(r)} #${r.topologySerial}: ${(r.packages ?? []).map((p) => [p.packageId, p.packageName ?? '', p.packageVersion ?? '', p.validFromInclusive ?? '', p.validUntilExclusive ?? ''].join('|')).join(', ')}`;

/** vettedPackages and nextPageToken, which the catalogue requires and the schema leaves optional. */
function expectVettingResponse(t: CheckContext, x: Exchange, requirement: string): void {
  const j = x.json as { vettedPackages?: unknown; nextPageToken?: unknown } | undefined;
  t.expect(Array.isArray(j?.vettedPackages), 'the response has no vettedPackages list', { requirement, exchange: x });
  t.expect(typeof j?.nextPageToken === 'string', 'the response has no string nextPageToken', { requirement, exchange: x });
}

/** Uploads and vets a generated DAR (fixture syntheticDars) on the participant; a refusal is a set-up error. */
async function vetGeneratedDar(t: CheckContext, bytes: Uint8Array): Promise<void> {
  const up = await t.call('uploadPackage', { body: bytes, query: await vettingUploadQuery(t), headers: { 'content-type': 'application/octet-stream' } });
  if (up.status !== 200) throw new FixtureError(`setup: vetting a generated DAR answered ${up.status}: ${up.text.slice(0, 300)}`);
}

describe('GET /v2/package-vetting', () => {
  conformance(
    {
      id: 'ledger.get-package-vetting.empty-request',
      title: 'answers a request with every field set and one with every field omitted (an empty JSON body) with 200 and the vetting response schema',
      api: 'ledger',
      reads: [SHARED_STATE.packageVetting],
      operations: ['getPackageVetting'],
      requirements: ['ledger.get-package-vetting.all-fields-optional', 'ledger.get-package-vetting.response-schema', 'ledger.versioning.get-package-vetting-served', 'ledger.versioning.list-package-vetting-served'],
    },
    async (t) => {
      // from 3.6 on the GET is gone (FACTS.md) and the same request goes to its replacement
      const op = vettingOpFor(t);
      const [served, other] = op === 'getPackageVetting'
        ? ['ledger.versioning.get-package-vetting-served', 'ledger.versioning.list-package-vetting-served']
        : ['ledger.versioning.list-package-vetting-served', 'ledger.versioning.get-package-vetting-served'];
      t.notObserved(other, `this check reads the vetting listing through ${op}`);
      // SPEC.md makes every field optional, not the body: a GET without any body is not judged
      const full = await t.call(op, {
        json: { packageMetadataFilter: { packageIds: [], packageNamePrefixes: [] }, topologyStateFilter: { participantIds: [], synchronizerIds: [] }, pageToken: '', pageSize: 1 },
      });
      const empty = await t.call(op, { json: {} });
      await t.judge(served, () => t.expectStatus(full, 200, { requirement: served }));
      await t.judge('ledger.get-package-vetting.all-fields-optional', () => t.expectStatus(empty, 200, { requirement: 'ledger.get-package-vetting.all-fields-optional', what: 'a request with every field omitted ({})' }));
      await t.judge('ledger.get-package-vetting.response-schema', () => {
        for (const x of [full, empty]) if (x.status === 200) expectVettingResponse(t, x, 'ledger.get-package-vetting.response-schema');
        if (full.status !== 200 && empty.status !== 200) t.skip('neither request was answered 200');
      });
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.json-body-on-get',
      title: 'reads its filter from the JSON body of the GET',
      api: 'ledger',
      reads: [SHARED_STATE.packageVetting],
      operations: ['getPackageVetting'],
      requirements: ['ledger.get-package-vetting.json-body-on-get'],
    },
    async (t) => {
      const { records } = await everything(t);
      const parts = [...new Set(records.map((r) => r.synchronizerId))];
      if (parts.length < 2) t.skip('every record is on one synchronizer: a synchronizer filter would not show that the body was read');
      const p = await page(t, { topologyStateFilter: { participantIds: [], synchronizerIds: [parts[0]] } });
      t.expect(p.records.length > 0 && p.records.every((r) => r.synchronizerId === parts[0]), `a GET with synchronizerIds [${parts[0]}] in its body returned records of other synchronizers (or none)`, { exchange: p.x });
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.empty-result',
      title: 'answers a filter no record matches with 200 and an empty list',
      api: 'ledger',
      operations: ['getPackageVetting'],
      requirements: ['ledger.get-package-vetting.empty-result-allowed'],
    },
    async (t) => {
      const x = await t.call(vettingOpFor(t), { json: { packageMetadataFilter: { packageIds: ['f'.repeat(63) + '0'], packageNamePrefixes: [] } } });
      t.expectStatus(x, 200);
      const list = (x.json as { vettedPackages?: unknown[] } | undefined)?.vettedPackages;
      t.expect(Array.isArray(list) && list.length === 0, 'a filter naming an unknown package id returned records', { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.filters-model',
      title: 'returns exactly the records that have a package matching both filters, under generated filters',
      api: 'ledger',
      reads: [SHARED_STATE.packageVetting],
      operations: ['getPackageVetting'],
      requirements: [
        'ledger.get-package-vetting.records-match-filters',
        'ledger.get-package-vetting.matching-records-returned',
        'ledger.get-package-vetting.package-filter-either',
        'ledger.get-package-vetting.topology-filter-both',
        'ledger.get-package-vetting.packages-non-empty',
      ],
    },
    async (t) => {
      const { records: all, universe, max } = await everything(t);
      await t.property(
        vettingFilter(universe),
        async (f) => {
          const got = await walk(t, { ...f }, max);
          const ids = f.packageMetadataFilter?.packageIds ?? [];
          const prefixes = f.packageMetadataFilter?.packageNamePrefixes ?? [];
          const ps = f.topologyStateFilter?.participantIds ?? [];
          const ss = f.topologyStateFilter?.synchronizerIds ?? [];
          for (const r of got) {
            t.expect(Array.isArray(r.packages) && r.packages.length > 0, `record ${key(r)} has no packages`, { requirement: 'ledger.get-package-vetting.packages-non-empty' });
            if (!topoMatches(f, r)) {
              const either = ps.length > 0 && ss.length > 0 && (ps.includes(r.participantId) || ss.includes(r.synchronizerId));
              t.fail(`record ${key(r)} does not match the topology filter ${JSON.stringify(f.topologyStateFilter)}`, {
                requirement: either ? 'ledger.get-package-vetting.topology-filter-both' : 'ledger.get-package-vetting.records-match-filters',
              });
            }
            t.expect(r.packages.some((p) => pkgMatches(f, p)), `record ${key(r)} has no package matching ${JSON.stringify(f.packageMetadataFilter)}`, { requirement: 'ledger.get-package-vetting.records-match-filters' });
          }
          const gotKeys = new Set(got.map(key));
          for (const r of all) {
            if (!topoMatches(f, r) || !r.packages.some((p) => pkgMatches(f, p)) || gotKeys.has(key(r))) continue;
            // attributed to the either-rule when the record matches only through one of two package lists
            const byId = r.packages.some((p) => ids.includes(p.packageId));
            const byName = r.packages.some((p) => typeof p.packageName === 'string' && prefixes.some((x) => p.packageName!.startsWith(x)));
            const onlyOne = ids.length > 0 && prefixes.length > 0 && !r.packages.some((p) => ids.includes(p.packageId) && typeof p.packageName === 'string' && prefixes.some((x) => p.packageName!.startsWith(x))) && (byId || byName);
            t.fail(`record ${key(r)} matches ${JSON.stringify(f)} but was not returned`, {
              requirement: onlyOne ? 'ledger.get-package-vetting.package-filter-either' : 'ledger.get-package-vetting.matching-records-returned',
            });
          }
        },
        { runs: t.scaledRuns(15) },
      );
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.empty-filters',
      title: 'treats an empty or absent package filter and topology filter as matching everything',
      api: 'ledger',
      reads: [SHARED_STATE.packageVetting],
      operations: ['getPackageVetting'],
      requirements: ['ledger.get-package-vetting.empty-metadata-filter-any', 'ledger.get-package-vetting.empty-topology-filter-any'],
    },
    async (t) => {
      const { records: all, max } = await everything(t);
      const sync = all[0]!.synchronizerId;
      const onSync = all.filter((r) => r.synchronizerId === sync).map(key);
      await t.judge('ledger.get-package-vetting.empty-metadata-filter-any', async () => {
        const emptyMeta = await walk(t, { packageMetadataFilter: { packageIds: [], packageNamePrefixes: [] }, topologyStateFilter: { participantIds: [], synchronizerIds: [sync] } }, max);
        t.expect(JSON.stringify(emptyMeta.map(key)) === JSON.stringify(onSync), `an empty packageMetadataFilter returned ${emptyMeta.length} of the ${onSync.length} records on ${sync}`, { requirement: 'ledger.get-package-vetting.empty-metadata-filter-any' });
      });
      const anyPkg = all[0]!.packages[0]!.packageId;
      const withPkg = all.filter((r) => r.packages.some((p) => p.packageId === anyPkg)).map(key);
      await t.judge('ledger.get-package-vetting.empty-topology-filter-any', async () => {
        const emptyTopo = await walk(t, { packageMetadataFilter: { packageIds: [anyPkg], packageNamePrefixes: [] }, topologyStateFilter: { participantIds: [], synchronizerIds: [] } }, max);
        t.expect(JSON.stringify(emptyTopo.map(key)) === JSON.stringify(withPkg), `an empty topologyStateFilter returned ${emptyTopo.length} of the ${withPkg.length} records vetting ${anyPkg}`, { requirement: 'ledger.get-package-vetting.empty-topology-filter-any' });
        const absentTopo = await walk(t, { packageMetadataFilter: { packageIds: [anyPkg], packageNamePrefixes: [] } }, max);
        t.expect(JSON.stringify(absentTopo.map(key)) === JSON.stringify(withPkg), 'an absent topologyStateFilter did not match every record', { requirement: 'ledger.get-package-vetting.empty-topology-filter-any' });
      });
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.pagination-walk',
      title: 'walks every record once, in order, with generated page sizes',
      api: 'ledger',
      reads: [SHARED_STATE.packageVetting],
      operations: ['getPackageVetting'],
      requirements: [
        'ledger.get-package-vetting.records-sorted',
        'ledger.get-package-vetting.next-page-sorts-after',
        'ledger.get-package-vetting.next-page-token-empty-on-last',
        'ledger.get-package-vetting.page-size-respected',
        'ledger.get-package-vetting.packages-sorted',
        'ledger.get-package-vetting.packages-non-empty',
      ],
    },
    async (t) => {
      const { records: all, max } = await everything(t);
      const expected = all.map(key);
      await t.judge('ledger.get-package-vetting.packages-non-empty', () => {
        for (const r of all) t.expect(Array.isArray(r.packages) && r.packages.length > 0, `record ${key(r)} has no packages`, { requirement: 'ledger.get-package-vetting.packages-non-empty' });
      });
      await t.judge('ledger.get-package-vetting.packages-sorted', () => {
        for (const r of all) {
          if (!Array.isArray(r.packages)) continue;
          const named = r.packages.filter((p) => typeof p.packageName === 'string');
          const unnamed = r.packages.filter((p) => typeof p.packageName !== 'string');
          for (let i = 1; i < named.length; i++) {
            const a = named[i - 1]!;
            const b = named[i]!;
            const byName = cmp(a.packageName!, b.packageName!);
            const byVersion = byName === 0 ? comparePackageVersions(a.packageVersion ?? '', b.packageVersion ?? '') : 0;
            if (byVersion === undefined) continue; // a version that is not dotted numbers: its order is not known
            const d = byName || byVersion || cmp(a.packageId, b.packageId);
            t.expect(d <= 0, `record ${key(r)}: package ${a.packageName} ${a.packageVersion} (${a.packageId}) is listed before ${b.packageName} ${b.packageVersion} (${b.packageId})`, { requirement: 'ledger.get-package-vetting.packages-sorted' });
          }
          for (let i = 1; i < unnamed.length; i++) {
            t.expect(cmp(unnamed[i - 1]!.packageId, unnamed[i]!.packageId) < 0, `record ${key(r)}: packages without a name are not sorted by packageId`, { requirement: 'ledger.get-package-vetting.packages-sorted' });
          }
        }
      });
      await t.property(
        walkPageSize(Math.max(1, Math.min(5, all.length, max))),
        async (size) => {
          const got = (await walk(t, {}, size)).map(key);
          t.expect(new Set(got).size === got.length, `page size ${size}: a record appears twice`, { requirement: 'ledger.get-package-vetting.next-page-sorts-after' });
          t.expect(JSON.stringify(got) === JSON.stringify(expected), `page size ${size}: the walk returned ${got.length} records, the full listing ${expected.length}`, { requirement: 'ledger.get-package-vetting.next-page-sorts-after' });
        },
        { runs: t.scaledRuns(5) },
      );
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.empty-token',
      title: 'returns the first page for an empty pageToken',
      api: 'ledger',
      reads: [SHARED_STATE.packageVetting],
      operations: ['getPackageVetting'],
      requirements: ['ledger.get-package-vetting.empty-page-token-first-page'],
    },
    async (t) => {
      const absent = await page(t, { pageSize: 1 });
      const empty = await page(t, { pageSize: 1, pageToken: '' });
      t.expect(JSON.stringify(absent.records.map(key)) === JSON.stringify(empty.records.map(key)), 'pageToken "" returned another page than no pageToken', { exchange: empty.x });
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.name-version-local-only',
      title: "shows packageName and packageVersion only on packages in the participant's own package list",
      api: 'ledger',
      reads: [SHARED_STATE.packageVetting],
      operations: ['getPackageVetting'],
      requirements: ['ledger.get-package-vetting.name-version-local-only'],
    },
    async (t) => {
      const records = await walk(t, {}, await maxVettingPageSize(t));
      const named = new Map<string, Pkg & { record: string }>();
      for (const r of records) {
        for (const p of r.packages ?? []) {
          if (typeof p.packageName === 'string' || typeof p.packageVersion === 'string') named.set(p.packageId, { ...p, record: key(r) }); // null is no value
        }
      }
      if (named.size === 0) t.skip('no vetted package carries a packageName or packageVersion: nothing to judge');
      // Which packages were uploaded here is not visible through SPEC.md's endpoints: the participant's package list
      // (GET /v2/packages, real JSON Ledger API) shows it. Read after the listing: packages are only ever added.
      const x = await t.client.raw({ method: 'GET', path: '/v2/packages', operationId: 'listPackages (real API, not in SPEC.md)', token: await t.client.token(undefined) });
      const ids = (x.json as { packageIds?: unknown } | undefined)?.packageIds;
      if (x.status !== 200 || !Array.isArray(ids)) t.skip(`the participant's package list (GET /v2/packages) answered ${x.status} without packageIds: which packages were uploaded here cannot be seen`);
      const local = new Set((ids as unknown[]).filter((id): id is string => typeof id === 'string'));
      const foreign = [...named.values()].filter((p) => !local.has(p.packageId));
      t.expect(
        foreign.length === 0,
        `${foreign.length} vetted package(s) carry a name or version but are not in the participant's package list (GET /v2/packages), e.g. ${foreign.slice(0, 3).map((p) => `${p.packageId} (${String(p.packageName)} ${String(p.packageVersion)}, record ${p.record})`).join('; ')}`,
        { exchange: x },
      );
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.page-token-reused',
      title: 'answers a pageToken requested a second time with the records after it, none fewer',
      api: 'ledger',
      reads: [SHARED_STATE.packageVetting],
      operations: ['getPackageVetting'],
      requirements: ['ledger.get-package-vetting.page-token-reusable'],
    },
    async (t) => {
      const first = await page(t, { pageSize: 1 });
      if (first.token === '') t.skip('the target lists fewer than two vetting records: no page token to request twice');
      const again = async () => {
        const x = await t.call(vettingOpFor(t), { json: { pageSize: 2, pageToken: first.token } });
        t.expectStatus(x, 200, { what: 'a page token requested again' });
        const j = x.json as { vettedPackages?: VRecord[]; nextPageToken?: string };
        return { x, records: j.vettedPackages ?? [], last: j.nextPageToken === '' };
      };
      const a = await again();
      const b = await again();
      // records are only ever added: what the first answer held is in the second, unless pushed past the page's end
      const end = b.records[b.records.length - 1];
      const held = new Set(b.records.map(key));
      const lost = a.records.filter((r) => !held.has(key(r)) && (b.last || end === undefined || cmpRecords(r, end) <= 0));
      t.expect(lost.length === 0, `the same pageToken requested again returned fewer records: ${lost.map(key).join(', ')} went missing`, { exchange: b.x });
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.page-size-zero',
      title: 'accepts pageSize 0 and chooses the page size',
      api: 'ledger',
      reads: [SHARED_STATE.packageVetting],
      operations: ['getPackageVetting'],
      requirements: ['ledger.get-package-vetting.page-size-zero-server-chooses'],
    },
    async (t) => {
      const x = await t.call(vettingOpFor(t), { json: { pageSize: 0 } });
      t.expectStatus(x, 200);
      const list = (x.json as { vettedPackages?: unknown[] } | undefined)?.vettedPackages;
      t.expect(Array.isArray(list) && list.length > 0, 'pageSize 0 returned no records although the unfiltered listing is not empty', { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.page-size-above-max',
      title: 'rejects a pageSize above the advertised maxVettedPackagesPageSize with a 4xx, and that 4xx is 400',
      api: 'ledger',
      operations: ['getPackageVetting', 'getVersion'],
      requirements: ['ledger.get-package-vetting.page-size-above-max-rejected', 'ledger.get-package-vetting.page-size-above-max-400'],
    },
    async (t) => {
      const max = await maxVettingPageSize(t);
      await t.property(fc.integer({ min: max + 1, max: 2 ** 31 - 1 }), async (size) => {
        const x = await t.call(vettingOpFor(t), { json: { pageSize: size } });
        // SPEC.md: "an error"; the status 400 is FACTS.md's
        const clientError = x.status >= 400 && x.status <= 499;
        t.expect(clientError, `pageSize ${size} (maximum ${max}) answered ${x.status}, not a 4xx error`, { requirement: 'ledger.get-package-vetting.page-size-above-max-rejected', exchange: x });
        if (clientError) t.expectStatus(x, 400, { requirement: 'ledger.get-package-vetting.page-size-above-max-400', what: `pageSize ${size}` });
      }, { runs: t.scaledRuns(5), concurrent: true });
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.invalid-page-size-and-token',
      title: 'rejects a negative pageSize and a page token it did not issue with 400, on GET and POST /list',
      api: 'ledger',
      operations: ['getPackageVetting', 'listPackageVetting'],
      requirements: ['ledger.get-package-vetting.negative-page-size-rejected', 'ledger.get-package-vetting.invalid-page-token-rejected'],
    },
    async (t) => {
      const ops = fc.constantFrom(...(vettingOpFor(t) === 'getPackageVetting' ? (['getPackageVetting', 'listPackageVetting'] as const) : (['listPackageVetting'] as const)));
      const N = 'ledger.get-package-vetting.negative-page-size-rejected';
      const T = 'ledger.get-package-vetting.invalid-page-token-rejected';
      // both judged at once, their cases too: rejections that change nothing
      await Promise.all([
        t.judge(N, () => t.property(fc.tuple(invalidNegativePageSize(), ops), async ([size, op]) => {
          t.expectStatus(await t.call(op, { json: { pageSize: size } }), 400, { requirement: N });
        }, { runs: t.scaledRuns(6), requirement: N, concurrent: true })),
        t.judge(T, () => t.property(fc.tuple(invalidPageToken(), ops), async ([token, op]) => {
          t.expectStatus(await t.call(op, { json: { pageToken: token } }), 400, { requirement: T });
        }, { runs: t.scaledRuns(6), requirement: T, concurrent: true })),
      ]);
    },
  );

  // the checks that change the vetting come last in the file: a file's checks that hold shared state run one after
  // another in their order, and a check declared after one waits for it, so the readers above all start at once and
  // read the listing together before the first of these takes it (harness/run/shared-state.ts)
  conformance(
    {
      id: 'ledger.get-package-vetting.uploaded-name-version',
      title: 'lists a package uploaded to the participant with the name and version it was uploaded with, where it shows them',
      api: 'ledger',
      operations: ['getPackageVetting', 'uploadPackage'],
      shares: [SHARED_STATE.packageVetting],
      requirements: ['ledger.get-package-vetting.uploaded-name-version'],
    },
    async (t) => {
      // a generated DAR whose manifest names the package: only a test participant accepts one (fixture syntheticDars);
      // the same package in every run, so the participant holds at most one of it
      if (t.fixture<boolean>('syntheticDars') !== true) t.skip('needs fixture syntheticDars: the check uploads a generated DAR whose name and version it knows');
      const version = '1.2.3';
      const dar = stableDar(t, 'named', version);
      await vetGeneratedDar(t, dar.bytes);
      const records = await tryAllVettingRecords(t, { packageMetadataFilter: { packageIds: [dar.packageId], packageNamePrefixes: [] } });
      if (typeof records === 'string') return t.skip(`the vetting listing could not be read: ${records}`);
      const listed = records.flatMap((r) => (r.packages ?? []).filter((p) => p.packageId === dar.packageId).map((p) => ({ p, record: key(r) })));
      if (listed.length === 0) t.skip(`the uploaded package ${dar.packageId} is listed in no vetting record: its name and version are not shown`);
      // SPEC.md: optional, "only present when the package was uploaded to the current participant": where present,
      // they are that package's
      const shown = listed.filter(({ p }) => typeof p.packageName === 'string' || typeof p.packageVersion === 'string');
      if (shown.length === 0) t.skip('the listing shows no packageName or packageVersion for the uploaded package (both optional)');
      const wrong = shown.find(({ p }) => (typeof p.packageName === 'string' && p.packageName !== dar.name) || (typeof p.packageVersion === 'string' && p.packageVersion !== version));
      t.expect(wrong === undefined, `record ${wrong?.record ?? ''} lists the uploaded package ${dar.packageId} as ${String(wrong?.p.packageName)} ${String(wrong?.p.packageVersion)}, not ${dar.name} ${version}`);
    },
  );

  conformance(
    {
      id: 'ledger.get-package-vetting.page-token-after-change',
      title: 'answers a pageToken requested again after a package was vetted with records that sort after the page that returned it',
      api: 'ledger',
      operations: ['getPackageVetting', 'uploadPackage'],
      shares: [SHARED_STATE.packageVetting],
      requirements: ['ledger.get-package-vetting.page-token-after-change'],
    },
    async (t) => {
      // the listing changes by a package this check vets: a generated DAR, which only a test participant accepts
      if (t.fixture<boolean>('syntheticDars') !== true) t.skip('needs fixture syntheticDars: the check vets a generated DAR to change the listing between two requests of one token');
      const first = await page(t, { pageSize: 1 });
      const last = first.records[first.records.length - 1];
      if (first.token === '' || last === undefined) return t.skip('the target lists fewer than two vetting records: no page token to request again');
      // the same package in every run: only the first run against a participant changes its vetting with it
      const dar = stableDar(t, 'token');
      const known = await tryAllVettingRecords(t, { packageMetadataFilter: { packageIds: [dar.packageId], packageNamePrefixes: [] } });
      if (typeof known !== 'string' && known.length > 0) return t.skip(`package ${dar.packageId} ${VETTED_BEFORE}: no change between the two requests of the token`);
      await vetGeneratedDar(t, dar.bytes);
      const x = await t.call(vettingOpFor(t), { json: { pageSize: 2, pageToken: first.token } });
      t.expectStatus(x, 200, { what: 'the page token requested again after a package was vetted' });
      const records = (x.json as { vettedPackages?: VRecord[] } | undefined)?.vettedPackages ?? [];
      const early = records.find((r) => cmpRecords(r, last) <= 0);
      t.expect(early === undefined, `after a package was vetted, the page token returned record ${early === undefined ? '' : key(early)}, which does not sort after ${key(last)}, the last record of the page that returned the token`, { exchange: x });
    },
  );
});

describe('GET /v2/package-vetting (gone in 3.6)', () => {
  conformance(
    {
      id: 'ledger.versioning.get-package-vetting-gone',
      title: 'answers GET /v2/package-vetting with 404 or 405 from 3.6 on',
      api: 'ledger',
      operations: ['getPackageVetting'],
      requirements: ['ledger.versioning.get-package-vetting-gone'],
    },
    async (t) => {
      // the empty request every served version answers with 200 (all fields are optional)
      t.expectStatus(await t.call('getPackageVetting', { json: {} }), [404, 405], { what: 'GET /v2/package-vetting on a participant past its removal' });
    },
  );
});

describe('POST /v2/package-vetting/list', () => {
  conformance(
    {
      id: 'ledger.list-package-vetting.same-as-get',
      title: 'answers the requests of GET /v2/package-vetting with the same records',
      api: 'ledger',
      reads: [SHARED_STATE.packageVetting],
      operations: ['listPackageVetting', 'getPackageVetting'],
      requirements: ['ledger.list-package-vetting.same-as-get', 'ledger.list-package-vetting.response-schema', 'ledger.versioning.list-package-vetting-served'],
    },
    async (t) => {
      const first = await t.call('listPackageVetting', { json: {} });
      await t.judge('ledger.versioning.list-package-vetting-served', () => t.expectStatus(first, 200, { requirement: 'ledger.versioning.list-package-vetting-served' }));
      await t.judge('ledger.list-package-vetting.response-schema', () => {
        if (first.status !== 200) t.skip(`the request was answered ${first.status}, not 200`);
        expectVettingResponse(t, first, 'ledger.list-package-vetting.response-schema');
      });
      const gone = ledgerOperationGone(t.target.version, 'getPackageVetting');
      if (gone !== undefined) {
        t.notObserved('ledger.list-package-vetting.same-as-get', `${gone}: there is no GET to compare with`);
        return;
      }
      const { universe, max } = await everything(t);
      let stable = 0;
      await t.property(vettingFilter(universe), async (f) => {
        // other checks may upload and vet packages meanwhile (new packages, higher serials): a GET walk is compared only
        // with POST walks on both sides of it that agree with each other, so the records did not change in between
        const post = async () => (await walk(t, { ...f }, max, 'listPackageVetting')).map(recordText);
        const differ = (a: string[], b: string[]) => JSON.stringify(a) !== JSON.stringify(b);
        for (let attempt = 0; attempt < 3; attempt++) {
          const before = await post();
          const viaGet = (await walk(t, { ...f }, max, 'getPackageVetting')).map(recordText);
          const after = await post();
          if (differ(before, after)) continue;
          stable++;
          const onlyGet = viaGet.filter((r) => !after.includes(r));
          const onlyPost = after.filter((r) => !viaGet.includes(r));
          t.expect(!differ(viaGet, after), `for ${JSON.stringify(f)}, GET and POST /list differ while the records stayed the same: only via GET ${JSON.stringify(onlyGet.slice(0, 3))}, only via POST ${JSON.stringify(onlyPost.slice(0, 3))}`);
          return;
        }
      }, { runs: t.scaledRuns(8) });
      if (stable === 0) t.notObserved('ledger.list-package-vetting.same-as-get', 'the vetted packages changed during every comparison (other uploads meanwhile): no stable moment to compare GET with POST /list');
    },
  );
});
