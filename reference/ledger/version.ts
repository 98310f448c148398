/** GET /v2/version and the limits it advertises (a suite reads the maxima there instead of assuming them). */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import { route } from './http.js';
import { CF } from './faults-cross.js';
import { LEDGER_GET_VERSION_FEATURES_MISSING, LEDGER_GET_VERSION_VERSION_MISSING } from './faults-thin.js';

// the maxima the default reference advertises (a variant advertises and enforces its own: ctx.world.variant.limits)
export const MAX_PARTIES_PAGE_SIZE = 10000;

export function versionRoutes(app: FastifyInstance, ctx: ReferenceContext): void {
  route(app, ctx, 'GET', '/v2/version', async (c) => {
    // The version service needs an authenticated caller, but no particular right.
    await c.caller();
    const { maxRightsPerUser: MAX_RIGHTS_PER_USER, maxUsersPageSize: MAX_USERS_PAGE_SIZE, maxVettedPackagesPageSize: MAX_VETTED_PACKAGES_PAGE_SIZE } = ctx.world.variant.limits;
    return {
      ...(ctx.faults.has(LEDGER_GET_VERSION_VERSION_MISSING) ? {} : { version: `${ctx.options.ledgerVersion}.0` }),
      ...(ctx.faults.has(LEDGER_GET_VERSION_FEATURES_MISSING) ? {} : { features: {
        experimental: { staticTime: { supported: false }, commandInspectionService: { supported: true } },
        userManagement: { supported: true, maxRightsPerUser: ctx.faults.has(CF.rightsRange) ? 50 : MAX_RIGHTS_PER_USER, maxUsersPageSize: MAX_USERS_PAGE_SIZE },
        partyManagement: { maxPartiesPageSize: MAX_PARTIES_PAGE_SIZE },
        offsetCheckpoint: { maxOffsetCheckpointEmissionDelay: { seconds: 75, nanos: 0 } },
        packageFeature: ctx.faults.has(CF.limits) ? {} : { maxVettedPackagesPageSize: MAX_VETTED_PACKAGES_PAGE_SIZE },
      } }),
    };
  });
}
