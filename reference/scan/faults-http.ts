/** Planted faults of scan's HTTP behaviour as a whole (status codes, content types, error bodies, path prefix). */
import type { FastifyInstance } from 'fastify';
import { registerFaults, type FaultSet } from '../faults.js';
import { errorAsMessage, pathOf } from '../data/http.js';

const F = {
  serverError: 'scan-http-500-on-long-prefix',
  status: 'scan-http-422-on-malformed-page-size',
  contentType: 'scan-http-text-error-on-bad-after',
  errorBody: 'scan-errors-message-field',
  prefix: 'scan-http-ans-entries-not-under-v0',
  badRequest: 'scan-http-missing-page-size-422',
} as const;

registerFaults([
  { name: F.serverError, requirement: 'scan.http.no-server-error', description: 'a name_prefix longer than 200 characters is answered 500' },
  { name: F.status, requirement: 'scan.http.documented-status', description: 'a page_size that is not an integer is answered 422' },
  { name: F.contentType, requirement: 'scan.http.documented-content-type', description: 'a malformed after of the license listing is answered 400 with a text/html body (a framework rejection may be text/plain, never HTML)' },
  { name: F.errorBody, requirement: 'scan.errors.error-body', description: 'errors of POST /v0/events carry message instead of error' },
  { name: F.prefix, requirement: 'scan.versioning.path-prefix', description: 'GET /v0/ans-entries is not served (404): the listing moved off the /v0 prefix' },
  { name: F.badRequest, requirement: 'scan.errors.bad-request-400', description: 'GET /v0/ans-entries without page_size is answered 422 {error} (a rejection, but not the 400 Splice answers)' },
]);

/** installs the switched-on faults as hooks of the scan plugin */
export function installScanHttpFaults(app: FastifyInstance, faults: FaultSet): void {
  if (!Object.values(F).some((f) => faults.has(f))) return;
  app.addHook('onRequest', async (req, reply) => {
    const q = (req.query ?? {}) as Record<string, unknown>;
    const path = pathOf(req.url);
    if (faults.has(F.prefix) && path.endsWith('/v0/ans-entries')) return reply.code(404).type('application/json').send({ error: 'not found' });
    if (faults.has(F.badRequest) && path.endsWith('/v0/ans-entries') && q.page_size === undefined) return reply.code(422).type('application/json').send({ error: 'page_size is required' });
    if (faults.has(F.serverError) && typeof q.name_prefix === 'string' && q.name_prefix.length > 200) return reply.code(500).type('application/json').send({ error: 'internal' });
    if (faults.has(F.status) && typeof q.page_size === 'string' && !/^-?\d+$/.test(q.page_size)) return reply.code(422).type('application/json').send({ error: 'unprocessable' });
    if (faults.has(F.contentType) && path.endsWith('/v0/admin/validator/licenses') && typeof q.after === 'string' && !/^-?\d+$/.test(q.after)) return reply.code(400).type('text/html').send('<html><body>bad after</body></html>');
    return undefined;
  });
  if (faults.has(F.errorBody)) {
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.method === 'POST' && pathOf(req.url).endsWith('/v0/events') && reply.statusCode >= 400 && typeof payload === 'string') return errorAsMessage(payload);
      return payload;
    });
  }
}
