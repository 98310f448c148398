/**
 * Vetted packages: the topology state of which participant vetted which packages on which synchronizer, listed by
 * GET /v2/package-vetting (JSON body on a GET) and POST /v2/package-vetting/list with filters and pagination.
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../index.js';
import { optInt, optObject, optString, optStringArray, type Obj } from './body.js';
import { err } from './errors.js';
import { route, type Call } from './http.js';
import { isPackageId, isParticipantId, isUid } from './ids.js';
import { compareStrings, type LedgerState, type VettedEntry, type VettingRecord } from './state.js';
import { MAX_VETTED_PACKAGES_PAGE_SIZE } from './version.js';

interface VettingQuery {
  packageIds: string[];
  packageNamePrefixes: string[];
  participantIds: string[];
  synchronizerIds: string[];
  pageToken: string;
  pageSize: number;
}

function decodeQuery(body: Obj): VettingQuery {
  const pm = optObject(body, 'packageMetadataFilter') ?? {};
  const ts = optObject(body, 'topologyStateFilter') ?? {};
  return {
    packageIds: optStringArray(pm, 'packageIds', 'packageMetadataFilter') ?? [],
    packageNamePrefixes: optStringArray(pm, 'packageNamePrefixes', 'packageMetadataFilter') ?? [],
    participantIds: optStringArray(ts, 'participantIds', 'topologyStateFilter') ?? [],
    synchronizerIds: optStringArray(ts, 'synchronizerIds', 'topologyStateFilter') ?? [],
    pageToken: optString(body, 'pageToken') ?? '',
    pageSize: optInt(body, 'pageSize') ?? 0,
  };
}

function validateQuery(q: VettingQuery): void {
  if (q.pageSize < 0) throw err.invalidArgument('page_size must be non-negative');
  if (q.pageSize > MAX_VETTED_PACKAGES_PAGE_SIZE) {
    throw err.invalidArgument(`page_size ${q.pageSize} exceeds the maximum page size of ${MAX_VETTED_PACKAGES_PAGE_SIZE}`);
  }
  const bad = (field: string, v: string) => err.invalidField(field, `Invalid value ${JSON.stringify(v.slice(0, 200))}`);
  for (const id of q.packageIds) if (!isPackageId(id)) throw bad('package_ids', id);
  for (const id of q.participantIds) if (!isParticipantId(id)) throw bad('participant_ids', id);
  for (const id of q.synchronizerIds) if (!isUid(id)) throw bad('synchronizer_ids', id);
}

/** The page token names the (synchronizerId, participantId) of the last record returned. */
function encodeToken(r: VettingRecord): string {
  return Buffer.from(JSON.stringify([r.synchronizerId, r.participantId])).toString('base64url');
}
function decodeToken(token: string): string | undefined {
  if (token === '') return undefined;
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string') && Buffer.from(JSON.stringify(v)).toString('base64url') === token) {
      return `${v[0] as string}\u0000${v[1] as string}`;
    }
  } catch {
    // fall through: not a token this server issued
  }
  throw err.invalidArgument('Invalid page token');
}

/** Package predicate: no filter matches all; otherwise a package id in the list or a known name with a prefix. */
function packageMatcher(state: LedgerState, q: VettingQuery): (p: VettedEntry) => boolean {
  if (q.packageIds.length === 0 && q.packageNamePrefixes.length === 0) return () => true;
  const ids = new Set(q.packageIds);
  return (p) => {
    if (ids.has(p.packageId)) return true;
    const name = state.localPackages.get(p.packageId)?.name;
    return name !== undefined && q.packageNamePrefixes.some((prefix) => name.startsWith(prefix));
  };
}

function topologyMatcher(q: VettingQuery): (r: VettingRecord) => boolean {
  const ps = new Set(q.participantIds);
  const ss = new Set(q.synchronizerIds);
  return (r) => (ps.size === 0 || ps.has(r.participantId)) && (ss.size === 0 || ss.has(r.synchronizerId));
}

function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? -1) - (y[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** Name and version where known (packages with unknown name first, like an absent Option), then package id. */
function sortPackages(state: LedgerState, entries: VettedEntry[]): VettedEntry[] {
  const info = (e: VettedEntry) => state.localPackages.get(e.packageId);
  return [...entries].sort((a, b) => {
    const ia = info(a);
    const ib = info(b);
    if (ia === undefined || ib === undefined) {
      if (ia !== ib) return ia === undefined ? -1 : 1;
    } else {
      const d = compareStrings(ia.name, ib.name) || compareVersions(ia.version, ib.version);
      if (d !== 0) return d;
    }
    return compareStrings(a.packageId, b.packageId);
  });
}

function encodeRecord(state: LedgerState, r: VettingRecord, packages: VettedEntry[]): Obj {
  return {
    packages: sortPackages(state, packages).map((e) => {
      const info = state.localPackages.get(e.packageId);
      return {
        packageId: e.packageId,
        ...(e.validFromInclusive !== undefined ? { validFromInclusive: e.validFromInclusive } : {}),
        ...(e.validUntilExclusive !== undefined ? { validUntilExclusive: e.validUntilExclusive } : {}),
        ...(info !== undefined ? { packageName: info.name, packageVersion: info.version } : {}),
      };
    }),
    participantId: r.participantId,
    synchronizerId: r.synchronizerId,
    topologySerial: r.topologySerial,
  };
}

export function listVetted(state: LedgerState, q: VettingQuery): Obj {
  validateQuery(q);
  const after = decodeToken(q.pageToken);
  const size = q.pageSize === 0 ? MAX_VETTED_PACKAGES_PAGE_SIZE : q.pageSize;
  const matchesPackage = packageMatcher(state, q);
  const matchesTopology = topologyMatcher(q);
  const page: Obj[] = [];
  let last: VettingRecord | undefined;
  let more = false;
  for (const r of state.vettingInOrder()) {
    if (after !== undefined && `${r.synchronizerId}\u0000${r.participantId}` <= after) continue;
    if (!matchesTopology(r)) continue;
    const packages = [...r.packages.values()].filter(matchesPackage);
    if (packages.length === 0) continue;
    if (page.length === size) {
      more = true;
      break;
    }
    page.push(encodeRecord(state, r, packages));
    last = r;
  }
  return { vettedPackages: page, nextPageToken: more && last !== undefined ? encodeToken(last) : '' };
}

export function vettingRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  const handler = async (c: Call) => {
    // Every request field is optional, so an empty body is an empty request.
    const q = decodeQuery(await c.json({}));
    // Reading vetted packages is a public service: any authenticated user.
    await c.caller();
    return listVetted(state, q);
  };
  route(app, ctx, 'GET', '/v2/package-vetting', handler);
  route(app, ctx, 'POST', '/v2/package-vetting/list', handler);
}
