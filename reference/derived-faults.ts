/**
 * Planted faults for the requests derived from the specs (suites/derived-checks.ts): `<api>-derived-<kind>-accepted`
 * makes the server accept a request whose only violations of its operation's OpenAPI request schema are of that one
 * kind (generators/derived.ts `violationKinds`, judged by ajv on the body): it answers 200 with the last 200 answer of
 * the same route, as a server would that skipped that one kind of validation. An operation that has not answered 200
 * yet is left as it is. Installed on the root before the interfaces (and before the variant layer, whose answer
 * rewriting the replayed body then goes through as any answer does); nothing when no such fault is on.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { violationKinds, type DerivedRequest, type MutationKind } from '../generators/derived.js';
import { schemaRegistry } from '../harness/schemas.js';
import type { Api } from '../harness/types.js';
import { registerFaults, type FaultSet } from './faults.js';

export const derivedFault = (api: Api, kind: MutationKind): string => `${api}-derived-${kind}-accepted`;

const DECLARED: Array<{ api: Api; kind: MutationKind }> = [];

/** Declares the faults of one interface, one per mutation kind its catalogue judges. */
export function registerDerivedFaults(api: Api, kinds: readonly MutationKind[]): void {
  registerFaults(
    kinds.map((kind) => ({
      name: derivedFault(api, kind),
      requirement: `${api}.derived.${kind}-rejected`,
      description: `a request whose only violations of its request schema are ${kind} mutations is answered 200 (the last 200 answer of its route)`,
    })),
  );
  DECLARED.push(...kinds.map((kind) => ({ api, kind })));
}

const PREFIX: Record<Api, string> = { ledger: '', scan: '/api/scan', validator: '/api/validator', registry: '/api/registry' };

interface Route {
  api: Api;
  operationId: string;
  method: string;
  re: RegExp;
  names: string[];
}

function routes(apis: readonly Api[]): Route[] {
  const schemas = schemaRegistry();
  return apis.flatMap((api) =>
    schemas.operations(api).map((op) => {
      const names: string[] = [];
      const source = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([^}]+)\\?\}/g, (_, n: string) => {
        names.push(n);
        return '([^/]+)';
      });
      return { api, operationId: op.operationId, method: op.method, re: new RegExp(`^${PREFIX[api]}${source}$`), names };
    }),
  );
}

function jsonOf(body: unknown): unknown {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const text = body.toString();
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }
  return body;
}

export function installDerivedFaults(app: FastifyInstance, faults: FaultSet): void {
  const on = DECLARED.filter((d) => faults.has(derivedFault(d.api, d.kind)));
  if (on.length === 0) return;
  const table = routes([...new Set(on.map((d) => d.api))]);
  const schemas = schemaRegistry();
  const last = new Map<string, { type: string; payload: string }>();
  const match = (req: FastifyRequest): { route: Route; params: Record<string, string> } | undefined => {
    const path = (req.raw.url ?? '').split('?')[0] ?? '';
    for (const route of table) {
      if (route.method !== req.method) continue;
      const m = route.re.exec(path);
      if (m !== null) return { route, params: Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) };
    }
    return undefined;
  };
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const hit = match(req);
    if (hit !== undefined) last.set(`${hit.route.api}:${hit.route.operationId}`, { type: String(reply.getHeader('content-type') ?? 'application/json'), payload });
    return payload;
  });
  app.addHook('preHandler', async (req, reply) => {
    const hit = match(req);
    if (hit === undefined) return;
    const { api, operationId } = hit.route;
    const replay = last.get(`${api}:${operationId}`);
    if (replay === undefined) return;
    const query = Object.fromEntries(Object.entries((req.query ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    const json = jsonOf(req.body);
    const request: DerivedRequest = { params: hit.params, query, ...(json !== undefined ? { json } : {}) };
    const validate = schemas.requestBodyValidator(api, operationId);
    const kinds = violationKinds(schemas.document(api), operationId, request, (body) => (validate === undefined || validate(body) ? [] : [...(validate.errors ?? [])]));
    const [kind] = [...kinds];
    if (kinds.size !== 1 || !on.some((d) => d.api === api && d.kind === kind)) return;
    return reply.code(200).header('content-type', replay.type).send(replay.payload);
  });
}
