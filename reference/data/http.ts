/**
 * HTTP plumbing shared by the scan, validator and registry route modules: every failure is a JSON {error: string}
 * body, unknown routes answer 404, and no input leads to a 5xx. Handlers set here are scoped to the plugin (and so to
 * its prefix) by fastify's encapsulation.
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

export function sendError(reply: FastifyReply, status: number, error: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ error });
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
      done(new HttpError(400, 'request body is not valid JSON'), undefined);
    }
  });
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof HttpError) return sendError(reply, err.status, err.message);
    const e = err as { statusCode?: unknown; message?: unknown };
    const status = typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 500;
    const message = typeof e.message === 'string' && e.message !== '' ? e.message : 'request failed';
    if (status === 500) return sendError(reply, 500, 'internal server error');
    return sendError(reply, status === 415 ? 400 : status, message);
  });
  app.setNotFoundHandler((req, reply) => sendError(reply, 404, routeNotFound(req).message));
}

type Query = Record<string, unknown>;

/** one query parameter as a string; undefined when absent; 400 when repeated */
export function queryParam(query: unknown, name: string): string | undefined {
  if (query === null || typeof query !== 'object') return undefined;
  const v = (query as Query)[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new HttpError(400, `query parameter ${name} must be given once`);
  return v;
}

/** an integer query parameter within [min, max]; 400 when malformed or out of range */
export function intParam(
  query: unknown,
  name: string,
  opts: { min: number; max: number; required: boolean; default?: number },
): number | undefined {
  const raw = queryParam(query, name);
  if (raw === undefined) {
    if (opts.required) throw new HttpError(400, `query parameter ${name} is required`);
    return opts.default;
  }
  return checkInt(raw, name, opts.min, opts.max);
}

export function checkInt(raw: string, name: string, min: number, max: number): number {
  if (!/^-?\d{1,30}$/.test(raw)) throw new HttpError(400, `${name} must be an integer, got ${JSON.stringify(raw.slice(0, 40))}`);
  const n = Number(raw);
  if (n < min || n > max) throw new HttpError(400, `${name} must be between ${min} and ${max}`);
  return n;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** the request body as an object; an absent body is {} when allowed */
export function objectBody(body: unknown, allowAbsent: boolean): Record<string, unknown> {
  if (body === undefined) {
    if (allowAbsent) return {};
    throw new HttpError(400, 'request body is required');
  }
  if (!isPlainObject(body)) throw new HttpError(400, 'request body must be a JSON object');
  return body;
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
