import fc from 'fast-check';
import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { discoverScan } from '../../../harness/fixtures/scan.js';
import { invalidEventsRequestBody, invalidIntegerText, invalidPathOrQueryText } from '../../../generators/scan/Malformed.js';

describe('Scan HTTP behaviour', () => {
  conformance(
    {
      id: 'scan.http.robustness',
      title: 'answers valid and malformed requests with documented statuses, content types and error bodies, never 5xx',
      api: 'scan',
      operations: ['getEventById', 'listEvents', 'listAnsEntries', 'listValidatorLicenses'],
      requirements: ['scan.http.no-server-error', 'scan.http.documented-status', 'scan.http.documented-content-type', 'scan.errors.error-body'],
    },
    async (t) => {
      const d = await discoverScan(t);
      const known = d.updateIds.all[0];
      const request = fc.oneof(
        fc.record({ op: fc.constant('getEventById'), id: fc.oneof(invalidPathOrQueryText(), fc.constant(known ?? 'unknown')), enc: fc.option(invalidPathOrQueryText(), { nil: undefined }) }),
        fc.record({ op: fc.constant('listEvents'), body: invalidEventsRequestBody() }),
        fc.record({ op: fc.constant('listAnsEntries'), prefix: fc.option(invalidPathOrQueryText(), { nil: undefined }), size: fc.oneof(invalidIntegerText(), fc.constant('10')) }),
        fc.record({ op: fc.constant('listValidatorLicenses'), after: fc.option(invalidIntegerText(), { nil: undefined }), limit: fc.option(fc.oneof(invalidIntegerText(), fc.constant('5')), { nil: undefined }) }),
      );
      await t.property(request, async (r) => {
        if (r.op === 'getEventById') await t.call('getEventById', { params: { update_id: r.id }, ...(r.enc !== undefined ? { query: { daml_value_encoding: r.enc } } : {}) });
        else if (r.op === 'listEvents') await t.call('listEvents', { json: r.body });
        else if (r.op === 'listAnsEntries') await t.call('listAnsEntries', { query: { page_size: r.size, ...(r.prefix !== undefined ? { name_prefix: r.prefix } : {}) } });
        else await t.call('listValidatorLicenses', { query: { ...(r.after !== undefined ? { after: r.after } : {}), ...(r.limit !== undefined ? { limit: r.limit } : {}) } });
      }, { runs: t.config.run.runs });
    },
  );

  conformance(
    {
      id: 'scan.versioning.path-prefix',
      title: 'serves every endpoint under /v0',
      api: 'scan',
      operations: ['listEvents', 'listAnsEntries', 'listValidatorLicenses'],
      requirements: ['scan.versioning.path-prefix'],
    },
    async (t) => {
      for (const [op, o] of [
        ['listAnsEntries', { query: { page_size: 1 } }],
        ['listValidatorLicenses', { query: { limit: 1 } }],
        ['listEvents', { json: { page_size: 1 } }],
      ] as const) {
        const x = await t.call(op, o);
        t.expect(x.status !== 404, `${x.record.request.method} ${x.record.request.url} answered 404: the endpoint is not served under /v0`, { exchange: x });
      }
    },
  );
});
