import './faults-derived.js';
import { VALIDATOR_ABSENCE_FAULTS as XF } from './faults-absence.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReferenceContext } from '../types.js';
import { REFERENCE_VALIDATOR_USER } from '../types.js';
import { bearerSubject, unverifiedSubject } from '../auth.js';
import { listAnsEntriesHandler } from '../data/ans-routes.js';
import { BEARER_CHALLENGE, FrameworkRejection, installJsonErrors, routeNotFound, sendError, wildcardSegment } from '../data/http.js';
import { sharedScanData } from '../data/shared.js';
import { VALIDATOR_ENTRY_FAULTS as EF } from './faults-entry.js';
import { installValidatorHttpFaults } from './faults-http.js';
import { installValidatorBodyFaults } from './faults-wire.js';
import { proxyAnsFaults, VALIDATOR_PROXY_FAULTS as PF } from './faults-scan-proxy.js';
import { party } from '../data/seed.js';
import { VALIDATOR_LIST_OWNED_ANS_ENTRIES_AMOUNT_NUMBER, VALIDATOR_LIST_OWNED_ANS_ENTRIES_NO_AUTH } from './faults-thin.js';

/**
 * Validator API routes of the reference server (paths relative to its base address).
 *
 * Users onboarded on the validator: the participant's ledger users with a primary party, and the reference validator
 * user, whose party is the validator operator party; it owns ANS entries 0..3 of the shared data (entry 2 expired).
 * alice_user and bob_user own the alice-* and bob-* entries.
 *
 * Every route needs a bearer token, as Splice's validator does (FACTS.md): the scan-proxy routes take any valid token,
 * GET /v0/entry/all lists the entries of the token's user. A missing or invalid token is rejected by the framework:
 * 401, text/plain, with a WWW-Authenticate challenge.
 */
