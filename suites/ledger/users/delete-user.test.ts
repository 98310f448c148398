import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { errorCode, tryCreateUser } from '../../../harness/fixtures/ledger-users.js';

describe('DELETE /v2/users/{user-id}', () => {
  conformance(
    {
      id: 'ledger.delete-user.schema',
      title: 'answers 200 with an object, and the deleted user is then answered 404 USER_NOT_FOUND',
      api: 'ledger',
      operations: ['deleteUser', 'getUser'],
      requirements: ['ledger.delete-user.response-schema', 'ledger.users.unknown-user-not-found'],
    },
    async (t) => {
      const id = t.uniqueName('cc-del');
      t.expectStatus(await tryCreateUser(t, { id }), 200, { what: 'creating the user to delete' });
      const x = await t.call('deleteUser', { params: { 'user-id': id } });
      await t.judge('ledger.delete-user.response-schema', () => {
        t.expectStatus(x, 200, { requirement: 'ledger.delete-user.response-schema' });
        t.expect(typeof x.json === 'object' && x.json !== null && !Array.isArray(x.json), `the body is not a JSON object: ${x.text.slice(0, 100)}`, { requirement: 'ledger.delete-user.response-schema', exchange: x });
      });
      // the user no longer exists: a request naming it is a request naming an unknown user
      await t.judge('ledger.users.unknown-user-not-found', async () => {
        if (x.status !== 200) t.skip(`the delete was answered ${x.status}: the user may still exist`);
        const r = await t.call('getUser', { params: { 'user-id': id } });
        t.expectStatus(r, 404, { requirement: 'ledger.users.unknown-user-not-found', what: 'reading the deleted user' });
        t.expect(errorCode(r) === 'USER_NOT_FOUND', `reading the deleted user: expected code USER_NOT_FOUND, got ${errorCode(r)}`, { requirement: 'ledger.users.unknown-user-not-found', exchange: r });
      });
    },
  );
});
