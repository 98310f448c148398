/**
 * User management: create, read, list, delete and update (with update masks, annotations merge and optimistic
 * concurrency on resourceVersion).
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import type { UserRecord } from '../world.js';
import { MalformedRequest, CantonError, err } from './errors.js';
import { optBool, optObject, optString, optStringMap, reqObject, reqString, type Obj } from './body.js';
import { route } from './http.js';
import { LEDGER_UPDATE_USER_EMPTY_MASK_ACCEPTED } from './faults-thin.js';
import { isParty, isUserId } from './ids.js';
import { F, noteDeactivated, wasDeactivated } from './faults-users.js';
import type { FaultSet } from '../faults.js';
import { checkSize, mergeAnnotations, validateAnnotations } from './annotations.js';
import { decodeRights, distinctRights, requireMayGrant, targetUser, tooManyRights, userNotFound, validateRights } from './rights.js';
import { lowerBound, type LedgerState } from './state.js';
import { REFERENCE_ADMIN_USER } from '../types.js';

/** A User as sent in a request body. */
interface UserInput {
  id: string;
  primaryParty?: string;
  isDeactivated?: boolean;
  identityProviderId: string;
  primaryPartyAuthentication?: boolean;
  resourceVersion: string;
  annotations: Record<string, string>;
}

function decodeUser(o: Obj, path: string): UserInput {
  const metadata = optObject(o, 'metadata', path) ?? {};
  return {
    id: reqString(o, 'id', path),
    primaryParty: optString(o, 'primaryParty', path),
    isDeactivated: optBool(o, 'isDeactivated', path),
    identityProviderId: optString(o, 'identityProviderId', path) ?? '',
    primaryPartyAuthentication: optBool(o, 'primaryPartyAuthentication', path),
    resourceVersion: optString(metadata, 'resourceVersion', `${path}.metadata`) ?? '',
    annotations: optStringMap(metadata, 'annotations', `${path}.metadata`) ?? {},
  };
}

function validateUserFields(u: UserInput, faults?: FaultSet): void {
  const f = (n: string) => faults?.has(n) === true;
  const tolerated =
    (f(F.idTooLongAccepted) && u.id.length === 129 && isUserId(u.id.slice(0, 128)) && isUserId(u.id.slice(1))) ||
    (f(F.idEmptyAccepted) && u.id === '') ||
    (f(F.idBadCharAccepted) && u.id.includes('/') && isUserId(u.id.replaceAll('/', 'a')));
  if (f(F.idCharRejected) && u.id.includes('`')) throw err.invalidField('user.id', `Invalid user id ${JSON.stringify(u.id.slice(0, 200))}`);
  if (!isUserId(u.id) && !tolerated) {
    const cause = `Invalid user id ${JSON.stringify(u.id.slice(0, 200))}`;
    throw f(F.idCode) ? err.invalidArgument(cause) : err.invalidField('user.id', cause);
  }
  if (u.primaryParty !== undefined && u.primaryParty !== '' && !isParty(u.primaryParty)) {
    throw err.invalidField('user.primary_party', `Invalid party ${JSON.stringify(u.primaryParty.slice(0, 200))}`);
  }
}

function requireKnownIdp(state: LedgerState, idp: string): void {
  if (!state.identityProviders.has(idp)) {
    throw err.invalidArgument(`Provided identity_provider_id ${idp.slice(0, 200)} has not been found.`);
  }
}

/** Read-back faults of GET /v2/users/{user-id}. */
export function encodeUser(u: UserRecord, ledgerVersion: string, faults?: FaultSet): Obj {
  const f = (n: string) => faults?.has(n) === true;
  noteDeactivated(u);
  const out = encodeUserPlain(u, ledgerVersion);
  if (f(F.defaultIdp) && u.identityProviderId === '') out.identityProviderId = 'default';
  if (f(F.deactivatedReadsActive) && u.isDeactivated) out.isDeactivated = false;
  if (f(F.reactivatedReadsDeactivated) && wasDeactivated(u)) out.isDeactivated = true;
  return out;
}

