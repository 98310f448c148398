/**
 * User management: create, read, list, delete and update (with update masks, annotations merge and optimistic
 * concurrency on resourceVersion).
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../index.js';
import type { UserRecord } from '../world.js';
import { MalformedRequest, CantonError, err } from './errors.js';
import { optBool, optObject, optString, optStringMap, reqObject, reqString, type Obj } from './body.js';
import { route } from './http.js';
import { LEDGER_UPDATE_USER_EMPTY_MASK_ACCEPTED } from './faults-thin.js';
import { isParty, isUserId } from './ids.js';
import { checkSize, mergeAnnotations, validateAnnotations } from './annotations.js';
import { decodeRights, distinctRights, requireMayGrant, targetUser, tooManyRights, userNotFound, validateRights } from './rights.js';
import { lowerBound, type LedgerState } from './state.js';
import { MAX_RIGHTS_PER_USER, MAX_USERS_PAGE_SIZE } from './version.js';

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

function validateUserFields(u: UserInput): void {
  if (!isUserId(u.id)) throw err.invalidField('user.id', `Invalid user id ${JSON.stringify(u.id.slice(0, 200))}`);
  if (u.primaryParty !== undefined && u.primaryParty !== '' && !isParty(u.primaryParty)) {
    throw err.invalidField('user.primary_party', `Invalid party ${JSON.stringify(u.primaryParty.slice(0, 200))}`);
  }
}

function requireKnownIdp(state: LedgerState, idp: string): void {
  if (!state.identityProviders.has(idp)) {
    throw err.invalidArgument(`Provided identity_provider_id ${idp.slice(0, 200)} has not been found.`);
  }
}

export function encodeUser(u: UserRecord, ledgerVersion: string): Obj {
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

function validateMask(paths: string[]): Set<string> {
  if (paths.length === 0) throw invalidUpdate('The update mask contains no entries');
  const seen = new Set<string>();
  for (const p of paths) {
    if (!USER_PATHS.has(p)) throw invalidUpdate(`The update path: '${p.slice(0, 200)}' points to an unknown field`);
    if (seen.has(p)) throw invalidUpdate(`The update path: '${p}' is duplicated`);
    seen.add(p);
  }
  return seen;
}

function decodeMaskPaths(body: Obj): string[] {
  const mask = reqObject(body, 'updateMask');
  const paths = mask.paths ?? [];
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) {
    throw new MalformedRequest(`Invalid value for: body (expected an array of strings at 'updateMask.paths')`);
  }
  return paths as string[];
}

/** Applies the masked, modifiable fields of `input` to `user`; fields outside the mask never change. */
function applyUpdate(user: UserRecord, input: UserInput, mask: Set<string>): void {
  if (mask.has('primary_party')) user.primaryParty = input.primaryParty ?? '';
  if (mask.has('is_deactivated')) user.isDeactivated = input.isDeactivated ?? false;
  if (mask.has('primary_party_authentication')) user.primaryPartyAuthentication = input.primaryPartyAuthentication ?? false;
  if (mask.has('metadata') || mask.has('metadata.annotations')) user.annotations = mergeAnnotations(user.annotations, input.annotations);
}

function decodeListQuery(q: Record<string, string | undefined>): { pageSize: number; pageToken: string; idp: string } {
  const raw = q.pageSize;
  if (raw !== undefined && raw !== '' && !/^-?\d{1,10}$/.test(raw)) {
    throw new MalformedRequest(`Invalid value for: query parameter pageSize (expected an int32)`);
  }
  const pageSize = raw === undefined || raw === '' ? 0 : Number(raw);
  if (pageSize < 0) throw err.invalidArgument('Page size must be non-negative');
  return { pageSize, pageToken: q.pageToken ?? '', idp: q.identityProviderId ?? '' };
}

/** A page token is the base64url of the last user id of the previous page. */
function decodeUserToken(token: string): string {
  if (token === '') return '';
  const id = Buffer.from(token, 'base64url').toString('utf8');
  if (!isUserId(id) || Buffer.from(id).toString('base64url') !== token) throw err.invalidArgument('Invalid page token');
  return id;
}

