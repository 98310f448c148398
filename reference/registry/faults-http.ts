/**
 * Planted faults of the generic HTTP requirements of the registry (documented status, documented content type, no 5xx,
 * {error} bodies), switched in hooks of the registry scope so the route handlers stay as they are.
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import { HttpError, errorAsMessage, isPlainObject } from '../data/http.js';
import { registerFaults } from '../faults.js';

export const HTTP_WITHDRAW_STATUS_202 = 'registry-http-withdraw-status-202';
export const HTTP_FACTORY_AS_HTML = 'registry-http-allocation-factory-as-html';
export const HTTP_EXCLUDE_DEBUG_INTERNAL_ERROR = 'registry-http-exclude-debug-fields-internal-error';
export const HTTP_ERROR_AS_MESSAGE = 'registry-errors-error-as-message';
export const HTTP_BAD_REQUEST_422 = 'registry-http-bad-request-as-422';
export const HTTP_MALFORMED_CONTENT_TYPE_500 = 'registry-http-malformed-content-type-internal-error';

registerFaults([
  {
    name: HTTP_WITHDRAW_STATUS_202,
    requirement: 'registry.http.documented-status',
    description: 'both withdraw choice-context endpoints answer a successful request with 202 (undocumented) instead of 200, body unchanged',
  },
  {
    name: HTTP_FACTORY_AS_HTML,
    requirement: 'registry.http.documented-content-type',
    description: 'the allocation factory answers its 200 with Content-Type text/html (the JSON body unchanged)',
  },
  {
    name: HTTP_EXCLUDE_DEBUG_INTERNAL_ERROR,
    requirement: 'registry.http.no-server-error',
    description: 'a valid withdraw choice-context request with excludeDebugFields true fails with 500 {error}',
  },
  {
    name: HTTP_BAD_REQUEST_422,
    requirement: 'registry.errors.bad-request-400',
    description: 'every registry 400 (a body that does not decode, a missing choiceArguments) is answered 422 instead: still a rejection, but not the 400 Splice answers',
  },
  {
    name: HTTP_MALFORMED_CONTENT_TYPE_500,
    requirement: 'registry.http.no-server-error',
    description: 'a request whose Content-Type header names no media type (no type/subtype) fails with 500 {error} instead of a 4xx',
  },
  {
    name: HTTP_ERROR_AS_MESSAGE,
    requirement: 'registry.errors.error-body',
    description: 'every registry error is answered {message} instead of {error}',
  },
]);

const isWithdraw = (url: string) => /\/choice-contexts\/withdraw\/?$/.test(url.split('?')[0] ?? '');
const isFactory = (url: string) => /\/registry\/allocation-instruction\/v2\/allocation-factory\/?$/.test(url.split('?')[0] ?? '');

/** Hooks of the registry scope that plant the faults above (nothing is installed when none is on). */
export function installHttpFaults(app: FastifyInstance, ctx: ReferenceContext): void {
  const f = ctx.faults;
  if (f.has(HTTP_EXCLUDE_DEBUG_INTERNAL_ERROR)) {
    app.addHook('preHandler', async (req) => {
      if (isWithdraw(req.url) && isPlainObject(req.body) && req.body.excludeDebugFields === true) throw new HttpError(500, 'internal server error');
    });
  }
  if (f.has(HTTP_MALFORMED_CONTENT_TYPE_500)) {
    app.addHook('onRequest', async (req) => {
      const type = req.headers['content-type'];
      if (typeof type === 'string' && !/^\s*[^\s/;]+\/[^\s/;]+/.test(type)) throw new HttpError(500, 'internal server error');
    });
  }
  if (!f.has(HTTP_WITHDRAW_STATUS_202) && !f.has(HTTP_FACTORY_AS_HTML) && !f.has(HTTP_ERROR_AS_MESSAGE) && !f.has(HTTP_BAD_REQUEST_422)) return;
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode === 400 && f.has(HTTP_BAD_REQUEST_422)) reply.code(422);
    if (reply.statusCode === 200 && f.has(HTTP_WITHDRAW_STATUS_202) && isWithdraw(req.url)) reply.code(202);
    if (reply.statusCode === 200 && f.has(HTTP_FACTORY_AS_HTML) && isFactory(req.url)) reply.header('content-type', 'text/html; charset=utf-8');
    if (reply.statusCode >= 400 && f.has(HTTP_ERROR_AS_MESSAGE) && typeof payload === 'string') return errorAsMessage(payload);
    return payload;
  });
}