function encodeUserPlain(u: UserRecord, ledgerVersion: string): Obj {
  return {
    id: u.id,
    primaryParty: u.primaryParty,
    isDeactivated: u.isDeactivated,
    metadata: { resourceVersion: u.resourceVersion, annotations: { ...u.annotations } },
    identityProviderId: u.identityProviderId,
    // primaryPartyAuthentication arrived with 3.5.
    ...(ledgerVersion === '3.4' ? {} : { primaryPartyAuthentication: u.primaryPartyAuthentication }),
  };
}

/** Update mask paths that are valid for a user (FACTS.md). */
const USER_PATHS = new Set([
  'id',
  'primary_party',
  'is_deactivated',
  'metadata',
  'metadata.annotations',
  'metadata.resource_version',
  'identity_provider_id',
  'primary_party_authentication',
]);

const invalidUpdate = (cause: string) =>
  new CantonError('INVALID_USER_UPDATE_REQUEST', 'INVALID_ARGUMENT', `Update operation for user failed due to an invalid update request: ${cause}`);

function validateMask(paths: string[], faults?: FaultSet): Set<string> {
  const f = (n: string) => faults?.has(n) === true;
  if (paths.length === 0) throw invalidUpdate('The update mask contains no entries');
  const seen = new Set<string>();
  for (const p of paths) {
    const unknown = !USER_PATHS.has(p) || (f(F.idPathRejected) && p === 'id') || (f(F.ppaPathRejected) && p === 'primary_party_authentication');
    if (unknown && f(F.unknownPath) && !USER_PATHS.has(p)) continue;
    if (unknown) {
      const cause = `The update path: '${p.slice(0, 200)}' points to an unknown field`;
      throw f(F.maskCode) ? err.invalidArgument(cause) : invalidUpdate(cause);
    }
    if (seen.has(p) && !f(F.duplicatePath)) throw invalidUpdate(`The update path: '${p}' is duplicated`);
    seen.add(p);
  }
  return seen;
}

function decodeMaskPaths(body: Obj): string[] {
  const mask = reqObject(body, 'updateMask');
  optObject(mask, 'unknownFields', 'updateMask');
  const paths = mask.paths ?? [];
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) {
    throw new MalformedRequest(`Invalid value for: body (expected an array of strings at 'updateMask.paths')`);
  }
  return paths as string[];
}

/** Applies the masked, modifiable fields of `input` to `user`; fields outside the mask never change. */
function applyUpdate(user: UserRecord, input: UserInput, mask: Set<string>, faults: FaultSet): void {
  if (mask.has('primary_party') ? !faults.has(F.ppIgnored) : faults.has(F.unmaskedChanges) && (input.primaryParty ?? '') !== '') user.primaryParty = input.primaryParty ?? '';
  if (mask.has('is_deactivated')) user.isDeactivated = input.isDeactivated ?? false;
  if (mask.has('primary_party_authentication') && !faults.has(F.ppaIgnored)) user.primaryPartyAuthentication = input.primaryPartyAuthentication ?? false;
  if (mask.has('primary_party_authentication') && faults.has(F.unsetPpaKept) && input.primaryPartyAuthentication === undefined) user.primaryPartyAuthentication = true;
  if (mask.has('identity_provider_id') && faults.has(F.idpModified)) user.identityProviderId = input.identityProviderId;
  if (mask.has('metadata') || mask.has('metadata.annotations')) {
    if (faults.has(F.emptyMapClears) && mask.has('metadata.annotations') && Object.keys(input.annotations).length === 0) user.annotations = {};
    else user.annotations = mergeAnnotations(user.annotations, input.annotations, faults);
  }
}

