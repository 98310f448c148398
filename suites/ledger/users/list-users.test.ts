import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { createUser } from '../../../harness/fixtures/ledger.js';
import { userLimits } from '../../../harness/fixtures/ledger-users.js';

const api = 'ledger' as const;
const users = (x: { json?: unknown }) => ((x.json as { users?: unknown[] } | undefined)?.users ?? []).length;

describe('GET /v2/users', () => {
  conformance(
    { id: 'ledger.list-users.schema', title: 'answers 200 with users and a nextPageToken', api, operations: ['listUsers'], requirements: ['ledger.list-users.response-schema'] },
    async (t) => {
      await createUser(t);
      await createUser(t);
      // the check's own users exist: a page of one, and the first page of the default size, list at least one user
      for (const query of [{ pageSize: '1' }, undefined]) {
        const x = await t.call('listUsers', query === undefined ? {} : { query });
        t.expectStatus(x, 200);
        t.expect(users(x) >= 1, `GET /v2/users${query === undefined ? '' : '?pageSize=1'} listed no user, though the check created two`, { exchange: x });
      }
    },
  );

  conformance(
    { id: 'ledger.list-users.page-size-capped', title: 'caps a pageSize above maxUsersPageSize, up to the largest int32, instead of rejecting it', api, operations: ['listUsers', 'getVersion'], requirements: ['ledger.list-users.page-size-capped'] },
    async (t) => {
      const limits = await userLimits(t);
      if (limits.maxUsersPageSize === undefined) t.skip('GET /v2/version does not advertise maxUsersPageSize');
      const max = limits.maxUsersPageSize ?? 0;
      // one past the maximum, and the largest value the int32 field takes: both capped, every run
      for (const size of [...new Set([Math.min(max + 1, 2 ** 31 - 1), 2 ** 31 - 1])]) {
        const x = await t.call('listUsers', { query: { pageSize: String(size) } });
        t.expectStatus(x, 200, { what: `GET /v2/users with pageSize ${size}` });
        t.expect(users(x) <= max, `pageSize ${size}: ${users(x)} users on one page, above the maximum ${max}`, { exchange: x });
      }
    },
  );

  conformance(
    { id: 'ledger.list-users.negative-page-size', title: 'rejects a negative pageSize with 400', api, operations: ['listUsers'], requirements: ['ledger.list-users.negative-page-size-rejected'] },
    async (t) => {
      t.expectStatus(await t.call('listUsers', { query: { pageSize: '-1' } }), 400);
    },
  );

  conformance(
    { id: 'ledger.list-users.invalid-page-token', title: 'rejects a pageToken the server did not issue with 400', api, operations: ['listUsers'], requirements: ['ledger.list-users.invalid-page-token-rejected'] },
    async (t) => {
      t.expectStatus(await t.call('listUsers', { query: { pageToken: 'not a token!' } }), 400);
    },
  );
});