export function userRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  const users = state.world.users;
  const v = ctx.options.ledgerVersion;

  route(app, ctx, 'POST', '/v2/users', async (c) => {
    const body = await c.json();
    const input = decodeUser(reqObject(body, 'user'), 'user');
    const decodedRights = decodeRights(body, 'rights');
    const caller = await c.caller();
    caller.requireIdpAdmin(input.identityProviderId);
    validateUserFields(input);
    if (input.resourceVersion !== '') throw err.invalidArgument('user.metadata.resource_version must be empty when creating a user');
    validateAnnotations(input.annotations, 'create');
    requireKnownIdp(state, input.identityProviderId);
    const rights = distinctRights(validateRights(decodedRights));
    requireMayGrant(caller, rights);
    if (MAX_RIGHTS_PER_USER > 0 && rights.length > MAX_RIGHTS_PER_USER) throw tooManyRights(input.id);
    if (users.has(input.id)) {
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
    users.set(user.id, user);
    state.addUserId(user.id);
    return { user: encodeUser(user, v) };
  });

  route(app, ctx, 'GET', '/v2/users', async (c) => {
    const q = decodeListQuery(c.query);
    const caller = await c.caller();
    caller.requireIdpAdmin(q.idp);
    const after = decodeUserToken(q.pageToken);
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
    const last = page[page.length - 1];
    return {
      users: page.map((u) => encodeUser(u, v)),
      nextPageToken: more && last !== undefined ? Buffer.from(last.id).toString('base64url') : '',
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
    if (id !== caller.id) caller.requireIdpAdmin(caller.user.identityProviderId);
    return { user: encodeUser(targetUser(state, id, caller), v) };
  });

  route(app, ctx, 'DELETE', '/v2/users/:userId', async (c) => {
    const caller = await c.caller();
    caller.requireIdpAdmin(caller.user.identityProviderId);
    const user = targetUser(state, c.params.userId ?? '', caller);
    users.delete(user.id);
    state.removeUserId(user.id);
    return {};
  });

  route(app, ctx, 'PATCH', '/v2/users/:userId', async (c) => {
    const body = await c.json();
    const input = decodeUser(reqObject(body, 'user'), 'user');
    const paths = decodeMaskPaths(body);
    const caller = await c.caller();
    caller.requireIdpAdmin(input.identityProviderId);
    const pathId = c.params.userId ?? '';
    if (pathId !== input.id) {
      throw err.invalidArgument(`user id in the path (${pathId.slice(0, 200)}) differs from user.id in the body (${input.id.slice(0, 200)})`);
    }
    validateUserFields(input);
    const mask = paths.length === 0 && ctx.faults.has(LEDGER_UPDATE_USER_EMPTY_MASK_ACCEPTED) ? new Set<string>() : validateMask(paths);
    validateAnnotations(input.annotations, 'update');
    const user = users.get(input.id);
    if (user === undefined || user.identityProviderId !== input.identityProviderId) throw userNotFound(input.id);
    if (!caller.isAdmin && user.identityProviderId !== caller.user.identityProviderId) throw userNotFound(input.id);
    // An empty resourceVersion disables the concurrency check.
    if (input.resourceVersion !== '' && input.resourceVersion !== user.resourceVersion) {
      throw new CantonError(
        'CONCURRENT_USER_UPDATE_DETECTED',
        'ABORTED',
        `Update operation for user id '${user.id}' failed due to a concurrent update to the same user`,
        {},
        [['USER_ID', user.id]],
      );
    }
    if (mask.has('is_deactivated') && input.isDeactivated === true && user.id === caller.id) {
      throw err.invalidArgument('Requesting user cannot self-deactivate');
    }
    const next: UserRecord = { ...user, annotations: { ...user.annotations } };
    applyUpdate(next, input, mask);
    checkSize(next.annotations);
    next.resourceVersion = state.nextResourceVersion();
    Object.assign(user, next);
    return { user: encodeUser(user, v) };
  });
}
