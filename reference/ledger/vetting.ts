/**
 * Vetted packages: the topology state of which participant vetted which packages on which synchronizer, listed by
 * GET /v2/package-vetting (JSON body on a GET) and POST /v2/package-vetting/list with filters and pagination.
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import { optInt, optObject, optString, optStringArray, type Obj } from './body.js';
import { MalformedRequest, err } from './errors.js';
import { route, type Call } from './http.js';
import { comparePackageVersions, isPackageId, isParticipantId, isUid } from './ids.js';
import { compareStrings, type LedgerState, type VettedEntry, type VettingRecord } from './state.js';
import { VF } from './faults-vetting.js';
import { WF } from './faults-wire.js';
import { CF, withStatus } from './faults-cross.js';
import { CantonError } from './errors.js';

type Has = (fault: string) => boolean;
const none: Has = () => false;

interface VettingQuery {
  /** whether the filters were present in the request (even when empty) */
  metadataPresent?: boolean;
  topologyPresent?: boolean;
  packageIds: string[];
  packageNamePrefixes: string[];
  participantIds: string[];
  synchronizerIds: string[];
  pageToken: string;
  /** whether pageToken was present in the request */
  tokenGiven?: boolean;
  pageSize: number;
}

function decodeQuery(body: Obj): VettingQuery {
  const pm = optObject(body, 'packageMetadataFilter') ?? {};
  const ts = optObject(body, 'topologyStateFilter') ?? {};
  return {
    metadataPresent: body.packageMetadataFilter !== undefined && body.packageMetadataFilter !== null,
    topologyPresent: body.topologyStateFilter !== undefined && body.topologyStateFilter !== null,
    packageIds: optStringArray(pm, 'packageIds', 'packageMetadataFilter') ?? [],
    packageNamePrefixes: optStringArray(pm, 'packageNamePrefixes', 'packageMetadataFilter') ?? [],
    participantIds: optStringArray(ts, 'participantIds', 'topologyStateFilter') ?? [],
    synchronizerIds: optStringArray(ts, 'synchronizerIds', 'topologyStateFilter') ?? [],
    pageToken: optString(body, 'pageToken') ?? '',
    tokenGiven: typeof body.pageToken === 'string',
    pageSize: optInt(body, 'pageSize') ?? 0,
  };
}

function validateQuery(q: VettingQuery, has: Has, MAX_VETTED_PACKAGES_PAGE_SIZE: number): void {
  if (q.pageSize === 0 && has(VF.zeroRejected)) throw err.invalidArgument('page_size must be positive');
  if (q.pageSize < 0 && has(VF.negative)) q.pageSize = 0;
  if (q.pageSize > MAX_VETTED_PACKAGES_PAGE_SIZE && has(VF.aboveMax)) q.pageSize = MAX_VETTED_PACKAGES_PAGE_SIZE;
  if (q.pageSize < 0) throw err.invalidArgument('page_size must be non-negative');
  if (q.pageSize > MAX_VETTED_PACKAGES_PAGE_SIZE && has(VF.aboveMax409)) {
    throw new CantonError('PAGE_SIZE_TOO_LARGE', 'ABORTED', `page_size ${q.pageSize} exceeds the maximum page size of ${MAX_VETTED_PACKAGES_PAGE_SIZE}`);
  }
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
function decodeToken(token: string, has: Has = none): string | undefined {
  if (token === '') return undefined;
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string') && Buffer.from(JSON.stringify(v)).toString('base64url') === token) {
      return `${v[0] as string}\u0000${v[1] as string}`;
    }
  } catch {
    // fall through: not a token this server issued
  }
  if (has(VF.badToken)) return undefined;
  if (has(CF.serverError)) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
  throw err.invalidArgument('Invalid page token');
}

/** Package predicate: no filter matches all; otherwise a package id in the list or a known name with a prefix. */
function packageMatcher(state: LedgerState, q: VettingQuery, has: Has): (p: VettedEntry) => boolean {
  if (q.packageIds.length === 0 && q.packageNamePrefixes.length === 0) return () => !(q.metadataPresent === true && has(VF.emptyMetadataNone));
  const ids = new Set(q.packageIds);
  if (has(VF.packageFilterBoth) && q.packageIds.length > 0 && q.packageNamePrefixes.length > 0) {
    return (p) => {
      const name = state.localPackages.get(p.packageId)?.name;
      return ids.has(p.packageId) && name !== undefined && q.packageNamePrefixes.some((prefix) => name.startsWith(prefix));
    };
  }
  return (p) => {
    if (ids.has(p.packageId)) return true;
    const name = state.localPackages.get(p.packageId)?.name;
    return name !== undefined && q.packageNamePrefixes.some((prefix) => name.startsWith(prefix));
  };
}