export async function validatorRoutes(app: FastifyInstance, ctx: ReferenceContext): Promise<void> {
  installJsonErrors(app);
  installValidatorHttpFaults(app, ctx.faults);
  installValidatorBodyFaults(app, ctx.faults);
  const data = sharedScanData(ctx);
  /**
   * The party of a user onboarded on this validator: a ledger user's primary party (the validator's users are the
   * participant's users), and in any case the reference validator user's operator party. Deactivated -> 'denied'.
   */
  const partyOf = (user: string): string | 'denied' | undefined => {
    const u = ctx.world.users?.get(user);
    if (u !== undefined && u.isDeactivated) return 'denied';
    if (u !== undefined && u.primaryParty !== '') return u.primaryParty;
    return user === REFERENCE_VALIDATOR_USER ? data.validatorParty : undefined;
  };

  /** the subject of the request's valid bearer token; a framework 401 without one */
  const authenticated = async (req: FastifyRequest, o: { unverified?: boolean } = {}): Promise<string> => {
    let sub = await bearerSubject(req, ctx.options.jwtSecret);
    if (sub === undefined && o.unverified === true) sub = unverifiedSubject(req);
    if (sub !== undefined) return sub;
    throw new FrameworkRejection(401, req.headers.authorization === undefined ? 'The resource requires authentication, which was not supplied with the request' : 'The supplied authentication is invalid');
  };
  /** the scan-proxy routes: any valid token (a planted fault answers without one) */
  const proxyAuth = async (req: FastifyRequest): Promise<void> => {
    if (ctx.faults.has(PF.noAuth) && req.headers.authorization === undefined) return;
    if (ctx.faults.has(XF.anyToken) && req.headers.authorization !== undefined) return;
    await authenticated(req);
  };

  app.get('/v0/entry/all', async (req, reply) => {
    if (req.headers.authorization === undefined && ctx.faults.has(EF.missingToken403)) return sendError(reply, 403, 'no bearer token');
    const sub =
      req.headers.authorization === undefined && ctx.faults.has(VALIDATOR_LIST_OWNED_ANS_ENTRIES_NO_AUTH)
        ? REFERENCE_VALIDATOR_USER
        : await authenticated(req, { unverified: ctx.faults.has(EF.unverified) });
    let onboarded = partyOf(sub);
    // planted faults: a user the validator has not onboarded gets an empty listing, a deactivated one their party's
    if (onboarded === undefined && ctx.faults.has(EF.notOnboardedListed)) return reply.send({ entries: [] });
    if (onboarded === 'denied' && ctx.faults.has(EF.deactivatedListed)) onboarded = ctx.world.users.get(sub)?.primaryParty;
    const owner = ctx.faults.has(EF.subjectIgnored) && onboarded !== undefined && onboarded !== 'denied' ? data.validatorParty : onboarded;
    if (owner === 'denied') return sendError(reply.header('www-authenticate', BEARER_CHALLENGE), 401, `user ${sub} is deactivated`);
    if (owner === undefined) return sendError(reply, 404, `user ${sub} is not onboarded on this validator`);
    const now = Date.now();
    let owned = data.ans.ownedBy(owner);
    if (ctx.faults.has(EF.othersListed)) owned = [...owned, ...data.ans.ownedBy(party(ctx.world, 'alice')).slice(0, 3)];
    let active = owned.filter((i) => ctx.faults.has(EF.expiredListed) || data.ans.isActive(i, now));
    if (ctx.faults.has(EF.oldestOmitted)) active = active.slice(1);
    const entries = ctx.faults.has(XF.emptyListings) ? [] : active.map((i) => data.ans.entryResponse(i));
    if (ctx.faults.has(VALIDATOR_LIST_OWNED_ANS_ENTRIES_AMOUNT_NUMBER)) return reply.send({ entries: entries.map((e) => ({ ...e, amount: Number(e.amount) })) });
    return reply.send({ entries });
  });

  app.get('/v0/scan-proxy/open-and-issuing-mining-rounds', async (req, reply) => {
    await proxyAuth(req);
    if (ctx.faults.has(XF.emptyListings)) return reply.send({ open_mining_rounds: [], issuing_mining_rounds: [] });
    if (ctx.faults.has(PF.openRoundsEmpty)) return reply.send({ open_mining_rounds: [], issuing_mining_rounds: structuredClone(data.rounds.issuing) });
    if (ctx.faults.has(PF.issuingRoundsEmpty)) return reply.send({ open_mining_rounds: structuredClone(data.rounds.open), issuing_mining_rounds: [] });
    return reply.send(
      ctx.faults.has(PF.roundsSchema)
        ? { open_mining_rounds: structuredClone(data.rounds.open) }
        : { open_mining_rounds: structuredClone(data.rounds.open), issuing_mining_rounds: structuredClone(data.rounds.issuing) },
    );
  });

  app.get('/v0/scan-proxy/featured-apps/*', async (req, reply) => {
    const provider = wildcardSegment(req.params);
    if (provider === undefined) throw routeNotFound(req);
    await proxyAuth(req);
    let right = ctx.faults.has(XF.emptyListings) ? undefined : data.featuredApps.get(provider);
    if (right !== undefined && ctx.faults.has(PF.featuredOther)) {
      const all = [...data.featuredApps.values()];
      right = all[(all.indexOf(right) + 1) % all.length];
    }
    if (right === undefined && ctx.faults.has(PF.featured404)) return sendError(reply, 404, `no featured app right for ${provider}`);
    if (right !== undefined && ctx.faults.has(PF.featuredSchema)) {
      const { created_event_blob: _b, ...rest } = structuredClone(right);
      return reply.send({ featured_app_right: rest });
    }
    return reply.send({ featured_app_right: right === undefined ? null : structuredClone(right) });
  });

  // the scan the proxy reads keeps its operator's maximum page size
  const listAns = listAnsEntriesHandler(data.ans, {
    maxPageSize: ctx.world.variant.scanMaxPageSize,
    empty: ctx.faults.has(XF.emptyListings),
    prefixDropsMatching: ctx.faults.has(XF.prefixDropsMatching),
    ...proxyAnsFaults(ctx.faults),
  });
  app.get('/v0/scan-proxy/ans-entries', async (req, reply) => {
    await proxyAuth(req);
    return listAns(req, reply);
  });
}
