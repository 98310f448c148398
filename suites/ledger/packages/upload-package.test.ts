import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { SHARED_STATE } from '../../../harness/run/shared-state.js';
import { connectedSynchronizers, darFixture, stableDar, vettingUploadQuery, zipArchive } from '../../../harness/fixtures/ledger.js';
import { allVettingRecords, recordKey as key, VETTED_BEFORE, type VRecord } from '../../../harness/fixtures/ledger-vetting.js';
import { invalidArchive, invalidVetFlag } from '../../../generators/ledger/packages.js';
import { errorCode } from '../../../harness/fixtures/ledger-users.js';
import { notBusy, refusesTheInput } from '../../rejections.js';
import { judgeThat } from '../shared.js';

const P = 'ledger.upload-package';
const FEATURE = { features: ['packageUpload'] };

const upload = (t: CheckContext, bytes: Uint8Array, query: Record<string, string> = {}) =>
  t.call('uploadPackage', { body: bytes, query, headers: { 'content-type': 'application/octet-stream' } });

/** Every vetting record, or those vetting one package. */
const records = (t: CheckContext, packageId?: string): Promise<VRecord[]> =>
  allVettingRecords(t, packageId !== undefined ? { packageMetadataFilter: { packageIds: [packageId], packageNamePrefixes: [] } } : {});

/**
 * A DAR the target accepts, so that a 400 can only be about the query: the darFile fixture, else a generated DAR
 * where the target takes them (fixture syntheticDars), the same in every run, else none.
 */
function validDar(t: CheckContext, purpose: string): Uint8Array | undefined {
  if (t.fixture<string>('darFile') !== undefined) return darFixture(t).bytes;
  if (t.fixture<boolean>('syntheticDars') === true) return stableDar(t, purpose).bytes;
  return undefined;
}

