/**
 * The HTTP layer of the ledger scope: body parsing that never throws past the error handler, the two error shapes,
 * a JsCantonError for unknown routes, and a small route wrapper that hands each handler a `Call`.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { bearerSubject, bearerToken, unverifiedSubject } from '../auth.js';
import { REFERENCE_ADMIN_USER, type ReferenceContext } from '../types.js';
import { F, wasDeactivated } from './faults-users.js';
import type { UserRecord } from '../world.js';
import { bodyObject, parseJsonBody, type Obj } from './body.js';
import { CantonError, MalformedRequest, err } from './errors.js';
import { Caller } from './access.js';
import { loadShedder } from './faults-cross.js';
import { WF } from './faults-wire.js';
import { eventFormatFaulty, withEventFormatFaults } from './faults-event-format.js';
import { HF, frameworkErrorFaulty } from './faults-http.js';
import type { FaultSet } from '../faults.js';

const MAX_GET_BODY = 1024 * 1024;

export interface Call {
  req: FastifyRequest;
  reply: FastifyReply;
  /** path parameters */
  params: Record<string, string>;
  /** query parameters (first value of each) */
  query: Record<string, string | undefined>;
  /** the JSON body as an object; `emptyAs` is used for an empty body when every request field is optional */
  json(emptyAs?: Obj): Promise<Obj>;
  /** the raw body bytes (for binary uploads) */
  raw(): Buffer | undefined;
  /** the authenticated, active user behind the bearer token (401/403 otherwise) */
  caller(): Promise<Caller>;
}

export type Handler = (c: Call) => Promise<unknown>;

/** Registers a route whose handler returns the 200 body; errors thrown become the documented error shapes. */
export function route(app: FastifyInstance, ctx: ReferenceContext, method: HTTPMethods, url: string, handler: Handler): void {
  // a planted load-shedding fault answers the requests of a burst with an error under the wrong status
  const shed = loadShedder((f) => ctx.faults.has(f));
  app.route({
    method,
    url,
    handler: async (req, reply) => {
      const shedding = shed?.();
      if (shedding !== undefined) throw shedding;
      const call = makeCall(req, reply, ctx);
      const result = await handler(call);
      if (reply.sent) return reply;
      return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(result ?? {}));
    },
  });
}

function makeCall(req: FastifyRequest, reply: FastifyReply, ctx: ReferenceContext): Call {
  let caller: Promise<Caller> | undefined;
  return {
    req,
    reply,
    params: (req.params ?? {}) as Record<string, string>,
    query: firstValues(req.query),
    json: async (emptyAs) => {
      const bytes = await jsonBytes(req);
      // planted fault (malformed-json-server-error): JSON broken otherwise than cut short crashes the decoder
      if (ctx.faults.has(WF.malformedServerError)) {
        try {
          parseJsonBody(bytes);
        } catch (e) {
          if (!/end of (JSON )?input|Unterminated/i.test(String((e as Error).message))) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
        }
      }
      if (ctx.faults.has(HF.noContentTypeServerError) && req.headers['content-type'] === undefined && bytes !== undefined && bytes.length > 0) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
      if (ctx.faults.has(WF.emptyBodyServerError) && emptyAs === undefined && (bytes === undefined || bytes.length === 0)) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
      const body = bodyObject(parseJsonBody(bytes), emptyAs);
      // planted faults of event formats rewrite the filters before the handler decodes them
      return eventFormatFaulty(ctx.faults) ? withEventFormatFaults(body, ctx.faults) : body;
    },
    raw: () => (Buffer.isBuffer(req.body) ? req.body : undefined),
    caller: () => (caller ??= authenticate(req, ctx)),
  };
}

function firstValues(q: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (typeof q !== 'object' || q === null) return out;
  for (const [k, v] of Object.entries(q)) out[k] = Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v);
  return out;
}

/** JSON is accepted as application/json (any parameters) or without a content type, as the JSON API does. */
async function jsonBytes(req: FastifyRequest): Promise<Buffer | undefined> {
  const ct = req.headers['content-type'];
  const bytes = Buffer.isBuffer(req.body) ? req.body : await unparsedBody(req);
  if (bytes === undefined || bytes.length === 0) return bytes;
  if (ct !== undefined && !/^application\/json\s*(;|$)/i.test(ct)) {
    throw new MalformedRequest(`Invalid value for: header Content-Type (expected application/json, got ${ct.slice(0, 100)})`);
  }
  return bytes;
}

