import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';

describe('GET /v0/entry/all', () => {
  conformance(
    {
      id: 'validator.list-owned-ans-entries.requires-token',
      title: 'answers 401 to a request without a bearer token',
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: ['validator.list-owned-ans-entries.requires-auth'],
    },
    async (t) => {
      const x = await t.call('listOwnedAnsEntries', { auth: 'none' });
      t.expectStatus(x, 401);
    },
  );

  conformance(
    {
      id: 'validator.list-owned-ans-entries.schema',
      title: "answers 200 with the caller's entries in the AnsEntryResponse shape",
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: ['validator.list-owned-ans-entries.response-schema'],
    },
    async (t) => {
      const x = await t.call('listOwnedAnsEntries', { auth: { role: 'user' } });
      t.expectStatus(x, 200);
    },
  );
});
