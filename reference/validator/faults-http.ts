/** Planted faults of the validator's HTTP behaviour as a whole (status codes, content types, error bodies, path prefix). */
import type { FastifyInstance } from 'fastify';
import type { FaultSet } from '../faults.js';
import { errorAsMessage } from '../data/http.js';
import { installHttpFaultTable, registerHttpFaults } from '../http-faults.js';

const integer = /^-?\d+$/;
const ansEntries = '/v0/scan-proxy/ans-entries';

/** in the order they rewrite an answer when several are on: an HTML 400 is sent as it is, not turned into {message} */
const VALIDATOR_HTTP_FAULTS = registerHttpFaults([
  {
    name: 'validator-http-500-on-long-provider',
    requirement: 'validator.http.no-server-error',
    description: 'a provider_party_id longer than 300 characters is answered 500',
    answer: (r) => (r.path.includes('/v0/scan-proxy/featured-apps/') && r.path.length - r.path.indexOf('/featured-apps/') > 300 ? { status: 500, type: 'application/json', body: { error: 'internal' } } : undefined),
  },
  {
    name: 'validator-http-422-on-malformed-page-size',
    requirement: 'validator.http.documented-status',
    description: 'a scan-proxy page_size that is not an integer is answered 422',
    answer: (r) => (r.path.endsWith(ansEntries) && typeof r.query.page_size === 'string' && !integer.test(r.query.page_size) ? { status: 422, type: 'application/json', body: { error: 'unprocessable' } } : undefined),
  },
  {
    name: 'validator-http-html-400',
    requirement: 'validator.http.documented-content-type',
    description:
      '400 answers of GET /v0/scan-proxy/ans-entries have a text/html body (a framework rejection may be text/plain, never HTML; an HTML 401 or 403 may come from an authenticating proxy and is not judged)',
    rewrite: (r, reply) => {
      if (!(r.path.endsWith(ansEntries) && reply.statusCode === 400)) return undefined;
      reply.type('text/html');
      return '<html><body>bad request</body></html>';
    },
  },
  {
    name: 'validator-http-401-without-www-authenticate',
    requirement: 'validator.auth.www-authenticate',
    description: 'a 401 for a missing or invalid bearer token carries no WWW-Authenticate header',
    rewrite: (_r, reply) => {
      if (reply.statusCode === 401) reply.removeHeader('www-authenticate');
      return undefined;
    },
  },
  {
    name: 'validator-errors-message-field',
    requirement: 'validator.errors.error-body',
    description: 'errors of GET /v0/scan-proxy/ans-entries carry message instead of error',
    rewrite: (r, reply, payload) => (r.path.endsWith(ansEntries) && reply.statusCode >= 400 && typeof payload === 'string' ? errorAsMessage(payload) : undefined),
  },
  {
    name: 'validator-http-rounds-not-under-v0',
    requirement: 'validator.versioning.path-prefix',
    description: 'GET /v0/scan-proxy/open-and-issuing-mining-rounds is not served (404)',
    answer: (r) => (r.path.endsWith('/v0/scan-proxy/open-and-issuing-mining-rounds') ? { status: 404, type: 'application/json', body: { error: 'not found' } } : undefined),
  },
  {
    name: 'validator-http-missing-page-size-422',
    requirement: 'validator.errors.bad-request-400',
    description: 'GET /v0/scan-proxy/ans-entries without page_size is answered 422 {error} (a rejection, but not the 400 Splice answers)',
    answer: (r) => (r.path.endsWith(ansEntries) && r.query.page_size === undefined ? { status: 422, type: 'application/json', body: { error: 'page_size is required' } } : undefined),
  },
]);

/** installs the switched-on faults as hooks of the validator plugin */
export function installValidatorHttpFaults(app: FastifyInstance, faults: FaultSet): void {
  installHttpFaultTable(app, faults, VALIDATOR_HTTP_FAULTS);
}
