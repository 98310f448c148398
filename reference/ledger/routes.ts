import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../index.js';
import './faults-thin.js';
import './faults-users.js';
import './faults-vetting.js';
import './faults-topology.js';
import './faults-traffic.js';
import './faults-transactions.js';
import './faults-reassignment.js';
import './faults-packages.js';
import './faults-cross.js';
import './faults-rights.js';
import { installLedgerBodyFaults } from './faults-wire.js';
import './faults-setup.js';
import { setupHttp } from './http.js';
import { openApiRoutes } from './openapi.js';
import { packageRoutes } from './packages.js';
import { partyRoutes } from './parties.js';
import { reassignmentRoutes } from './reassignment.js';
import { replacementRoutes } from './replacements.js';
import { rightsRoutes } from './rights.js';
import { seedLedger } from './seed.js';
import { LedgerState } from './state.js';
import { topologyRoutes } from './topology.js';
import { trafficRoutes } from './traffic.js';
import { transactionRoutes } from './transactions.js';
import { userRoutes } from './users.js';
import { versionRoutes } from './version.js';
import { vettingRoutes } from './vetting.js';

/** Ledger API routes of the reference server (paths relative to its base address). */
export async function ledgerRoutes(app: FastifyInstance, ctx: ReferenceContext): Promise<void> {
  const state = new LedgerState(ctx.world);
  seedLedger(state);
  setupHttp(app);
  installLedgerBodyFaults(app, ctx.faults);
  versionRoutes(app, ctx);
  userRoutes(app, ctx, state);
  rightsRoutes(app, ctx, state);
  vettingRoutes(app, ctx, state);
  packageRoutes(app, ctx, state);
  topologyRoutes(app, ctx, state);
  partyRoutes(app, ctx, state);
  transactionRoutes(app, ctx, state);
  replacementRoutes(app, ctx, state);
  reassignmentRoutes(app, ctx, state);
  trafficRoutes(app, ctx, state);
  openApiRoutes(app, ctx);
}
