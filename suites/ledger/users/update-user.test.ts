import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { createUser } from '../../../harness/fixtures/ledger.js';

describe('PATCH /v2/users/{user-id}', () => {
  conformance(
    {
      id: 'ledger.update-user.empty-mask',
      title: 'rejects an update mask with no path with 400',
      api: 'ledger',
      operations: ['updateUser'],
      requirements: ['ledger.update-user.empty-mask-rejected'],
    },
    async (t) => {
      const user = await createUser(t);
      const x = await t.call('updateUser', {
        params: { 'user-id': user.id },
        json: { user: { id: user.id, primaryParty: 'someone', metadata: { resourceVersion: '', annotations: {} } }, updateMask: { paths: [] } },
      });
      t.expectStatus(x, 400);
    },
  );
});