function topologyMatcher(q: VettingQuery, has: Has): (r: VettingRecord) => boolean {
  const ps = new Set(q.participantIds);
  const ss = new Set(q.synchronizerIds);
  if (ps.size === 0 && ss.size === 0 && q.topologyPresent === true && has(VF.emptyTopologyNone)) return () => false;
  if (ps.size > 0 && ss.size === 0 && has(VF.participantOnlyIgnored)) return () => true;
  if (ps.size > 0 && ss.size > 0 && has(VF.topologyEither)) return (r) => ps.has(r.participantId) || ss.has(r.synchronizerId);
  return (r) => (ps.size === 0 || ps.has(r.participantId)) && (ss.size === 0 || ss.has(r.synchronizerId));
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
      const d = compareStrings(ia.name, ib.name) || comparePackageVersions(ia.version, ib.version);
      if (d !== 0) return d;
    }
    return compareStrings(a.packageId, b.packageId);
  });
}

function encodeRecord(state: LedgerState, r: VettingRecord, packages: VettedEntry[], has: Has = none): Obj {
  const sorted = sortPackages(state, packages);
  if (has(VF.packagesReversed)) sorted.reverse();
  return {
    packages: sorted.map((e) => {
      const info = state.localPackages.get(e.packageId);
      return {
        packageId: e.packageId,
        ...(e.validFromInclusive !== undefined ? { validFromInclusive: e.validFromInclusive } : {}),
        ...(e.validUntilExclusive !== undefined ? { validUntilExclusive: e.validUntilExclusive } : {}),
        ...(info !== undefined ? { packageName: info.name, packageVersion: has(VF.uploadedVersion) ? '0.0.0' : info.version } : has(VF.foreignNamed) ? { packageName: 'foreign-package', packageVersion: '1.0.0' } : {}),
      };
    }),
    participantId: r.participantId,
    synchronizerId: r.synchronizerId,
    topologySerial: r.topologySerial,
  };
}

/** For the stale-token fault: the state of the vetting records each page token was handed out at. */
const tokenStamps = new WeakMap<LedgerState, Map<string, string>>();
const vettingStamp = (state: LedgerState) => state.vettingInOrder().map((r) => `${r.synchronizerId}/${r.participantId}/${r.topologySerial}`).join(',');