/**
 * fastify never reads the body of a GET (GET /v2/package-vetting takes a JSON body), so the handler reads the raw
 * stream itself, within a size limit.
 */
async function unparsedBody(req: FastifyRequest): Promise<Buffer | undefined> {
  if (req.method !== 'GET') return undefined;
  const h = req.headers;
  if (h['transfer-encoding'] === undefined && (h['content-length'] === undefined || h['content-length'] === '0')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += b.length;
    if (size > MAX_GET_BODY) throw new MalformedRequest('Invalid value for: body (request body too large)');
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

async function authenticate(req: FastifyRequest, ctx: ReferenceContext): Promise<Caller> {
  const sub = (await bearerSubject(req, ctx.options.jwtSecret)) ?? faultySubject(req, ctx);
  if (sub === undefined) {
    if (ctx.faults.has(F.missingTokenAs400)) throw err.invalidArgument('The command is missing a (valid) JWT token');
    throw err.unauthenticated('The command is missing a (valid) JWT token');
  }
  const user: UserRecord | undefined = ctx.world.users.get(sub);
  // An unknown or deactivated user is refused with 403, or 401 in a variant that chose it (FACTS.md allows either).
  const refused = (cause: string) => (ctx.world.variant.refusedUserStatus === 401 ? err.unauthenticated(cause) : err.permissionDenied(cause));
  if (user === undefined && ctx.faults.has(F.unknownUserServed)) {
    return new Caller({ id: sub, primaryParty: '', isDeactivated: false, identityProviderId: '', primaryPartyAuthentication: false, annotations: {}, resourceVersion: '0', rights: [] }, (f) => ctx.faults.has(f));
  }
  if (user === undefined) throw refused(`Could not resolve the rights of user ${sub}: the user does not exist`);
  if (user.isDeactivated && ctx.faults.has(F.deactivatedAs400)) throw err.failedPrecondition('USER_DEACTIVATED', `User ${sub} is deactivated`);
  if (user.isDeactivated && !(ctx.faults.has(F.deactivatedReads) && req.method === 'GET')) throw refused(`User ${sub} is deactivated`);
  if (ctx.faults.has(F.reactivatedRefused) && wasDeactivated(user)) throw refused(`User ${sub} is deactivated`);
  return new Caller(user, (f) => ctx.faults.has(f));
}

/** Faults of authentication: a DELETE without a token acts as the admin; a token's signature is not verified. */
function faultySubject(req: FastifyRequest, ctx: ReferenceContext): string | undefined {
  const token = bearerToken(req);
  if (token === undefined) return ctx.faults.has(F.noTokenDelete) && req.method === 'DELETE' ? REFERENCE_ADMIN_USER : undefined;
  return ctx.faults.has(F.signatureUnchecked) ? unverifiedSubject(req) : undefined;
}

/** Content-type parsers, error handler and 404 handler of the ledger scope. */
export function setupHttp(app: FastifyInstance, faults?: FaultSet): void {
  // Every body is kept as raw bytes; handlers decode JSON themselves, so a bad body is a 400, never a parser crash.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((e: FastifyError | Error, req, reply) => {
    if (e instanceof MalformedRequest) return sendText(reply, 400, e.message);
    if (e instanceof CantonError) return sendCanton(reply, e, req.id);
    // planted fault (unparsable-content-type-server-error): the framework's refusal of a media type becomes a 500
    if (frameworkErrorFaulty(faults, e)) return sendCanton(reply, new CantonError('INTERNAL', 'INTERNAL', 'An error occurred'), req.id);
    const status = (e as FastifyError).statusCode;
    // fastify's own client errors (bad content-type header, body too large, aborted upload) are decoding failures.
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendText(reply, status === 413 ? 413 : 400, `Invalid value for: body (${e.message})`);
    }
    return sendCanton(reply, new CantonError('INTERNAL', 'INTERNAL', `An error occurred: ${e.message}`), req.id);
  });

  app.setNotFoundHandler((req, reply) => {
    const e = err.notFound('NOT_FOUND', `The requested resource could not be found: ${req.method} ${req.url.split('?')[0]}`);
    return sendCanton(reply, e, req.id);
  });
}

function sendText(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).header('content-type', 'text/plain; charset=UTF-8').send(message);
}

export function sendCanton(reply: FastifyReply, e: CantonError, correlationId: string): FastifyReply {
  return reply.code(e.status).header('content-type', 'application/json').send(JSON.stringify(e.body(correlationId)));
}