function decodeListQuery(q: Record<string, string | undefined>, MAX_USERS_PAGE_SIZE: number, faults?: FaultSet): { pageSize: number; pageToken: string; idp: string } {
  const raw = q.pageSize;
  if (raw !== undefined && raw !== '' && !/^-?\d{1,10}$/.test(raw)) {
    throw new MalformedRequest(`Invalid value for: query parameter pageSize (expected an int32)`);
  }
  const pageSize = raw === undefined || raw === '' ? 0 : Number(raw);
  if (pageSize < -(2 ** 31) || pageSize >= 2 ** 31) throw new MalformedRequest(`Invalid value for: query parameter pageSize (expected an int32)`);
  if (pageSize < 0 && !faults?.has(F.negativePageSize)) throw err.invalidArgument('Page size must be non-negative');
  if (pageSize > MAX_USERS_PAGE_SIZE && faults?.has(F.pageSizeRejected)) throw err.invalidArgument('Page size is above the maximum');
  return { pageSize: Math.max(0, pageSize), pageToken: q.pageToken ?? '', idp: q.identityProviderId ?? '' };
}

/** A page token is the base64url of the last user id of the previous page. */
function decodeUserToken(token: string, faults?: FaultSet): string {
  if (token === '') return '';
  const id = Buffer.from(token, 'base64url').toString('utf8');
  if (!isUserId(id) || Buffer.from(id).toString('base64url') !== token) {
    if (faults?.has(F.badPageToken)) return '';
    throw err.invalidArgument('Invalid page token');
  }
  return id;
}

/** The resourceVersion each user had when it was last returned by an update (for the empty-version fault). */
const lastReturnedVersion = new WeakMap<UserRecord, string>();

