/**
 * User rights: their JSON form (`{kind: {CanActAs: {value: {party}}}}`), validation, and the grant, list and revoke
 * endpoints. Granting and revoking never change the user's resourceVersion.
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import type { Right, UserRecord } from '../world.js';
import { elementObject, isObject, oneOf, optArray, optString, reqObject, reqString, type Obj } from './body.js';
import { CantonError, MalformedRequest, err } from './errors.js';
import { F } from './faults-users.js';
import { readsAsAnyone } from './faults-transactions.js';
import type { FaultSet } from '../faults.js';
import type { Caller } from './access.js';
import { route } from './http.js';
import { isParty, isUserId } from './ids.js';
import type { LedgerState } from './state.js';

const PARTY_KINDS = ['CanActAs', 'CanExecuteAs', 'CanReadAs'] as const;
const PLAIN_KINDS = ['CanExecuteAsAnyParty', 'CanReadAsAnyParty', 'IdentityProviderAdmin', 'ParticipantAdmin'] as const;
const KINDS = [...PARTY_KINDS, ...PLAIN_KINDS, 'Empty'] as const;

/** A decoded right; `Empty` survives decoding so that validation can refuse it with a JsCantonError. */
export type DecodedRight = Right | { kind: 'Empty' };

export function decodeRight(v: unknown, path: string): DecodedRight {
  const kind = reqObject(elementObject(v, path), 'kind', path);
  const [name, payload] = oneOf(kind, `${path}.kind`, KINDS);
  if (name === 'Empty') return { kind: 'Empty' };
  if ((PARTY_KINDS as readonly string[]).includes(name)) {
    const value = reqObject(payload, 'value', `${path}.kind.${name}`);
    return { kind: name as (typeof PARTY_KINDS)[number], party: reqString(value, 'party', `${path}.kind.${name}.value`) };
  }
  return { kind: name as (typeof PLAIN_KINDS)[number] };
}

export function decodeRights(o: Obj, key: string, path = ''): DecodedRight[] {
  return (optArray(o, key, path) ?? []).map((r, i) => decodeRight(r, `${path === '' ? key : `${path}.${key}`}[${i}]`));
}

/** Refuses the Empty right and malformed party ids. */
export function validateRights(rights: DecodedRight[]): Right[] {
  return rights.map((r) => {
    if (r.kind === 'Empty') throw err.invalidArgument('unknown kind of right - check that the Ledger API version of the server is recent enough');
    if ('party' in r && !isParty(r.party)) throw err.invalidField('party', `Invalid party: ${JSON.stringify(r.party)}`);
    return r;
  });
}

export function encodeRight(r: Right): Obj {
  return { kind: { [r.kind]: { value: 'party' in r ? { party: r.party } : {} } } };
}

export const rightKey = (r: Right) => ('party' in r ? `${r.kind}:${r.party}` : r.kind);

/** Distinct rights in first-seen order. */
export function distinctRights(rights: Right[]): Right[] {
  const seen = new Set<string>();
  return rights.filter((r) => !seen.has(rightKey(r)) && (seen.add(rightKey(r)), true));
}

/** An identity provider admin may not hand out participant administration. */
export function requireMayGrant(caller: Caller, rights: Right[]): void {
  if (!caller.isAdmin && rights.some((r) => r.kind === 'ParticipantAdmin')) {
    throw err.permissionDenied('Only participant administrators may grant or revoke the ParticipantAdmin right');
  }
}

export const userNotFound = (id: string) =>
  err.notFound('USER_NOT_FOUND', `getting user failed for unknown user "${id}"`, [['USER_ID', id]]);

/** The user named by a path parameter, checked for syntax and visibility to an identity provider admin. */
/**
 * The user a request about another user names. `idp`: the identity provider the request acts within (FACTS.md: GET
 * /v2/users/{user-id} takes it as `identity-provider-id`; the rights listing and the deletion take none and act within
 * the default one), so a user of another provider is not found there, whoever asks; a user reading itself is found.
 */
export function targetUser(state: LedgerState, id: string, caller: Caller, idp?: string): UserRecord {
  if (!isUserId(id)) throw err.invalidField('user_id', `Invalid user id ${JSON.stringify(id.slice(0, 200))}`);
  const user = state.world.users.get(id);
  // An identity provider admin does not see users of other identity providers.
  if (user === undefined || (caller.id !== id && !caller.administers(user.identityProviderId) && user.identityProviderId !== caller.user.identityProviderId)) {
    throw userNotFound(id);
  }
  if (idp !== undefined && caller.id !== id && user.identityProviderId !== idp) throw userNotFound(id);
  return user;
}

interface RightsRequest {
  userId: string;
  rights: DecodedRight[];
  identityProviderId: string;
}

function decodeRightsRequest(body: Obj): RightsRequest {
  return {
    userId: reqString(body, 'userId'),
    rights: decodeRights(body, 'rights'),
    identityProviderId: optString(body, 'identityProviderId') ?? '',
  };
}

function checkPathMatchesBody(pathId: string, bodyId: string): void {
  if (pathId !== bodyId) {
    throw err.invalidArgument(`user id in the path (${pathId.slice(0, 200)}) differs from the user id in the body (${bodyId.slice(0, 200)})`);
  }
}

