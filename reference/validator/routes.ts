import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../index.js';
import { REFERENCE_VALIDATOR_USER } from '../index.js';
import { bearerSubject, unverifiedSubject } from '../auth.js';
import { listAnsEntriesHandler } from '../data/ans-routes.js';
import { installJsonErrors, routeNotFound, sendError, wildcardSegment } from '../data/http.js';
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

  app.get('/v0/entry/all', async (req, reply) => {
    let sub = await bearerSubject(req, ctx.options.jwtSecret);
    if (sub === undefined && req.headers.authorization === undefined && ctx.faults.has(VALIDATOR_LIST_OWNED_ANS_ENTRIES_NO_AUTH)) sub = REFERENCE_VALIDATOR_USER;
    if (sub === undefined && ctx.faults.has(EF.unverified)) sub = unverifiedSubject(req);
    if (sub === undefined) return sendError(reply, 401, 'missing or invalid bearer token');
    const owner = partyOf(sub);
    if (owner === 'denied') return sendError(reply, 401, `user ${sub} is deactivated`);
    if (owner === undefined) return sendError(reply, 404, `user ${sub} is not onboarded on this validator`);
    const now = Date.now();
    let owned = data.ans.ownedBy(owner);
    if (ctx.faults.has(EF.othersListed)) owned = [...owned, ...data.ans.ownedBy(party(ctx.world, 'alice')).slice(0, 3)];
    let active = owned.filter((i) => ctx.faults.has(EF.expiredListed) || data.ans.isActive(i, now));
    if (ctx.faults.has(EF.oldestOmitted)) active = active.slice(1);
    const entries = active.map((i) => data.ans.entryResponse(i));
    if (ctx.faults.has(VALIDATOR_LIST_OWNED_ANS_ENTRIES_AMOUNT_NUMBER)) return reply.send({ entries: entries.map((e) => ({ ...e, amount: Number(e.amount) })) });
    return reply.send({ entries });
  });

  app.get('/v0/scan-proxy/open-and-issuing-mining-rounds', async (_req, reply) =>
    reply.send(
      ctx.faults.has(PF.roundsSchema)
        ? { open_mining_rounds: structuredClone(data.rounds.open) }
        : { open_mining_rounds: structuredClone(data.rounds.open), issuing_mining_rounds: structuredClone(data.rounds.issuing) },
    ),
  );

  app.get('/v0/scan-proxy/featured-apps/*', async (req, reply) => {
    const provider = wildcardSegment(req.params);
    if (provider === undefined) throw routeNotFound(req);
    const right = data.featuredApps.get(provider);
    if (right === undefined && ctx.faults.has(PF.featured404)) return sendError(reply, 404, `no featured app right for ${provider}`);
    if (right !== undefined && ctx.faults.has(PF.featuredSchema)) {
      const { created_event_blob: _b, ...rest } = structuredClone(right);
      return reply.send({ featured_app_right: rest });
    }
    return reply.send({ featured_app_right: right === undefined ? null : structuredClone(right) });
  });

  app.get('/v0/scan-proxy/ans-entries', listAnsEntriesHandler(data.ans, proxyAnsFaults(ctx.faults)));
}