// The checks of this file run in order: the first two vet packages, the first run against a participant changes its vetting.
describe('POST /v2/packages', () => {
  conformance(
    {
      id: 'ledger.upload-package.vet-all',
      title: 'lists the packages of a DAR uploaded with vetAllPackages true as vetted, with a higher topologySerial',
      api: 'ledger',
      shares: [SHARED_STATE.packageVetting],
      operations: ['uploadPackage', 'listPackageVetting'],
      ...FEATURE,
      requirements: [`${P}.vet-all-packages`, 'ledger.get-package-vetting.topology-serial-advances'],
    },
    async (t) => {
      const dar = darFixture(t);
      if (dar.packageId === undefined) t.skip('no darPackageId fixture: the uploaded package cannot be found in the vetting listing');
      // vetted already (an earlier run): the rule is judged as it reads, listed as vetted after the upload; no serial can advance
      const vettedBefore = (await records(t, dar.packageId)).length > 0;
      const before = new Map((await records(t)).map((r) => [key(r), r.topologySerial]));
      // a participant connected to several synchronizers needs the one to vet on (FACTS.md): the upload names it
      const x = await upload(t, dar.bytes, await vettingUploadQuery(t));
      t.expectStatus(x, 200);
      const after = await records(t, dar.packageId);
      await t.judge(`${P}.vet-all-packages`, () => t.expect(after.length > 0, `package ${dar.packageId} is not listed as vetted after the upload`, { requirement: `${P}.vet-all-packages` }));
      if (vettedBefore) {
        t.notObserved('ledger.get-package-vetting.topology-serial-advances', `package ${dar.packageId} ${VETTED_BEFORE}: no serial to compare`);
        return;
      }
      await t.judge('ledger.get-package-vetting.topology-serial-advances', () => {
        const seen = after.filter((r) => before.has(key(r)));
        if (seen.length === 0) t.skip('no record vetting the package existed before the upload, so no serial could advance');
        for (const r of seen) {
          const was = before.get(key(r))!;
          t.expect(r.topologySerial > was, `record ${key(r)}: topologySerial ${r.topologySerial} after vetting a new package, ${was} before`, { requirement: 'ledger.get-package-vetting.topology-serial-advances' });
        }
      });
    },
  );

  conformance(
    {
      id: 'ledger.upload-package.synchronizer',
      title: 'vets the packages on the synchronizer named in the upload',
      api: 'ledger',
      shares: [SHARED_STATE.packageVetting],
      operations: ['uploadPackage', 'listPackageVetting'],
      ...FEATURE,
      requirements: [`${P}.synchronizer-targets-vetting`, `${P}.synchronizer-only`],
    },
    async (t) => {
      const dar = darFixture(t, '2');
      if (dar.packageId === undefined) t.skip('no darPackageId2 fixture: the uploaded package cannot be found in the vetting listing');
      const syncs = await connectedSynchronizers(t);
      // the last one: a server that ignores the synchronizer most likely picks the first
      const sync = syncs[syncs.length - 1] ?? t.skip('the participant is connected to no synchronizer');
      // vetted there already (an earlier run): judged as the rule reads, vetted on it after the upload
      const before = await records(t, dar.packageId);
      if (before.some((r) => r.synchronizerId === sync)) t.note(`package ${dar.packageId} ${VETTED_BEFORE} on ${sync}`);
      t.expectStatus(await upload(t, dar.bytes, { vetAllPackages: 'true', synchronizerId: sync }), 200);
      const after = await records(t, dar.packageId);
      await judgeThat(t, `${P}.synchronizer-targets-vetting`, after.some((r) => r.synchronizerId === sync), `package ${dar.packageId} is not vetted on ${sync} (records: ${after.map(key).join('; ') || 'none'})`);
      // the other synchronizers: where the package was not vetted before, the upload leaves it unvetted
      const wasOn = new Set(before.map((r) => r.synchronizerId));
      const elsewhere = after.filter((r) => r.synchronizerId !== sync && !wasOn.has(r.synchronizerId));
      if (syncs.length < 2 || syncs.every((s) => s === sync || wasOn.has(s))) t.notObserved(`${P}.synchronizer-only`, `no other connected synchronizer where package ${dar.packageId} was not vetted already`);
      else await judgeThat(t, `${P}.synchronizer-only`, elsewhere.length === 0, `an upload naming ${sync} vetted package ${dar.packageId} on ${elsewhere.map((r) => r.synchronizerId).join(', ')} too`);
    },
  );

  conformance(
    {
      id: 'ledger.upload-package.success',
      title: 'answers the upload of a DAR with 200 and a JSON object',
      api: 'ledger',
      shares: [SHARED_STATE.packageVetting],
      operations: ['uploadPackage'],
      ...FEATURE,
      requirements: [`${P}.response-schema`],
    },
    async (t) => {
      const dar = darFixture(t);
      const x = await upload(t, dar.bytes, { vetAllPackages: 'false' });
      t.expectStatus(x, 200);
      t.expect(typeof x.json === 'object' && x.json !== null && !Array.isArray(x.json), 'the answer is not a JSON object', { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.upload-package.invalid',
      title: 'rejects bodies that are not a DAR and vetAllPackages values that are not booleans with 400',
      api: 'ledger',
      shares: [SHARED_STATE.packageVetting],
      operations: ['uploadPackage'],
      ...FEATURE,
      requirements: [`${P}.invalid-archive-rejected`, `${P}.invalid-query-rejected`, `${P}.unknown-synchronizer-rejected`],
    },
    async (t) => {
      // without vetting, so that a 400 can only be about the body (a vetting upload may need a synchronizer)
      await t.judge(`${P}.invalid-archive-rejected`, () => t.property(invalidArchive(), async (bytes) => {
        t.expectStatus(await upload(t, bytes, { vetAllPackages: 'false' }), 400, { requirement: `${P}.invalid-archive-rejected` });
      }, { runs: t.scaledRuns(5), requirement: `${P}.invalid-archive-rejected` }));
      // no DAR either: a zip archive holding neither META-INF/MANIFEST.MF nor a package, and an empty body
      const noDar: Array<[string, Uint8Array]> = [['a zip archive without META-INF/MANIFEST.MF', zipArchive({ 'readme.txt': 'no manifest, no package' })], ['an empty body', new Uint8Array(0)]];
      for (const [what, bytes] of noDar) {
        const x = await upload(t, bytes, { vetAllPackages: 'false' });
        await t.judge(`${P}.invalid-archive-rejected`, () => {
          notBusy(t, x);
          t.expectStatus(x, 400, { requirement: `${P}.invalid-archive-rejected`, what });
        });
      }
      const dar = validDar(t, 'query');
      if (dar === undefined) {
        t.notObserved(`${P}.invalid-query-rejected`, 'no DAR the target accepts (fixture darFile or syntheticDars): a 400 for a bad query value could come from the archive');
        return;
      }
      // with the synchronizer a vetting upload needs, so that a server taking the bad flag for true would answer 200
      const query = await vettingUploadQuery(t);
      await t.judge(`${P}.invalid-query-rejected`, () => t.property(invalidVetFlag(), async (flag) => {
        t.expectStatus(await upload(t, dar, { ...query, vetAllPackages: flag }), 400, { requirement: `${P}.invalid-query-rejected`, what: `vetAllPackages=${flag}` });
      }, { runs: t.scaledRuns(4), requirement: `${P}.invalid-query-rejected` }));
      // a well-formed synchronizer id the participant is not connected to: no target to vet on
      const unknown = `cc-no-such-synchronizer::1220${'ab'.repeat(32)}`;
      const x = await upload(t, dar, { vetAllPackages: 'true', synchronizerId: unknown });
      await t.judge(`${P}.unknown-synchronizer-rejected`, () => {
        notBusy(t, x);
        t.expect(x.status >= 400 && x.status < 500, `a vetting upload naming the unknown synchronizer ${unknown} answered ${x.status}, not a 4xx`, { requirement: `${P}.unknown-synchronizer-rejected`, exchange: x });
      });
    },
  );

  conformance(
    {
      id: 'ledger.upload-package.same-as-dars',
      title: 'answers the same archives and queries as the dars upload (POST /v2/dars) does',
      api: 'ledger',
      shares: [SHARED_STATE.packageVetting],
      operations: ['uploadPackage'],
      ...FEATURE,
      requirements: [`${P}.same-as-dars-upload`],
    },
    async (t) => {
      // The dars upload is the real API's POST /v2/dars (its payloads are not in SPEC.md): same body, same query.
      const token = await t.client.token(undefined);
      const dars = async (bytes: Uint8Array, query: Record<string, string>) => {
        const x = await t.client.raw({ method: 'POST', path: '/v2/dars', operationId: 'uploadDar (real API, not in SPEC.md)', query, body: bytes, headers: { 'content-type': 'application/octet-stream' }, token });
        // a raw request, outside t.call: an overload or gateway answer here decides the comparison no more than there
        notBusy(t, x);
        return x;
      };
      const same = async (bytes: Uint8Array, query: Record<string, string>, what: string) => {
        const viaDars = await dars(bytes, query);
        if (viaDars.status === 404 || viaDars.status === 405) t.skip(`the dars upload (POST /v2/dars) answered ${viaDars.status}: it is not served, so there is nothing to compare with`);
        const viaPackages = await upload(t, bytes, query);
        t.expect(viaPackages.status === viaDars.status, `${what}: POST /v2/packages answered ${viaPackages.status}, POST /v2/dars ${viaDars.status}`, { exchange: viaDars.status >= 400 ? viaPackages : viaDars });
      };
      await t.property(invalidArchive(), (bytes) => same(bytes, { vetAllPackages: 'false' }, 'a body that is not a DAR'), { runs: t.scaledRuns(3) });
      const dar = t.fixture<string>('darFile') !== undefined ? darFixture(t).bytes : undefined;
      const flagBody = validDar(t, 'same') ?? new Uint8Array([0x50, 0x4b, 0x03, 0x04]);
      const query = await vettingUploadQuery(t);
      await t.property(invalidVetFlag(), (flag) => same(flagBody, { ...query, vetAllPackages: flag }, `vetAllPackages=${flag}`), { runs: t.scaledRuns(2) });
      // a DAR the target already holds (the fixture, uploaded without vetting): both accept it again
      if (dar !== undefined) await same(dar, { vetAllPackages: 'false' }, 'the fixture DAR without vetting');
    },
  );

  conformance(
    {
      id: 'ledger.upload-package.upgrade-check',
      title: 'rejects a vetted upload that reuses the name and version of a vetted package with another package id with a 4xx',
      api: 'ledger',
      shares: [SHARED_STATE.packageVetting],
      operations: ['uploadPackage'],
      ...FEATURE,
      requirements: [`${P}.upgrade-check`],
    },
    async (t) => {
      if (t.fixture<boolean>('syntheticDars') !== true) t.skip('needs fixture syntheticDars: the check uploads generated DARs, which only a test participant accepts');
      // the same three archives in every run: the first and the last are accepted again (the same package), the second
      // is refused whether the first was vetted now or by an earlier run
      const first = stableDar(t, 'upgrade', '1.0.0');
      const vet = await vettingUploadQuery(t);
      t.expectStatus(await upload(t, first.bytes, vet), 200, { what: `${first.name} 1.0.0` });
      // the same package again is compatible with itself: accepted, also where it is vetted already
      t.expectStatus(await upload(t, first.bytes, vet), 200, { what: `${first.name} 1.0.0 uploaded again` });
      const reused = await upload(t, stableDar(t, 'upgrade', '1.0.0', 'other content').bytes, vet);
      t.expect(reused.status >= 400 && reused.status <= 499, `a second ${first.name} 1.0.0 with another package id was answered ${reused.status}, not a 4xx`, { exchange: reused });
      t.expectStatus(await upload(t, stableDar(t, 'upgrade', '2.0.0').bytes, vet), 200, { what: `${first.name} 2.0.0` });
    },
  );
  conformance(
    {
      id: 'ledger.upload-package.no-query',
      title: 'accepts an upload with no query parameters, both being optional',
      api: 'ledger',
      shares: [SHARED_STATE.packageVetting],
      operations: ['uploadPackage'],
      ...FEATURE,
      requirements: [`${P}.query-optional`],
    },
    async (t) => {
      const bytes = validDar(t, 'no-query') ?? t.skip('no DAR the target accepts: configure fixture darFile, or syntheticDars on a test participant');
      const x = await upload(t, bytes);
      if (x.status >= 200 && x.status < 300) return;
      // FACTS.md: a participant connected to two or more synchronizers needs the synchronizerId of an upload that vets
      // (the default): a refusal naming that is no refusal of the missing query parameters
      const syncs = await connectedSynchronizers(t);
      if (syncs.length > 1 && x.status === 400 && errorCode(x) === 'PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER') {
        return t.skip(`the participant is connected to ${syncs.length} synchronizers and vets by default: it needs a synchronizerId (FACTS.md), so an upload without query parameters cannot be accepted there`);
      }
      t.fail(`an upload with no query parameters (both optional) answered ${x.status}: ${x.text.slice(0, 200)}`, { exchange: x });
    },
  );
  conformance(
    {
      id: 'ledger.upload-package.no-vetting',
      title: 'does not vet the packages of a DAR uploaded with vetAllPackages false',
      api: 'ledger',
      shares: [SHARED_STATE.packageVetting],
      operations: ['uploadPackage', 'listPackageVetting'],
      ...FEATURE,
      requirements: [`${P}.no-vetting-when-false`],
    },
    async (t) => {
      // a DAR of its own that no check vets, the same in every run
      if (t.fixture<boolean>('syntheticDars') !== true) t.skip('needs fixture syntheticDars: the check uploads a generated DAR that nothing vets, which only a test participant accepts');
      const dar = stableDar(t, 'no-vet');
      if ((await records(t, dar.packageId)).length > 0) t.skip(`package ${dar.packageId} is vetted already: an upload that does not vet cannot be told from one that does`);
      t.expectStatus(await upload(t, dar.bytes, { vetAllPackages: 'false' }), 200, { what: 'an upload with vetAllPackages false' });
      const after = await records(t, dar.packageId);
      t.expect(after.length === 0, `package ${dar.packageId}, uploaded with vetAllPackages false, is listed as vetted (records: ${after.map(key).join('; ')})`);
    },
  );
  conformance(
    {
      id: 'ledger.upload-package.no-content-type',
      title: 'accepts an upload sent without a Content-Type header, taken as application/octet-stream',
      api: 'ledger',
      shares: [SHARED_STATE.packageVetting],
      operations: ['uploadPackage'],
      ...FEATURE,
      requirements: [`${P}.no-content-type-accepted`],
    },
    async (t) => {
      const dar = validDar(t, 'no-content-type') ?? t.skip('no DAR the target accepts: configure fixture darFile, or syntheticDars on a test participant');
      // no headers at all: the transport adds no Content-Type to a body of bytes (the official TypeScript client sends none)
      const x = await t.call('uploadPackage', { body: dar, query: { vetAllPackages: 'false' } });
      t.expectStatus(x, 200, { what: 'an upload without a Content-Type header' });
    },
  );
  conformance(
    {
      id: 'ledger.upload-package.synchronizer-required',
      title: 'refuses a vetting upload that names no synchronizerId on a participant connected to two or more synchronizers, with PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER',
      api: 'ledger',
      shares: [SHARED_STATE.packageVetting],
      operations: ['uploadPackage'],
      ...FEATURE,
      requirements: [`${P}.synchronizer-required`],
    },
    async (t) => {
      const syncs = await connectedSynchronizers(t);
      if (syncs.length < 2) t.skip(`the participant is connected to ${syncs.length} synchronizer(s): only one connected to two or more needs the synchronizerId of a vetting upload (FACTS.md)`);
      // an archive the target accepts, so that the refusal can only be about the missing synchronizer
      const dar = validDar(t, 'autodetect') ?? t.skip('no DAR the target accepts: configure fixture darFile, or syntheticDars on a test participant');
      const x = await upload(t, dar, { vetAllPackages: 'true' });
      notBusy(t, x);
      refusesTheInput(x, []);
      t.expect(x.status >= 400 && x.status < 500, `a vetting upload naming no synchronizer on a participant connected to ${syncs.length} answered ${x.status}, not a 4xx`, { exchange: x });
      const code = errorCode(x);
      t.expect(code === 'PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER', `the refusal's error code is ${JSON.stringify(code)}, not PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER`, { exchange: x });
    },
  );
});