/** Grant-request faults that act on the raw body: rights of unknown kinds or without a party are dropped. */
function faultyRightsBody(body: Obj, faults: FaultSet): Obj {
  if (faults.has(F.grantNeedsRights) && body.rights === undefined) throw new MalformedRequest(`Invalid value for: body (missing field 'rights')`);
  if (!Array.isArray(body.rights)) return body;
  if (faults.has(F.kindlessServerError) && body.rights.some((r) => isObject(r) && r.kind === undefined)) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
  if (faults.has(F.nullKindServerError) && body.rights.some((r) => isObject(r) && r.kind === null)) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
  const keep = (r: unknown): boolean => {
    const kind = (r as { kind?: Record<string, { value?: { party?: unknown } }> } | null)?.kind;
    if (typeof kind !== 'object' || kind === null) return true;
    const name = Object.keys(kind)[0] ?? '';
    if (faults.has(F.unknownKindIgnored) && !(KINDS as readonly string[]).includes(name)) return false;
    if (faults.has(F.partylessIgnored) && (PARTY_KINDS as readonly string[]).includes(name) && typeof kind[name]?.value?.party !== 'string') return false;
    if (faults.has(F.emptyRightAccepted) && name === 'Empty') return false;
    return true;
  };
  return { ...body, rights: body.rights.filter(keep) };
}

export function rightsRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  route(app, ctx, 'POST', '/v2/users/:userId/rights', async (c) => {
    const req = decodeRightsRequest(faultyRightsBody(await c.json(), ctx.faults));
    const caller = await c.caller();
    if (!ctx.faults.has(F.grantByAnyone)) caller.requireIdpAdmin(req.identityProviderId);
    if (ctx.faults.has(F.idpAdminRefused) && !caller.isAdmin) throw err.permissionDenied('Claims do not authorize the use of administrative services.');
    checkPathMatchesBody(c.params.userId ?? '', req.userId);
    const rights = validateRights(req.rights);
    requireMayGrant(ctx.faults.has(F.idpGrantsParticipantAdmin) ? readsAsAnyone(caller) : caller, rights);
    if (ctx.faults.has(F.grantUnknownServerError) && !state.world.users.has(req.userId)) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    const user = ctx.faults.has(F.grantByAnyone) ? userInIdp(state, req.userId, req.identityProviderId, { isAdmin: true } as Caller) : userInIdp(state, req.userId, caller.reachesEveryProvider ? (state.world.users.get(req.userId)?.identityProviderId ?? req.identityProviderId) : req.identityProviderId, caller);
    const held = new Set(user.rights.map(rightKey));
    const requested = distinctRights(rights);
    const granted = requested.filter((r) => !held.has(rightKey(r)));
    const { maxRightsPerUser: MAX_RIGHTS_PER_USER } = ctx.world.variant.limits;
    // planted fault (limit-off-by-one): the limit itself is refused
    const allowed = ctx.faults.has(F.limitOffByOne) ? MAX_RIGHTS_PER_USER - 1 : MAX_RIGHTS_PER_USER;
    if (!ctx.faults.has(F.noRightsLimit) && MAX_RIGHTS_PER_USER > 0 && user.rights.length + granted.length > allowed) throw tooManyRights(user.id, MAX_RIGHTS_PER_USER);
    user.rights.push(...granted.filter((r) => !(ctx.faults.has(F.grantNotPersisted) && r.kind === 'CanExecuteAs')));
    if (ctx.faults.has(F.grantBumpsVersion)) user.resourceVersion = state.nextResourceVersion();
    const reported =
      (ctx.faults.has(F.grantReportsHeld) && granted.length > 0) || (ctx.faults.has(F.regrantNotEmpty) && granted.length === 0) ? requested : granted;
    return { newlyGrantedRights: ctx.faults.has(F.grantBadShape) ? {} : reported.map(encodeRight) };
  });

  route(app, ctx, 'PATCH', '/v2/users/:userId/rights', async (c) => {
    const req = decodeRightsRequest(await c.json());
    const caller = await c.caller();
    caller.requireIdpAdmin(req.identityProviderId);
    checkPathMatchesBody(c.params.userId ?? '', req.userId);
    const rights = validateRights(req.rights);
    requireMayGrant(caller, rights);
    const user = userInIdp(state, req.userId, req.identityProviderId, caller);
    const revoke = new Set(rights.map(rightKey));
    const revoked = user.rights.filter((r) => revoke.has(rightKey(r)));
    user.rights = user.rights.filter((r) => !revoke.has(rightKey(r)));
    if (ctx.faults.has(F.revokeReportsHeld)) return { newlyRevokedRights: [...revoked, ...user.rights].map(encodeRight) };
    return ctx.faults.has(F.revokeBadShape) ? { revokedRights: revoked.map(encodeRight) } : { newlyRevokedRights: revoked.map(encodeRight) };
  });

  route(app, ctx, 'GET', '/v2/users/:userId/rights', async (c) => {
    const caller = await c.caller();
    const id = c.params.userId ?? '';
    // Any user may read its own rights.
    if (id !== caller.id) caller.requireIdpAdmin(caller.user.identityProviderId);
    const user = targetUser(state, id, caller, '');
    return { rights: user.rights.map((r) => (ctx.faults.has(F.listRightsBadShape) ? encodeRight(r).kind : encodeRight(r))) };
  });
}

/** The user, which must belong to the identity provider the request names. */
function userInIdp(state: LedgerState, id: string, identityProviderId: string, caller: Caller): UserRecord {
  const user = targetUser(state, id, caller);
  if (user.identityProviderId !== identityProviderId) throw userNotFound(id);
  return user;
}

export const tooManyRights = (id: string, max: number) =>
  new CantonError('TOO_MANY_USER_RIGHTS', 'FAILED_PRECONDITION', `${max} rights exceeded for user "${id}"`, {}, [['USER_ID', id]]);
