import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { createUser, existingParty } from '../../../harness/fixtures/ledger.js';
import { listRights, revokeRights, right, rightKey } from '../../../harness/fixtures/ledger-users.js';

describe('PATCH /v2/users/{user-id}/rights', () => {
  conformance(
    { id: 'ledger.revoke-user-rights.schema', title: 'answers 200 with the revoked rights, which the user no longer holds', api: 'ledger', operations: ['revokeUserRights', 'listUserRights'], requirements: ['ledger.revoke-user-rights.response-schema'] },
    async (t) => {
      const party = await existingParty(t);
      const u = await createUser(t, { rights: [right.actAs(party), right.readAsAnyParty()] });
      const x = await revokeRights(t, u.id, [right.actAs(party)]);
      t.expectStatus(x, 200);
      const { rights } = await listRights(t, u.id);
      t.expect(!(rights ?? []).map(rightKey).includes(rightKey(right.actAs(party))), 'the revoked right is still listed', { exchange: x });
      // the answer lists the revoked right, and not the right the user keeps
      const answered = (x.json as { newlyRevokedRights?: unknown } | undefined)?.newlyRevokedRights;
      const keys = Array.isArray(answered) ? answered.map(rightKey) : [];
      t.expect(keys.includes(rightKey(right.actAs(party))), `newlyRevokedRights ${JSON.stringify(answered)?.slice(0, 300)} lacks the revoked right`, { exchange: x });
      t.expect(!keys.includes(rightKey(right.readAsAnyParty())), `newlyRevokedRights ${JSON.stringify(answered)?.slice(0, 300)} lists CanReadAsAnyParty, which was not revoked`, { exchange: x });
    },
  );
});
