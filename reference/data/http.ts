/**
 * HTTP plumbing shared by the scan, validator and registry route modules, as Splice's servers answer (FACTS.md, "Scan
 * and validator"): a request the HTTP framework rejects before a handler runs (a missing or malformed query parameter,
 * a body that does not decode, a missing or invalid bearer token) gets a text/plain body, a 401 also a
 * WWW-Authenticate header; every error a handler raises is a JSON {error: string} body. Unknown routes answer 404, and
 * no input leads to a 5xx. Handlers set here are scoped to the plugin (and so to its prefix) by fastify's
 * encapsulation.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A rejection by the HTTP framework, before any handler: answered with a text/plain body (a 401 with a
 * WWW-Authenticate challenge), as Splice's generated servers do.
 */
export class FrameworkRejection extends HttpError {}

/** the challenge a 401 carries (RFC 6750) */
export const BEARER_CHALLENGE = 'Bearer realm="splice"';

export function sendError(reply: FastifyReply, status: number, error: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ error });
}

/** A framework rejection: text/plain, and the bearer challenge on a 401. */
export function sendRejection(reply: FastifyReply, status: number, text: string): FastifyReply {
  if (status === 401) void reply.header('www-authenticate', BEARER_CHALLENGE);
  return reply.code(status).type('text/plain; charset=UTF-8').send(text);
}

export function installJsonErrors(app: FastifyInstance): void {
  // Bodies of any content type are read as JSON (an empty body is no body), so a missing or odd content type is a 400
  // for bad JSON rather than a 415 the interfaces do not document. fastify's own application/json and text/plain
  // parsers are removed first (in this scope only), so every content type is decoded alike: an empty JSON body is no
  // body, and JSON sent as text/plain is JSON.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(new FrameworkRejection(400, 'The request content was malformed: the body is not valid JSON'), undefined);
    }
  });
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof FrameworkRejection) return sendRejection(reply, err.status, err.message);
    if (err instanceof HttpError) return sendError(reply, err.status, err.message);
    const e = err as { statusCode?: unknown; message?: unknown };
    const status = typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 500;
    const message = typeof e.message === 'string' && e.message !== '' ? e.message : 'request failed';
    if (status === 500) return sendError(reply, 500, 'internal server error');
    // fastify's own rejections (a body too large, a bad content type) come before any handler
    return sendRejection(reply, status === 415 ? 400 : status, message);
  });
  app.setNotFoundHandler((req, reply) => sendError(reply, 404, routeNotFound(req).message));
}

type Query = Record<string, unknown>;

/** one query parameter as a string; undefined when absent; a framework 400 when repeated */
export function queryParam(query: unknown, name: string): string | undefined {
  if (query === null || typeof query !== 'object') return undefined;
  const v = (query as Query)[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new FrameworkRejection(400, `Invalid value for: query parameter ${name} (given more than once)`);
  return v;
}

/**
 * An integer query parameter within [min, max]. Missing (when required) or not an integer: a framework 400
 * (text/plain), as the query decoder rejects it; out of range: a handler 400 ({error}).
 */
export function intParam(
  query: unknown,
  name: string,
  opts: { min: number; max: number; required: boolean; default?: number },
): number | undefined {
  const raw = queryParam(query, name);
  if (raw === undefined) {
    if (opts.required) throw new FrameworkRejection(400, `Request is missing required query parameter '${name}'`);
    return opts.default;
  }
  return checkInt(raw, name, opts.min, opts.max);
}

export function checkInt(raw: string, name: string, min: number, max: number): number {
  if (!/^-?\d{1,10}$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Math.abs(Number(raw)) > 2 ** 31 - 1) {
    throw new FrameworkRejection(400, `The query parameter '${name}' was malformed: ${JSON.stringify(raw.slice(0, 40))} is not a 32-bit integer`);
  }
  const n = Number(raw);
  if (n < min || n > max) throw new HttpError(400, `${name} must be between ${min} and ${max}`);
  return n;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** the request body as an object; an absent body is {} when allowed; otherwise the body does not decode (framework 400) */
export function objectBody(body: unknown, allowAbsent: boolean): Record<string, unknown> {
  if (body === undefined) {
    if (allowAbsent) return {};
    throw new FrameworkRejection(400, 'The request content was malformed: a request body is required');
  }
  if (!isPlainObject(body)) throw new FrameworkRejection(400, 'The request content was malformed: the body is not a JSON object');
  return body;
}

/** a body field that does not decode as its type: the framework rejects the whole body (400 text/plain) */
export function undecodable(field: string, what: string): FrameworkRejection {
  return new FrameworkRejection(400, `The request content was malformed: ${field} ${what}`);
}

/**
 * The single path segment a wildcard route matched, or undefined when it is empty or spans several segments.
 * Routes whose parameter may be long (contract ids are about 140 characters) are registered as wildcards, because
 * fastify answers 414 for a named parameter longer than its maxParamLength (100 by default).
 */
export function wildcardSegment(params: unknown, suffix = ''): string | undefined {
  const rest = (params as Record<string, unknown> | undefined)?.['*'];
  if (typeof rest !== 'string' || !rest.endsWith(suffix)) return undefined;
  const seg = rest.slice(0, rest.length - suffix.length);
  if (seg === '' || seg.includes('/')) return undefined;
  return seg;
}

/** The path of a request URL, without its query. */
export const pathOf = (url: string) => url.split('?')[0] ?? '';

/** The 404 of a request no route serves (also thrown by a route whose wildcard did not match, or that a fault hides). */
export function routeNotFound(req: { method: string; url: string }): HttpError {
  return new HttpError(404, `no route for ${req.method} ${pathOf(req.url)}`);
}

/** An {error} body re-shaped as {message} (the planted error-body faults); any other payload is left as it is. */
export function errorAsMessage(payload: string): string {
  try {
    const body = JSON.parse(payload) as unknown;
    if (isPlainObject(body) && 'error' in body) return JSON.stringify({ message: body.error });
  } catch {
    // not JSON
  }
  return payload;
}
