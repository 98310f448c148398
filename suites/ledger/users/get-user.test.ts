import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { createUser } from '../../../harness/fixtures/ledger.js';
import { errorCode, grantRights, revokeRights, right, updateUser } from '../../../harness/fixtures/ledger-users.js';

const api = 'ledger' as const;

describe('GET /v2/users/{user-id}', () => {
  conformance(
    { id: 'ledger.get-user.schema', title: 'answers 200 with the user', api, operations: ['getUser'], requirements: ['ledger.get-user.response-schema'] },
    async (t) => {
      const u = await createUser(t, { annotations: { a: 'b' } });
      t.expectStatus(await t.call('getUser', { params: { 'user-id': u.id } }), 200);
    },
  );

  conformance(
    {
      id: 'ledger.users.unknown-user',
      title: 'answers 404 USER_NOT_FOUND for a user id that does not exist, on every user operation',
      api,
      operations: ['updateUser', 'grantUserRights', 'getUser', 'deleteUser', 'listUserRights', 'revokeUserRights'],
      requirements: ['ledger.users.unknown-user-not-found'],
    },
    async (t) => {
      const id = t.uniqueName('cc-nobody');
      const p = { params: { 'user-id': id } };
      for (const [op, x] of [
        ['getUser', await t.call('getUser', p)],
        ['deleteUser', await t.call('deleteUser', p)],
        ['listUserRights', await t.call('listUserRights', p)],
        ['updateUser', await updateUser(t, id, { primaryParty: '' }, ['primary_party'])],
        ['grantUserRights', await grantRights(t, id, [right.readAsAnyParty()])],
        ['revokeUserRights', await revokeRights(t, id, [right.readAsAnyParty()])],
      ] as const) {
        // each operation judged on its own: one operation's failure does not hide another's
        await t.judge('ledger.users.unknown-user-not-found', () => {
          t.expectStatus(x, 404, { what: `${op} of an unknown user` });
          t.expect(errorCode(x) === 'USER_NOT_FOUND', `${op} of an unknown user: expected code USER_NOT_FOUND, got ${errorCode(x)}`, { exchange: x });
        });
      }
    },
  );
});
