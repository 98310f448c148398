/**
 * The package store: POST /v2/packages (DAR upload, optionally vetting on a synchronizer) and GET /v2/packages.
 * A DAR is a zip archive with META-INF/MANIFEST.MF; its main package id and name come from the manifest.
 */
import { strFromU8, unzipSync } from 'fflate';
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import { CantonError, err, MalformedRequest } from './errors.js';
import { route } from './http.js';
import { isUid, sha256hex } from './ids.js';
import type { LedgerState, PackageInfo } from './state.js';
import { PF, zipWithoutManifest } from './faults-packages.js';

const notADar = (why: string) => new MalformedRequest(`Invalid value for: body (not a DAR archive: ${why})`);

/** The manifest of a DAR: the zip's META-INF/MANIFEST.MF, or a 400 when the body is no zip or has none. */
function manifestOf(buf: Buffer): string {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(buf, { filter: (f) => f.name === 'META-INF/MANIFEST.MF' && f.originalSize <= 1 << 20 });
  } catch (e) {
    throw notADar((e as Error).message);
  }
  const manifest = files['META-INF/MANIFEST.MF'];
  if (manifest === undefined) throw notADar('no META-INF/MANIFEST.MF');
  return strFromU8(manifest);
}

/** The main package of a DAR: id from Main-Dalf (or a digest of the archive), name and version from the manifest. */
export function darMainPackage(buf: Buffer): PackageInfo {
  const manifest = manifestOf(buf);
  const headers = new Map<string, string>();
  // Manifest continuation lines start with a space.
  for (const line of manifest.replace(/\r?\n /g, '').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  const full = headers.get('Name') ?? 'unnamed-package';
  const m = /^(.*?)-(\d+(?:\.\d+)*)$/.exec(full);
  const dalfId = /-([0-9a-f]{64})\.dalf$/.exec(headers.get('Main-Dalf') ?? '')?.[1];
  return {
    packageId: dalfId ?? sha256hex(buf),
    name: m?.[1] ?? full,
    version: headers.get('Version') ?? m?.[2] ?? '1.0.0',
  };
}

/** Records a package as uploaded and, when asked, vets it on the given synchronizers for this participant. */
export function storePackage(state: LedgerState, info: PackageInfo, vetOn: string[], keepSerial = false): void {
  state.localPackages.set(info.packageId, info);
  for (const s of vetOn) {
    const r = state.vettingRecord(s, state.world.participantId);
    if (!r.packages.has(info.packageId)) {
      r.packages.set(info.packageId, { packageId: info.packageId });
      if (!keepSerial) r.topologySerial += 1;
    }
  }
}

/**
 * The one upgrade rule a DAR's manifest lets the reference check: a package vetted on a target synchronizer with the
 * same name and version as the uploaded main package must be that very package (a version is never reused for other
 * content). Uploading the same package again stays accepted.
 */
function checkUpgrade(state: LedgerState, info: PackageInfo, vetOn: string[]): void {
  for (const s of vetOn) {
    for (const id of state.vettingRecord(s, state.world.participantId).packages.keys()) {
      const other = state.localPackages.get(id);
      if (id !== info.packageId && other !== undefined && other.name === info.name && other.version === info.version) {
        throw err.failedPrecondition(
          'KNOWN_PACKAGE_VERSION',
          `The DAR is not a valid upgrade: package ${info.name} ${info.version} (${info.packageId}) reuses the version of the vetted package ${id} on synchronizer ${s}`,
          { packageName: info.name, packageVersion: info.version, existingPackage: id, uploadedPackage: info.packageId, synchronizerId: s },
        );
      }
    }
  }
}

function decodeUploadQuery(state: LedgerState, q: Record<string, string | undefined>, has: (f: string) => boolean = () => false): { vet: boolean; synchronizers: string[]; named: boolean } {
  const vetRaw = q.vetAllPackages;
  if (vetRaw === undefined && has(PF.queryRequired)) throw new MalformedRequest('Invalid value for: query parameter vetAllPackages (missing)');
  if (vetRaw !== undefined && vetRaw !== 'true' && vetRaw !== 'false' && !has(PF.query)) {
    throw new MalformedRequest(`Invalid value for: query parameter vetAllPackages (expected true or false)`);
  }
  const sync = has(PF.unknownSync) && q.synchronizerId !== undefined && !state.world.synchronizers.includes(q.synchronizerId) ? state.world.synchronizers[0] : q.synchronizerId;
  if (sync !== undefined && sync !== '' && (!isUid(sync) || !state.world.synchronizers.includes(sync))) {
    throw new MalformedRequest(`Invalid value for: query parameter synchronizerId (unknown synchronizer ${sync.slice(0, 200)})`);
  }
  const vet = vetRaw !== 'false';
  let synchronizers = sync === undefined || sync === '' ? state.world.synchronizers : [sync];
  if (has(PF.sync) && sync !== undefined && sync !== '') synchronizers = [state.world.synchronizers[0] as string];
  if (has(PF.vetAll)) synchronizers = [];
  if (has(PF.everySync)) synchronizers = state.world.synchronizers;
  return { vet, synchronizers, named: sync !== undefined && sync !== '' };
}

export function packageRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  // POST /v2/packages behaves as the dars upload (POST /v2/dars, real API): one handler serves both
  const upload = (path: '/v2/packages' | '/v2/dars') => route(app, ctx, 'POST', path, async (c) => {
    const ct = c.req.headers['content-type'];
    if (ctx.faults.has(PF.contentTypeRequired) && ct === undefined) throw new MalformedRequest('Invalid value for: body (no content type)');
    // FACTS.md: an upload without a Content-Type header is taken as application/octet-stream (the official TypeScript
    // ledger client sends none); another content type is refused
    if (ct !== undefined && !/^application\/octet-stream\s*(;|$)/i.test(ct)) {
      throw new MalformedRequest(`Invalid value for: body (content type must be application/octet-stream)`);
    }
    const has = (f: string) => ctx.faults.has(f);
    const q = decodeUploadQuery(state, c.query, has);
    // the planted fault takes an upload naming no synchronizer as naming them all
    if (has(PF.autodetect)) q.named = true;
    const bytes = c.raw();
    if (has(PF.emptyAccepted) && (bytes === undefined || bytes.length === 0)) return {};
    if (bytes === undefined || bytes.length === 0) throw new MalformedRequest('Invalid value for: body (empty archive)');
    // authorization comes before reading the archive, as on a participant (the service checks the claims first)
    (await c.caller()).requireAdmin();
    const notZip = bytes.length < 4 || bytes.readUInt32LE(0) !== 0x04034b50;
    const lenient = path === '/v2/packages' ? has(PF.archive) : has(PF.darsDiffer);
    if (has(PF.manifestOptional) && !notZip && zipWithoutManifest(bytes)) return {};
    const info = lenient && notZip ? { packageId: sha256hex(bytes), name: 'unnamed-package', version: '1.0.0' } : darMainPackage(bytes);
    // FACTS.md: a vetting upload to a participant connected to several synchronizers must name one (the service
    // decides where to vet once the archive is read); with a single synchronizer the packages are vetted there
    if (q.vet && !q.named && state.world.synchronizers.length > 1) {
      throw new CantonError('PACKAGE_SERVICE_CANNOT_AUTODETECT_SYNCHRONIZER', 'INVALID_ARGUMENT', 'Cannot autodetect the synchronizer to vet the packages on: the participant is connected to several; name one in synchronizerId');
    }
    if (has(PF.reuploadRefused) && q.vet && q.synchronizers.some((s) => state.vettingRecord(s, state.world.participantId).packages.has(info.packageId))) {
      throw err.failedPrecondition('KNOWN_PACKAGE_VERSION', `The DAR is not a valid upgrade: package ${info.name} ${info.version} is vetted already`);
    }
    if (q.vet && !has(PF.upgrade)) checkUpgrade(state, info, q.synchronizers);
    if (has(PF.vetsWhenFalse)) q.vet = true;
    storePackage(state, info, q.vet ? q.synchronizers : [], has(PF.serial));
    return has(PF.schema) ? [] : {};
  });
  upload('/v2/packages');
  upload('/v2/dars');

  route(app, ctx, 'GET', '/v2/packages', async (c) => {
    await c.caller();
    return { packageIds: [...state.localPackages.keys()].sort() };
  });
}