export function listVetted(state: LedgerState, q: VettingQuery, has: Has = none): Obj {
  const MAX_VETTED_PACKAGES_PAGE_SIZE = state.world.variant.limits.maxVettedPackagesPageSize;
  validateQuery(q, has, MAX_VETTED_PACKAGES_PAGE_SIZE);
  let after = decodeToken(q.pageToken, has);
  if (has(VF.tokenStale) && q.pageToken !== '' && tokenStamps.get(state)?.get(q.pageToken) !== undefined && tokenStamps.get(state)?.get(q.pageToken) !== vettingStamp(state)) {
    throw err.invalidArgument('Invalid page token: the vetted packages changed since it was issued');
  }
  if (has(VF.tokenSingleUse) && q.pageToken !== '') {
    if (state.usedPageTokens.has(q.pageToken)) throw err.invalidArgument('Invalid page token');
    state.usedPageTokens.add(q.pageToken);
  }
  const size = (q.pageSize === 0 ? MAX_VETTED_PACKAGES_PAGE_SIZE : q.pageSize) + (has(VF.pageOverflow) && q.pageSize > 0 ? 1 : 0);
  const matchesPackage = packageMatcher(state, q, has);
  const matchesTopology = topologyMatcher(q, has);
  const ordered = state.vettingInOrder();
  const keyOf = (r: VettingRecord) => `${r.synchronizerId}\u0000${r.participantId}`;
  if (has(VF.tokenRepeats) && after !== undefined) {
    // resume at the record before the token's: the last record of the previous page comes again
    const i = ordered.findIndex((r) => keyOf(r) === after);
    after = i > 0 ? keyOf(ordered[i - 1] as VettingRecord) : '';
  }
  if (has(VF.emptyTokenSkips) && q.pageToken === '' && q.tokenGiven === true) {
    const first = ordered.find((r) => matchesTopology(r) && [...r.packages.values()].some(matchesPackage));
    if (first !== undefined) after = keyOf(first);
  }
  const lastMatching = has(VF.lastDropped) ? [...ordered].reverse().find((r) => matchesTopology(r) && [...r.packages.values()].some(matchesPackage)) : undefined;
  const page: Obj[] = [];
  let last: VettingRecord | undefined;
  let more = false;
  for (const r of ordered) {
    if (after !== undefined && `${r.synchronizerId}\u0000${r.participantId}` <= after) continue;
    if (!matchesTopology(r)) continue;
    if (r === lastMatching) continue;
    const packages = [...r.packages.values()].filter(matchesPackage);
    if (packages.length === 0) continue;
    if (page.length === size) {
      more = true;
      break;
    }
    page.push(encodeRecord(state, r, packages, has));
    last = r;
  }
  if (has(VF.recordsReversed)) page.reverse();
  if (has(VF.emptyRecord) && page[0] !== undefined) page[0] = { ...page[0], packages: [] };
  // the fault: the last page carries a token, and the (empty) page it leads to hands the same token back, so a client
  // following tokens never reaches a page with an empty one
  const token = more && last !== undefined ? encodeToken(last) : has(VF.tokenOnLast) ? (last !== undefined ? encodeToken(last) : q.pageToken) : '';
  if (has(VF.emptyResult) && page.length === 0) throw err.notFound('NOT_FOUND', 'No vetted packages match the request');
  if (has(VF.tokenStale) && token !== '') {
    if (!tokenStamps.has(state)) tokenStamps.set(state, new Map());
    tokenStamps.get(state)!.set(token, vettingStamp(state));
  }
  return { vettedPackages: page, nextPageToken: token };
}

export function vettingRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  const has: Has = (f) => ctx.faults.has(f);
  const handler = (method: 'GET' | 'POST') => async (c: Call) => {
    if (has(method === 'GET' ? VF.getGone : VF.listGone)) throw err.notFound('NOT_FOUND', `The requested resource could not be found: ${method}`);
    // Every request field is optional, so an empty body is an empty request.
    let body: Obj;
    try {
      body = await c.json({});
    } catch (e) {
      if (method === 'POST' && has(CF.malformed) && e instanceof MalformedRequest) throw err.invalidArgument(e.message);
      if (method === 'POST' && has(CF.malformedEmpty) && e instanceof MalformedRequest) throw new MalformedRequest('');
      throw e;
    }
    if (has(WF.leastInt32Malformed) && body.pageSize === -(2 ** 31)) throw new MalformedRequest("Invalid value for: body (int32 out of range at 'pageSize')");
    if (method === 'POST' && has(CF.unknownFields)) {
      const known = ['packageMetadataFilter', 'topologyStateFilter', 'pageToken', 'pageSize'];
      const extra = Object.keys(body).find((k) => !known.includes(k));
      if (extra !== undefined) throw err.invalidArgument(`Unknown field ${extra}`);
    }
    if (method === 'GET' && has(VF.bodyIgnored)) body = {};
    if (method === 'POST' && has(VF.listDiffers)) body = { ...body, topologyStateFilter: undefined };
    const q = decodeQuery(body);
    // Reading vetted packages is a public service: any authenticated user.
    await c.caller();
    if (method === 'GET' && has(VF.emptyBody) && Object.keys(body).length === 0) throw new MalformedRequest('Invalid value for: body (missing field pageSize)');
    let out: Obj;
    try {
      out = listVetted(state, q, has);
    } catch (e) {
      if (e instanceof CantonError && e.grpc === 'INVALID_ARGUMENT' && has(CF.s400)) throw withStatus(e, 409);
      throw e;
    }
    if (has(method === 'GET' ? VF.schema : VF.listSchema)) delete out.nextPageToken;
    return out;
  };
  // FACTS.md: GET /v2/package-vetting is gone in 3.6; its replacement stays
  if (ctx.options.ledgerVersion !== '3.6' || ctx.faults.has(VF.getKept)) route(app, ctx, 'GET', '/v2/package-vetting', handler('GET'));
  route(app, ctx, 'POST', '/v2/package-vetting/list', handler('POST'));
}
