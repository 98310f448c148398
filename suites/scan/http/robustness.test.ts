import fc from 'fast-check';
import { describe } from 'vitest';
import { discoverScan } from '../../../harness/fixtures/scan.js';
import { invalidEventsRequestBody, invalidIntegerText, invalidPathOrQueryText } from '../../../generators/scan/Malformed.js';
import { pathPrefixCheck, robustnessCheck } from '../../v0-http-checks.js';

/** requests with one query parameter given twice: a server may take either value or refuse the request, never fail */
const REPEATED_QUERY_PARAMETERS = [
  { op: 'repeated' as const, call: 'listAnsEntries' as const, query: { page_size: '10', name_prefix: ['a', 'b'] } },
  { op: 'repeated' as const, call: 'listAnsEntries' as const, query: { page_size: ['10', '20'] } },
  { op: 'repeated' as const, call: 'listValidatorLicenses' as const, query: { limit: ['5', '10'] } },
];

describe('Scan HTTP behaviour', () => {
  robustnessCheck(
    {
      id: 'scan.http.robustness',
      api: 'scan',
      operations: ['getEventById', 'listEvents', 'listAnsEntries', 'listValidatorLicenses'],
      requirements: ['scan.http.no-server-error', 'scan.http.documented-status', 'scan.http.documented-content-type', 'scan.errors.error-body'],
    },
    async (t) => {
      const known = (await discoverScan(t)).updateIds.all[0];
      return fc.oneof(
        fc.record({ op: fc.constant('getEventById' as const), id: fc.oneof(invalidPathOrQueryText(), fc.constant(known ?? 'unknown')), enc: fc.option(invalidPathOrQueryText(), { nil: undefined }) }),
        // bodies that do not decode (a framework rejection, text/plain) and decoded ones a handler refuses ({error})
        fc.record({ op: fc.constant('listEvents' as const), body: fc.oneof(invalidEventsRequestBody(), fc.constantFrom<unknown>({ page_size: 0 }, { page_size: 1001 }, { page_size: 10, after: { after_migration_id: 0, after_record_time: 'not a time' } })) }),
        fc.record({ op: fc.constant('listAnsEntries' as const), prefix: fc.option(invalidPathOrQueryText(), { nil: undefined }), size: fc.oneof(invalidIntegerText(), fc.constantFrom('10', '0', '1001')) }),
        fc.record({ op: fc.constant('listValidatorLicenses' as const), after: fc.option(invalidIntegerText(), { nil: undefined }), limit: fc.option(fc.oneof(invalidIntegerText(), fc.constant('5')), { nil: undefined }) }),
        fc.constantFrom(...REPEATED_QUERY_PARAMETERS),
      );
    },
    (t, r) => {
      if (r.op === 'getEventById') return t.call('getEventById', { params: { update_id: r.id }, ...(r.enc !== undefined ? { query: { daml_value_encoding: r.enc } } : {}) });
      if (r.op === 'listEvents') return t.call('listEvents', { json: r.body });
      if (r.op === 'listAnsEntries') return t.call('listAnsEntries', { query: { page_size: r.size, ...(r.prefix !== undefined ? { name_prefix: r.prefix } : {}) } });
      if (r.op === 'repeated') return t.call(r.call, { query: r.query });
      return t.call('listValidatorLicenses', { query: { ...(r.after !== undefined ? { after: r.after } : {}), ...(r.limit !== undefined ? { limit: r.limit } : {}) } });
    },
    [
      // every run: an after_record_time that is not a date-time (a handler's 400, never a 5xx)
      { op: 'listEvents' as const, body: { page_size: 10, after: { after_migration_id: 0, after_record_time: 'not a time' } } },
      // every run: a query parameter given twice; no sentence says which value counts, so a server may take either or
      // refuse the request (400): any answer but a 5xx
      ...REPEATED_QUERY_PARAMETERS,
    ],
  );

  // SPEC.md endpoints only: POST /v0/events is a FACTS.md setup endpoint, and GET /v0/events/{update_id} answers 404
  // for an id it does not hold
  pathPrefixCheck({ id: 'scan.versioning.path-prefix', api: 'scan', requirement: 'scan.versioning.path-prefix' }, [
    ['listAnsEntries', { query: { page_size: 1 } }],
    ['listValidatorLicenses', { query: { limit: 1 } }],
  ]);
});
