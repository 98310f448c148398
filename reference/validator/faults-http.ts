/** Planted faults of the validator's HTTP behaviour as a whole (status codes, content types, error bodies, path prefix). */
import type { FastifyInstance } from 'fastify';
import { registerFaults, type FaultSet } from '../faults.js';
import { errorAsMessage, pathOf } from '../data/http.js';

const F = {
  serverError: 'validator-http-500-on-long-provider',
  status: 'validator-http-422-on-malformed-page-size',
  contentType: 'validator-http-html-400',
  noChallenge: 'validator-http-401-without-www-authenticate',
  errorBody: 'validator-errors-message-field',
  prefix: 'validator-http-rounds-not-under-v0',
  badRequest: 'validator-http-missing-page-size-422',
} as const;

registerFaults([
  { name: F.serverError, requirement: 'validator.http.no-server-error', description: 'a provider_party_id longer than 300 characters is answered 500' },
  { name: F.status, requirement: 'validator.http.documented-status', description: 'a scan-proxy page_size that is not an integer is answered 422' },
  { name: F.contentType, requirement: 'validator.http.documented-content-type', description: '400 answers of GET /v0/scan-proxy/ans-entries have a text/html body (a framework rejection may be text/plain, never HTML; an HTML 401 or 403 may come from an authenticating proxy and is not judged)' },
  { name: F.noChallenge, requirement: 'validator.auth.www-authenticate', description: 'a 401 for a missing or invalid bearer token carries no WWW-Authenticate header' },
  { name: F.errorBody, requirement: 'validator.errors.error-body', description: 'errors of GET /v0/scan-proxy/ans-entries carry message instead of error' },
  { name: F.prefix, requirement: 'validator.versioning.path-prefix', description: 'GET /v0/scan-proxy/open-and-issuing-mining-rounds is not served (404)' },
  { name: F.badRequest, requirement: 'validator.errors.bad-request-400', description: 'GET /v0/scan-proxy/ans-entries without page_size is answered 422 {error} (a rejection, but not the 400 Splice answers)' },
]);

/** installs the switched-on faults as hooks of the validator plugin */
export function installValidatorHttpFaults(app: FastifyInstance, faults: FaultSet): void {
  if (!Object.values(F).some((f) => faults.has(f))) return;
  app.addHook('onRequest', async (req, reply) => {
    const q = (req.query ?? {}) as Record<string, unknown>;
    const path = pathOf(req.url);
    if (faults.has(F.prefix) && path.endsWith('/v0/scan-proxy/open-and-issuing-mining-rounds')) return reply.code(404).type('application/json').send({ error: 'not found' });
    if (faults.has(F.badRequest) && path.endsWith('/v0/scan-proxy/ans-entries') && q.page_size === undefined) return reply.code(422).type('application/json').send({ error: 'page_size is required' });
    if (faults.has(F.serverError) && path.includes('/v0/scan-proxy/featured-apps/') && path.length - path.indexOf('/featured-apps/') > 300) return reply.code(500).type('application/json').send({ error: 'internal' });
    if (faults.has(F.status) && path.endsWith('/v0/scan-proxy/ans-entries') && typeof q.page_size === 'string' && !/^-?\d+$/.test(q.page_size)) return reply.code(422).type('application/json').send({ error: 'unprocessable' });
    return undefined;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const path = pathOf(req.url);
    if (faults.has(F.noChallenge) && reply.statusCode === 401) reply.removeHeader('www-authenticate');
    if (faults.has(F.contentType) && path.endsWith('/v0/scan-proxy/ans-entries') && reply.statusCode === 400) {
      reply.type('text/html');
      return '<html><body>bad request</body></html>';
    }
    if (faults.has(F.errorBody) && path.endsWith('/v0/scan-proxy/ans-entries') && reply.statusCode >= 400 && typeof payload === 'string') return errorAsMessage(payload);
    return payload;
  });
}