export function userRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  const users = state.world.users;
  const v = ctx.options.ledgerVersion;

  route(app, ctx, 'POST', '/v2/users', async (c) => {
    const body = await c.json();
    const input = decodeUser(reqObject(body, 'user'), 'user');
    const rawMeta = (body.user as { metadata?: { annotations?: unknown } | null } | undefined)?.metadata;
    if (ctx.faults.has(F.annotationsNotEmpty) && (rawMeta === undefined || rawMeta === null || rawMeta.annotations === undefined || rawMeta.annotations === null)) {
      throw err.invalidArgument('user.metadata.annotations must be given');
    }
    const decodedRights = decodeRights(body, 'rights');
    const caller = await c.caller();
    caller.requireIdpAdmin(input.identityProviderId);
    validateUserFields(input, ctx.faults);
    if (input.resourceVersion !== '' && !ctx.faults.has(F.createVersionIgnored)) throw err.invalidArgument('user.metadata.resource_version must be empty when creating a user');
    validateAnnotations(input.annotations, 'create', ctx.faults);
    requireKnownIdp(state, input.identityProviderId);
    const rights = distinctRights(validateRights(decodedRights));
    requireMayGrant(caller, rights);
    const MAX_RIGHTS_PER_USER = ctx.faults.has(F.createRightsUnlimited) ? 0 : ctx.world.variant.limits.maxRightsPerUser;
    if (MAX_RIGHTS_PER_USER > 0 && rights.length > MAX_RIGHTS_PER_USER) throw tooManyRights(input.id, MAX_RIGHTS_PER_USER);
    if (users.has(input.id)) {
      if (ctx.faults.has(F.existing400)) throw err.invalidArgument(`user "${input.id}" already exists`);
      throw err.alreadyExists('USER_ALREADY_EXISTS', `creating user failed, as user "${input.id}" already exists`, [['USER_ID', input.id]]);
    }
    const user: UserRecord = {
      id: input.id,
      primaryParty: input.primaryParty ?? '',
      isDeactivated: input.isDeactivated ?? false,
      identityProviderId: input.identityProviderId,
      primaryPartyAuthentication: input.primaryPartyAuthentication ?? false,
      annotations: { ...input.annotations },
      resourceVersion: state.nextResourceVersion(),
      rights,
    };
    if (ctx.faults.has(F.createdDeactivated) && input.isDeactivated === undefined) user.isDeactivated = true;
    const withAnnotations = Object.keys(user.annotations).length > 0;
    if (ctx.faults.has(F.serverUnprefixed) && withAnnotations) user.annotations['created-by'] = 'reference';
    users.set(user.id, user);
    state.addUserId(user.id);
    return ctx.faults.has(F.createNoUser) ? {} : { user: encodeUser(user, v, ctx.faults) };
  });

  route(app, ctx, 'GET', '/v2/users', async (c) => {
    const { maxUsersPageSize: MAX_USERS_PAGE_SIZE } = ctx.world.variant.limits;
    const q = decodeListQuery(c.query, MAX_USERS_PAGE_SIZE, ctx.faults);
    if (ctx.faults.has(F.listPageSizeIgnored)) q.pageSize = 0;
    const caller = await c.caller();
    if (!ctx.faults.has(F.listUsersAsAdmin)) caller.requireIdpAdmin(q.idp);
    let after = decodeUserToken(q.pageToken, ctx.faults);
    if (ctx.faults.has(F.listTokenRestarts)) after = '';
    // planted fault (int32-max-page-size-overflow): the largest int32 page size overflows an int32 sum
    if (ctx.faults.has(F.pageSizeInt32Overflow) && q.pageSize === 2 ** 31 - 1) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    const size = q.pageSize === 0 ? MAX_USERS_PAGE_SIZE : Math.min(q.pageSize, MAX_USERS_PAGE_SIZE);
    const page: UserRecord[] = [];
    let i = after === '' ? 0 : lowerBound(state.userIds, after);
    if (state.userIds[i] === after) i += 1;
    let more = false;
    for (; i < state.userIds.length; i++) {
      const u = users.get(state.userIds[i] as string);
      if (u === undefined || u.identityProviderId !== q.idp) continue;
      if (page.length === size) {
        more = true;
        break;
      }
      page.push(u);
    }
    if (ctx.faults.has(F.listLastPageEmpty) && !more) page.length = 0;
    const last = page[page.length - 1];
    return {
      users: page.map((u) => encodeUser(u, v, ctx.faults)),
      ...(ctx.faults.has(F.listNoToken) ? {} : { nextPageToken: more && last !== undefined ? Buffer.from(last.id).toString('base64url') : '' }),
    };
  });

  route(app, ctx, 'GET', '/v2/authenticated-user', async (c) => {
    const caller = await c.caller();
    return { user: encodeUser(caller.user, v) };
  });

  route(app, ctx, 'GET', '/v2/users/:userId', async (c) => {
    const caller = await c.caller();
    const id = c.params.userId ?? '';
    // Any user may read itself; other users need (identity provider) administration rights.
    if (id !== caller.id && !ctx.faults.has(F.readOthers)) caller.requireIdpAdmin(caller.user.identityProviderId);
    const out = encodeUser(targetUser(state, id, caller, c.query['identity-provider-id'] ?? ''), v, ctx.faults);
    if (ctx.faults.has(F.rvEmptyOnRead)) (out.metadata as Obj).resourceVersion = '';
    if (ctx.faults.has(F.getUserBadShape)) out.isDeactivated = String(out.isDeactivated);
    return { user: out };
  });

  route(app, ctx, 'DELETE', '/v2/users/:userId', async (c) => {
    const caller = await c.caller();
    caller.requireIdpAdmin(caller.user.identityProviderId);
    if (ctx.faults.has(F.deleteUnknown) && isUserId(c.params.userId ?? '') && !users.has(c.params.userId ?? '')) return {};
    const user = targetUser(state, c.params.userId ?? '', caller, '');
    users.delete(user.id);
    state.removeUserId(user.id);
    return ctx.faults.has(F.deleteBadShape) ? [] : {};
  });

  route(app, ctx, 'PATCH', '/v2/users/:userId', async (c) => {
    const body = await c.json();
    const input = decodeUser(reqObject(body, 'user'), 'user');
    const rawMeta = (body.user as { metadata?: { annotations?: unknown } | null } | undefined)?.metadata;
    if (ctx.faults.has(F.annotationsNotEmpty) && (rawMeta === undefined || rawMeta === null || rawMeta.annotations === undefined || rawMeta.annotations === null)) {
      throw err.invalidArgument('user.metadata.annotations must be given');
    }
    const paths = decodeMaskPaths(body);
    const caller = await c.caller();
    if (!ctx.faults.has(F.updateByAnyone)) caller.requireIdpAdmin(input.identityProviderId);
    if (ctx.faults.has(F.createdAdminRefused) && caller.isAdmin && caller.id !== REFERENCE_ADMIN_USER) {
      throw err.permissionDenied('Claims do not authorize the use of administrative services.');
    }
    const pathId = c.params.userId ?? '';
    if (pathId !== input.id && !ctx.faults.has(F.pathIdIgnored)) {
      throw err.invalidArgument(`user id in the path (${pathId.slice(0, 200)}) differs from user.id in the body (${input.id.slice(0, 200)})`);
    }
    validateUserFields(input, ctx.faults);
    const mask = paths.length === 0 && ctx.faults.has(LEDGER_UPDATE_USER_EMPTY_MASK_ACCEPTED) ? new Set<string>() : validateMask(paths, ctx.faults);
    validateAnnotations(input.annotations, 'update', ctx.faults);
    const user = users.get(input.id);
    const idpMatches = user !== undefined && (user.identityProviderId === input.identityProviderId || (ctx.faults.has(F.idpModified) && mask.has('identity_provider_id')) || caller.reachesEveryProvider);
    if (user === undefined || !idpMatches) throw userNotFound(input.id);
    if (!caller.administers(user.identityProviderId) && user.identityProviderId !== caller.user.identityProviderId && !ctx.faults.has(F.updateByAnyone)) throw userNotFound(input.id);
    // An empty resourceVersion disables the concurrency check.
    const stale =
      ctx.faults.has(F.emptyVersionChecked) && input.resourceVersion === ''
        ? lastReturnedVersion.has(user)
        : ctx.faults.has(F.currentRejected)
          ? input.resourceVersion !== ''
          : !ctx.faults.has(F.staleAccepted) && input.resourceVersion !== '' && input.resourceVersion !== user.resourceVersion;
    if (stale && ctx.faults.has(F.staleWrongStatus)) throw err.invalidArgument(`resource version ${input.resourceVersion.slice(0, 100)} is outdated`);
    if (stale) {
      throw new CantonError(
        'CONCURRENT_USER_UPDATE_DETECTED',
        'ABORTED',
        `Update operation for user id '${user.id}' failed due to a concurrent update to the same user`,
        {},
        [['USER_ID', user.id]],
      );
    }
    if (ctx.faults.has(F.selfUnmaskedRefused) && input.isDeactivated === true && user.id === caller.id) throw err.invalidArgument('Requesting user cannot self-deactivate');
    if (mask.has('is_deactivated') && input.isDeactivated === true && user.id === caller.id) {
      throw err.invalidArgument('Requesting user cannot self-deactivate');
    }
    const before = encodeUser(user, v, ctx.faults);
    const next: UserRecord = { ...user, annotations: { ...user.annotations } };
    applyUpdate(next, input, mask, ctx.faults);
    checkSize(next.annotations, ctx.faults);
    const annotationsOnly = [...mask].every((p) => p === 'metadata' || p === 'metadata.annotations' || p === 'metadata.resource_version');
    if (ctx.faults.has(F.rvKeptOnAnnotations) && annotationsOnly) next.resourceVersion = user.resourceVersion;
    else if (ctx.faults.has(F.rvRecycled)) next.resourceVersion = user.resourceVersion === 'rv-a' ? 'rv-b' : 'rv-a';
    else next.resourceVersion = state.nextResourceVersion();
    Object.assign(user, next);
    const out = encodeUser(user, v, ctx.faults);
    if (ctx.faults.has(F.notPersisted)) user.resourceVersion = state.nextResourceVersion();
    lastReturnedVersion.set(user, user.resourceVersion);
    if (ctx.faults.has(F.idRenamed) && mask.has('id')) {
      users.delete(user.id);
      state.removeUserId(user.id);
      user.id = `${user.id}-renamed`;
      users.set(user.id, user);
      state.addUserId(user.id);
    }
    if (ctx.faults.has(F.updateNoId)) delete out.id;
    return { user: ctx.faults.has(F.staleResponse) ? before : out };
  });
}
