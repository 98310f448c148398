/** Planted faults of scan's HTTP behaviour as a whole (status codes, content types, error bodies, path prefix). */
import type { FastifyInstance } from 'fastify';
import type { FaultSet } from '../faults.js';
import { errorAsMessage } from '../data/http.js';
import { installHttpFaultTable, registerHttpFaults } from '../http-faults.js';

const integer = /^-?\d+$/;

/** in the order they answer a request when several are on: an unserved path first */
const SCAN_HTTP_FAULTS = registerHttpFaults([
  {
    name: 'scan-http-ans-entries-not-under-v0',
    requirement: 'scan.versioning.path-prefix',
    description: 'GET /v0/ans-entries is not served (404): the listing moved off the /v0 prefix',
    answer: (r) => (r.path.endsWith('/v0/ans-entries') ? { status: 404, type: 'application/json', body: { error: 'not found' } } : undefined),
  },
  {
    name: 'scan-http-missing-page-size-422',
    requirement: 'scan.errors.bad-request-400',
    description: 'GET /v0/ans-entries without page_size is answered 422 {error} (a rejection, but not the 400 Splice answers)',
    answer: (r) => (r.path.endsWith('/v0/ans-entries') && r.query.page_size === undefined ? { status: 422, type: 'application/json', body: { error: 'page_size is required' } } : undefined),
  },
  {
    name: 'scan-http-500-on-long-prefix',
    requirement: 'scan.http.no-server-error',
    description: 'a name_prefix longer than 200 characters is answered 500',
    answer: (r) => (typeof r.query.name_prefix === 'string' && r.query.name_prefix.length > 200 ? { status: 500, type: 'application/json', body: { error: 'internal' } } : undefined),
  },
  {
    name: 'scan-http-500-on-repeated-query-parameter',
    requirement: 'scan.http.no-server-error',
    description: 'a query parameter given more than once (name_prefix=a&name_prefix=b) is answered 500',
    answer: (r) => (Object.values(r.query).some(Array.isArray) ? { status: 500, type: 'application/json', body: { error: 'internal server error' } } : undefined),
  },
  {
    name: 'scan-http-422-on-malformed-page-size',
    requirement: 'scan.http.documented-status',
    description: 'a page_size that is not an integer is answered 422',
    answer: (r) => (typeof r.query.page_size === 'string' && !integer.test(r.query.page_size) ? { status: 422, type: 'application/json', body: { error: 'unprocessable' } } : undefined),
  },
  {
    name: 'scan-http-text-error-on-bad-after',
    requirement: 'scan.http.documented-content-type',
    description: 'a malformed after of the license listing is answered 400 with a text/html body (a framework rejection may be text/plain, never HTML)',
    answer: (r) =>
      r.path.endsWith('/v0/admin/validator/licenses') && typeof r.query.after === 'string' && !integer.test(r.query.after) ? { status: 400, type: 'text/html', body: '<html><body>bad after</body></html>' } : undefined,
  },
  {
    name: 'scan-errors-message-field',
    requirement: 'scan.errors.error-body',
    description: 'errors of POST /v0/events carry message instead of error',
    rewrite: (r, reply, payload) => (r.method === 'POST' && r.path.endsWith('/v0/events') && reply.statusCode >= 400 && typeof payload === 'string' ? errorAsMessage(payload) : undefined),
  },
]);

/** installs the switched-on faults as hooks of the scan plugin */
export function installScanHttpFaults(app: FastifyInstance, faults: FaultSet): void {
  installHttpFaultTable(app, faults, SCAN_HTTP_FAULTS);
}
