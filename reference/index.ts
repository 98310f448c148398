/**
 * The embedded reference server: all four interfaces in memory on one loopback port, each under its own base path.
 * It is the suite's default target and, with planted faults switched on, the proof that every check can fail.
 */
import { createRequire } from 'node:module';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { FaultSet } from './faults.js';
import { installDerivedFaults } from './derived-faults.js';
import { installRequestLeniency } from './request-leniency.js';
import { createWorld } from './world.js';
import { ledgerRoutes } from './ledger/routes.js';
import { scanRoutes } from './scan/routes.js';
import { validatorRoutes } from './validator/routes.js';
import { registryRoutes } from './registry/routes.js';
import { referenceTargets, type ReferenceTargets } from './target-config.js';
import { chooseVariant, DEFAULT_VARIANT, describeVariant, installVariantLayer } from './variant.js';
import {
  REFERENCE_ADMIN_USER,
  REFERENCE_VALIDATOR_USER,
  resolveReferenceOptions,
  type ReferenceContext,
  type ReferenceOptions,
  type ResolvedReferenceOptions,
} from './types.js';

// what the harness, the tests and the scripts import from the reference's entry point
export {
  DEFAULT_REFERENCE_SECRET,
  REFERENCE_ADMIN_USER,
  REFERENCE_VALIDATOR_USER,
  resolveReferenceOptions,
  type ReferenceContext,
  type ReferenceOptions,
  type ResolvedReferenceOptions,
} from './types.js';

export interface ReferenceServer {
  urls: { ledger: string; scan: string; validator: string; registry: string };
  /** how to authenticate against it */
  auth: { hs256Secret: string; adminUser: string; validatorUser: string };
  options: ResolvedReferenceOptions;
  /**
   * The `targets` block of a configuration file that points the suite at this server (URLs, auth, features,
   * fixtures): the only way the harness learns about the embedded reference, as it learns about any target.
   */
  targetConfig(): ReferenceTargets;
  /** the variant's seed and what it chose (reference/variant.ts); undefined for the default reference */
  variant?: { seed: number; choices: Record<string, string> };
  close(): Promise<void>;
}

/**
 * Errors fastify raises before routing (a malformed URL such as bad percent-encoding in `/v2/users/%zz`) are rejections
 * by the HTTP framework: a text/plain 400 on every interface (FACTS.md: the ledger's malformed requests, and Splice's
 * framework rejections under /api/).
 */
function frameworkErrors(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  const path = (req.raw.url ?? '').split('?')[0] ?? '';
  if (path.startsWith('/api/')) {
    void reply.code(status).type('text/plain; charset=UTF-8').send(`The request was malformed: ${error.message}`);
    return;
  }
  void reply.code(status).header('content-type', 'text/plain; charset=UTF-8').send(`Invalid value for: path (${error.message})`);
}

/**
 * fastify's own schema compilers (ajv's and fast-json-stringify's), loaded only if a route ever declares a schema: the
 * reference declares none (it checks requests itself), and loading both at every start costs about 40 ms of the
 * reference thread's start. Given as factories, they are what fastify would have used.
 */
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
type Factory = (...args: unknown[]) => unknown;
const lazyFactory = (pkg: string): Factory => {
  let factory: Factory | undefined;
  return (...args) => (factory ??= (fastifyRequire(pkg) as () => Factory)())(...args);
};
const schemaController: FastifyServerOptions['schemaController'] = {
  compilersFactory: { buildValidator: lazyFactory('@fastify/ajv-compiler') as never, buildSerializer: lazyFactory('@fastify/fast-json-stringify-compiler') as never },
};

export async function buildReferenceApp(options: ResolvedReferenceOptions, ctx: ReferenceContext = referenceContext(options)): Promise<FastifyInstance> {
  // ids reach 128 characters (users) and beyond (contract ids): fastify's default of 100 would answer 414
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024, forceCloseConnections: true, routerOptions: { maxParamLength: 4096 }, frameworkErrors, schemaController });
  // before the interfaces register: a root hook added later would not reach their scopes
  // the derived-request faults first: the answer they replay is taken before the variant layer rewrites it
  installDerivedFaults(app, ctx.faults);
  installVariantLayer(app, ctx.world.variant, ctx.world.parties.get('dso')!);
  installRequestLeniency(app, { ledgerVersion: options.ledgerVersion, nonObjectMessages: ctx.world.variant.nonObjectMessages, missingQuery: ctx.world.variant.missingQuery });
  await app.register(async (scope) => ledgerRoutes(scope, ctx));
  await app.register(async (scope) => scanRoutes(scope, ctx), { prefix: '/api/scan' });
  await app.register(async (scope) => validatorRoutes(scope, ctx), { prefix: '/api/validator' });
  await app.register(async (scope) => registryRoutes(scope, ctx), { prefix: '/api/registry' });
  return app;
}

/** The state one server instance's routes share. */
export function referenceContext(options: ResolvedReferenceOptions): ReferenceContext {
  return { options, faults: new FaultSet(options.faults), world: createWorld(options.variant !== undefined ? chooseVariant(options.variant) : DEFAULT_VARIANT) };
}

export async function startReference(o: ReferenceOptions = {}): Promise<ReferenceServer> {
  const options = resolveReferenceOptions(o);
  const ctx = referenceContext(options);
  const app = await buildReferenceApp(options, ctx);
  await app.listen({ host: options.host, port: options.port });
  const addr = app.server.address();
  if (addr === null || typeof addr === 'string') throw new Error('reference server has no TCP address');
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const base = `http://${host}:${addr.port}`;
  return {
    urls: {
      ledger: base,
      scan: `${base}/api/scan`,
      validator: `${base}/api/validator`,
      registry: `${base}/api/registry`,
    },
    auth: { hs256Secret: options.jwtSecret, adminUser: REFERENCE_ADMIN_USER, validatorUser: REFERENCE_VALIDATOR_USER },
    options: { ...options, port: addr.port },
    ...(options.variant !== undefined ? { variant: { seed: options.variant, choices: describeVariant(ctx.world.variant) } } : {}),
    targetConfig: () => referenceTargets(ctx, base, { adminUser: REFERENCE_ADMIN_USER, validatorUser: REFERENCE_VALIDATOR_USER }),
    close: () => app.close(),
  };
}
