/**
 * Requests derived from specs/scan.yaml (suites/derived-checks.ts). Covered: getEventById (an update id from
 * discovery), listEvents (setup, the only scan body with typed fields besides the removed listActivities),
 * listAnsEntries, listValidatorLicenses, listActivities (where the target still serves it, before 0.6.8).
 */
import { describe } from 'vitest';
import { discoverScan, pageSizeInRange } from '../../../harness/fixtures/scan.js';
import { derivedCheck, type DerivedRequest } from '../../derived-checks.js';

const req = (o: Partial<DerivedRequest>): DerivedRequest => ({ params: {}, query: {}, ...o });

describe('scan requests derived from the specs', () => {
  derivedCheck({
    api: 'scan',
    operationId: 'getEventById',
    kinds: ['enum'],
    prepare: async (t) => {
      const d = await discoverScan(t);
      const id = d.updateIds.all[0] ?? t.skip(`no update id discovered on the scan${d.walkProblem !== undefined ? `: ${d.walkProblem}` : ''}`);
      return { request: () => req({ params: { update_id: id } }) };
    },
  });

  for (const operationId of ['listEvents', 'listActivities'] as const) {
    derivedCheck({
      api: 'scan',
      operationId,
      kinds: operationId === 'listEvents' ? ['required-removed', 'wrong-type', 'out-of-range', 'enum', 'non-integer'] : ['required-removed', 'wrong-type', 'non-integer'],
      prepare: async () => ({ request: () => req({ json: { page_size: 10 } }) }),
      validOnTarget: pageSizeInRange,
    });
  }

  derivedCheck({
    api: 'scan',
    operationId: 'listAnsEntries',
    kinds: ['required-removed', 'out-of-range', 'non-integer'],
    prepare: async () => ({ request: () => req({ query: { page_size: '10' } }) }),
    validOnTarget: pageSizeInRange,
  });

  derivedCheck({
    api: 'scan',
    operationId: 'listValidatorLicenses',
    kinds: ['out-of-range', 'non-integer'],
    prepare: async () => ({ request: () => req({ query: { limit: '10' } }) }),
    validOnTarget: pageSizeInRange,
  });
});
