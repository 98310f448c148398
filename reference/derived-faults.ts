/**
 * Planted faults for the requests derived from the specs (suites/derived-checks.ts): `<api>-derived-<kind>-accepted`
 * makes the server accept a request whose only violations of its operation's OpenAPI request schema are of that one
 * kind (generators/derived.ts `violationKinds`, judged by ajv on the body): it answers 200 with the last 200 answer of
 * the same route, as a server would that skipped that one kind of validation. An operation that has not answered 200
 * yet is left as it is. `<api>.derived.rejection-400` has one fault per interface too: the ledger answers a wrong JSON
 * type or a non-integer with a 400 JsCantonError instead of text/plain; scan, validator and registry answer a request
 * that violates its schema with 404 {error} instead of 400. Installed on the root before the interfaces (and before
 * the variant layer, whose answer rewriting the replayed body then goes through as any answer does); nothing when no
 * such fault is on.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { violationKinds, type DerivedRequest, type MutationKind } from '../generators/derived.js';
import { schemaRegistry } from '../harness/judging/schemas.js';
import type { Api } from '../harness/types.js';
import { registerFaults, type FaultSet } from './faults.js';
import { err } from './ledger/errors.js';

export const derivedFault = (api: Api, kind: MutationKind, setup = false): string => `${api}-derived-${setup ? 'setup-' : ''}${kind}-accepted`;

/** the fault of an interface's rejection-400 rule */
export const derivedFormFault = (api: Api): string => (api === 'ledger' ? 'ledger-derived-wrong-type-as-canton-error' : `${api}-derived-rejected-with-404`);

/** the reference a fault needs (a version whose operations carry the kind) */
type FaultReference = NonNullable<Parameters<typeof registerFaults>[0][number]['reference']>;

/** a kind judged on the operations SPEC.md describes (setup false) or on those only FACTS.md describes (setup true) */
const DECLARED: Array<{ api: Api; kind: MutationKind; setup: boolean }> = [];

/**
 * Declares the faults of one interface: one per mutation kind its catalogue judges (`setupKinds`: also one for the
 * operations only FACTS.md describes, whose rejections of those kinds have a SHOULD of their own), and one of its
 * rejection form.
 */
export function registerDerivedFaults(api: Api, kinds: readonly MutationKind[], setupKinds: readonly MutationKind[] = [], reference: Partial<Record<MutationKind, FaultReference>> = {}): void {
  const all = [...kinds.map((kind) => ({ kind, setup: false })), ...setupKinds.map((kind) => ({ kind, setup: true }))];
  registerFaults([
    ...all.map(({ kind, setup }) => ({
      ...(!setup && reference[kind] !== undefined ? { reference: reference[kind] } : {}),
      name: derivedFault(api, kind, setup),
      requirement: `${api}.derived.${setup ? 'setup-' : ''}${kind}-rejected`,
      description: `a request${setup ? ' to an operation only FACTS.md describes' : ''} whose only violations of its request schema are ${kind} mutations is answered 200 (the last 200 answer of its route)`,
    })),
    {
      name: derivedFormFault(api),
      requirement: `${api}.derived.rejection-400`,
      description:
        api === 'ledger'
          ? 'a request whose only violations of its request schema are wrong JSON types or non-integers is answered 400 with a JsCantonError (INVALID_ARGUMENT), not text/plain'
          : 'a request that violates its request schema is answered 404 {error}, not 400',
    },
  ]);
  DECLARED.push(...all.map(({ kind, setup }) => ({ api, kind, setup })));
}

const PREFIX: Record<Api, string> = { ledger: '', scan: '/api/scan', validator: '/api/validator', registry: '/api/registry' };

export interface Route {
  api: Api;
  operationId: string;
  method: string;
  re: RegExp;
  names: string[];
}

/** The operations of the OpenAPI documents as routes of the reference (its interfaces' path prefixes included). */
export function routes(apis: readonly Api[]): Route[] {
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

/** The operation a request reaches, with its path parameters; undefined for a path no operation has. */
export function matchRoute(table: readonly Route[], req: FastifyRequest): { route: Route; params: Record<string, string> } | undefined {
  const path = (req.raw.url ?? '').split('?')[0] ?? '';
  for (const route of table) {
    if (route.method !== req.method) continue;
    const m = route.re.exec(path);
    if (m !== null) return { route, params: Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) };
  }
  return undefined;
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
  const on = DECLARED.filter((d) => faults.has(derivedFault(d.api, d.kind, d.setup)));
  const formOn = [...new Set(DECLARED.map((d) => d.api))].filter((api) => faults.has(derivedFormFault(api)));
  if (on.length === 0 && formOn.length === 0) return;
  const table = routes([...new Set([...on.map((d) => d.api), ...formOn])]);
  const schemas = schemaRegistry();
  const last = new Map<string, { type: string; payload: string }>();
  const match = (req: FastifyRequest) => matchRoute(table, req);
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
    if (replay === undefined && !formOn.includes(api)) return;
    const query = Object.fromEntries(Object.entries((req.query ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    const json = jsonOf(req.body);
    const request: DerivedRequest = { params: hit.params, query, ...(json !== undefined ? { json } : {}) };
    const validate = schemas.requestBodyValidator(api, operationId);
    const kinds = violationKinds(schemas.document(api), operationId, request, (body) => (validate === undefined || validate(body) ? [] : [...(validate.errors ?? [])]));
    if (formOn.includes(api) && kinds.size > 0) {
      if (api !== 'ledger') return reply.code(404).header('content-type', 'application/json').send(JSON.stringify({ error: 'not found' }));
      if ([...kinds].every((k) => k === 'wrong-type' || k === 'non-integer')) {
        const e = err.invalidArgument('a field has a value of the wrong type');
        return reply.code(e.status).header('content-type', 'application/json').send(JSON.stringify(e.body(req.id)));
      }
    }
    const [kind] = [...kinds];
    // a kind with a setup SHOULD of its own: its fault reaches only the operations of its side (x-setup or not)
    const setup = schemas.operation(api, operationId).setup;
    const split = DECLARED.some((d) => d.api === api && d.kind === kind && d.setup);
    if (replay === undefined || kinds.size !== 1 || !on.some((d) => d.api === api && d.kind === kind && (!split || d.setup === setup))) return;
    return reply.code(200).header('content-type', replay.type).send(replay.payload);
  });
}
