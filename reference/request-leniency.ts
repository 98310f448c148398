/**
 * The request side of the reference's leniency (FACTS.md), so that the self-test can see a check that demands a
 * rejection a real server never makes. Driven by the OpenAPI documents, one fastify layer over every route:
 * - fields the ledger document dates after the reference's version (`x-since`) are dropped from the request body, as
 *   an earlier participant ignores a field it does not know (a 3.4 participant and `user.primaryPartyAuthentication`);
 * - variant `nonObjectMessages: 'empty'`: a non-object value where the ledger request expects a message (an object
 *   with fields, or an item of a list of messages) is read as the empty message `{}`, and the request goes on: accepted
 *   where that is valid, a JsCantonError from validation otherwise;
 * - variant `missingQuery: '404'`: a scan or validator request without a required query parameter is refused by the
 *   HTTP framework's default rejection handler, 404 text/plain, instead of the 400 the routes answer.
 * Nothing is installed where none of them applies.
 */
import type { FastifyInstance } from 'fastify';
import { fieldAt, requestShape, resolver } from '../generators/derived.js';
import { schemaRegistry } from '../harness/judging/schemas.js';
import type { Api } from '../harness/types.js';
import { matchRoute, routes } from './derived-faults.js';
import { requestJson, type Variant } from './variant.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** a message: an object schema with fields (a map, with additionalProperties only, is not one) */
const isMessage = (s: Json | undefined): boolean => s !== undefined && s.type === 'object' && isObj(s.properties);

export interface Leniency {
  /** the reference's ledger version: request fields dated after it are ignored */
  ledgerVersion: string;
  nonObjectMessages: Variant['nonObjectMessages'];
  missingQuery: Variant['missingQuery'];
}

/**
 * Rewrites a request body along its schema as a lenient decoder reads it; true when anything changed. Exported for
 * the tests.
 */
export function lenientBody(value: unknown, schema: unknown, resolve: (s: unknown) => Json | undefined, o: Pick<Leniency, 'nonObjectMessages'> & { version?: string }, depth = 0): boolean {
  const s = resolve(schema);
  if (depth > 20 || s === undefined || !isObj(value) || !isObj(s.properties)) return false;
  let changed = false;
  for (const [name, raw] of Object.entries(s.properties)) {
    if (!(name in value)) continue;
    const p = resolve(raw);
    if (p === undefined) continue;
    if (!fieldAt(p, o.version) || (isObj(raw) && !fieldAt(raw, o.version))) {
      delete value[name];
      changed = true;
      continue;
    }
    const v = value[name];
    if (v === null || v === undefined) continue;
    if (o.nonObjectMessages === 'empty' && isMessage(p) && !isObj(v)) {
      value[name] = {};
      changed = true;
      continue;
    }
    if (isMessage(p)) changed = lenientBody(v, p, resolve, o, depth + 1) || changed;
    const items = p.type === 'array' ? resolve(p.items) : undefined;
    if (Array.isArray(v) && isMessage(items)) {
      v.forEach((item, i) => {
        if (o.nonObjectMessages === 'empty' && !isObj(item) && item !== null) {
          v[i] = {};
          changed = true;
        } else changed = lenientBody(item, items, resolve, o, depth + 1) || changed;
      });
    }
  }
  return changed;
}

export function installRequestLeniency(app: FastifyInstance, l: Leniency): void {
  const schemas = schemaRegistry();
  const ledgerDoc = schemas.document('ledger') as Json;
  // a field of the document dated outside the reference's version (x-since or x-until)
  const dated = [...JSON.stringify(ledgerDoc.components ?? {}).matchAll(/"x-(since|until)":"([^"]+)"/g)];
  const outdated = dated.some(([, k, v]) => !fieldAt({ [`x-${k}`]: v }, l.ledgerVersion));
  const body = l.nonObjectMessages === 'empty' || outdated;
  const apis: Api[] = [...(body ? (['ledger'] as const) : []), ...(l.missingQuery === '404' ? (['scan', 'validator'] as const) : [])];
  if (apis.length === 0) return;
  const table = routes(apis);
  const resolvers = new Map<Api, (s: unknown) => Json | undefined>();
  const resolveFor = (api: Api) => {
    let r = resolvers.get(api);
    if (r === undefined) resolvers.set(api, (r = resolver(schemas.document(api) as Json)));
    return r;
  };
  // an operation's request side, read from its document once
  const shapes = new Map<string, ReturnType<typeof requestShape>>();
  app.addHook('preHandler', async (req, reply) => {
    const hit = matchRoute(table, req);
    if (hit === undefined) return;
    const { api, operationId } = hit.route;
    const key = `${api}:${operationId}`;
    let shape = shapes.get(key);
    if (shape === undefined) shapes.set(key, (shape = requestShape(schemas.document(api) as Json, operationId)));
    if (api !== 'ledger') {
      const q = (req.query ?? {}) as Record<string, unknown>;
      const missing = shape.parameters.find((p) => p.in === 'query' && p.required === true && q[p.name] === undefined);
      if (missing !== undefined) return reply.code(404).header('content-type', 'text/plain; charset=UTF-8').send(`Request is missing required query parameter '${missing.name}'`);
      return;
    }
    if (shape.body === undefined) return;
    const json = await requestJson(req);
    if (json === undefined) return;
    if (lenientBody(json, shape.body, resolveFor(api), { nonObjectMessages: l.nonObjectMessages, version: l.ledgerVersion })) req.body = Buffer.from(JSON.stringify(json), 'utf8');
  });
}
