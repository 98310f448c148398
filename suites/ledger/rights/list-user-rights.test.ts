import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { createUser, existingParty } from '../../../harness/fixtures/ledger.js';
import { allRightVariants } from '../../../harness/fixtures/ledger-users.js';

describe('GET /v2/users/{user-id}/rights', () => {
  conformance(
    { id: 'ledger.list-user-rights.schema', title: "answers 200 with the user's rights, every variant in its documented shape", api: 'ledger', operations: ['listUserRights'], requirements: ['ledger.list-user-rights.response-schema'] },
    async (t) => {
      const party = await existingParty(t);
      const u = await createUser(t, { rights: allRightVariants(party) });
      t.expectStatus(await t.call('listUserRights', { params: { 'user-id': u.id } }), 200);
    },
  );
});
