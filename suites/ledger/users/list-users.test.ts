import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { createUser } from '../../../harness/fixtures/ledger.js';
import { userLimits } from '../../../harness/fixtures/ledger-users.js';
import { judgeThat } from '../shared.js';

const api = 'ledger' as const;
const users = (x: { json?: unknown }) => ((x.json as { users?: unknown[] } | undefined)?.users ?? []).length;
const BOUNDS = 'ledger.list-users.page-size-bounds-page';
const LISTED = 'ledger.list-users.created-user-listed';
/** Bound of a walk of the user listing, in pages. */
const MAX_WALK_PAGES = 50;

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
    {
      id: 'ledger.list-users.walk',
      title: 'lists a user it created on a walk of the pages, each page within its pageSize, and ends the walk without a server error',
      api,
      operations: ['listUsers', 'createUser', 'getVersion'],
      requirements: [BOUNDS, LISTED],
    },
    async (t) => {
      const u = await createUser(t);
      const one = await t.call('listUsers', { query: { pageSize: '1' } });
      await t.judge(BOUNDS, () => {
        t.expectStatus(one, 200, { requirement: BOUNDS, what: 'GET /v2/users?pageSize=1' });
        t.expect(users(one) <= 1, `pageSize 1: ${users(one)} users on one page`, { requirement: BOUNDS, exchange: one });
      });
      // pages of the largest size the target advertises (FACTS.md: 1000 by default), every token followed to the end
      const size = (await userLimits(t)).maxUsersPageSize || 1000;
      let token = '';
      let found = false;
      let ended = false;
      for (let page = 0; page < MAX_WALK_PAGES && !ended; page++) {
        const x = await t.call('listUsers', { query: { pageSize: String(size), ...(token !== '' ? { pageToken: token } : {}) } });
        t.expectStatus(x, 200, { requirement: LISTED, what: `page ${page + 1} of a walk of GET /v2/users` });
        const ids = ((x.json as { users?: Array<{ id?: unknown }> } | undefined)?.users ?? []).map((v) => v?.id);
        await judgeThat(t, BOUNDS, ids.length <= size, `pageSize ${size}: ${ids.length} users on page ${page + 1}`, x);
        found ||= ids.includes(u.id);
        const next = (x.json as { nextPageToken?: unknown } | undefined)?.nextPageToken;
        ended = typeof next !== 'string' || next === '';
        token = typeof next === 'string' ? next : '';
      }
      if (!found && !ended) t.skip(`the walk of GET /v2/users did not end within ${MAX_WALK_PAGES} pages of ${size}: the user ${u.id} may come later`);
      t.expect(found, `a walk of GET /v2/users (pages of ${size}) did not list the user ${u.id} the check created`, { requirement: LISTED });
      if (!ended) t.note(`the walk of GET /v2/users stopped after ${MAX_WALK_PAGES} pages of ${size}`);
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
