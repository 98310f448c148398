import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { tryCreateUser } from '../../../harness/fixtures/ledger-users.js';

describe('DELETE /v2/users/{user-id}', () => {
  conformance(
    { id: 'ledger.delete-user.schema', title: 'answers 200 with an object and the user is gone', api: 'ledger', operations: ['deleteUser', 'getUser'], requirements: ['ledger.delete-user.response-schema'] },
    async (t) => {
      const id = t.uniqueName('cc-del');
      t.expectStatus(await tryCreateUser(t, { id }), 200, { what: 'creating the user to delete' });
      const x = await t.call('deleteUser', { params: { 'user-id': id } });
      t.expectStatus(x, 200);
      t.expect(typeof x.json === 'object' && x.json !== null && !Array.isArray(x.json), `the body is not a JSON object: ${x.text.slice(0, 100)}`, { exchange: x });
      const r = await t.call('getUser', { params: { 'user-id': id } });
      t.expect(r.status === 404, `reading the deleted user answered ${r.status}`, { exchange: r });
    },
  );
});
