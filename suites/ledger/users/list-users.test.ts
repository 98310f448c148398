import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { createUser } from '../../../harness/fixtures/ledger.js';
import { userLimits } from '../../../harness/fixtures/ledger-users.js';
import { judgeThat } from '../shared.js';

const api = 'ledger' as const;
const users = (x: { json?: unknown }) => ((x.json as { users?: unknown[] } | undefined)?.users ?? []).length;
const BOUNDS = 'ledger.list-users.page-size-bounds-page';
const LISTED = 'ledger.list-users.created-user-listed';
/** Bound of a walk of the user listing, in pages. */
const MAX_WALK_PAGES = 50;
/** About how many pages a walk of small pages takes (more when users are created meanwhile). */
const SMALL_WALK_PAGES = 60;

/** The users a walk listed, whether it reached a page without a next one, and how many pages it took. */
interface Walk {
  ids: unknown[];
  ended: boolean;
  pages: number;
  found: (id: string) => boolean;
}

/**
 * Walks GET /v2/users in pages of `size` from the first page through each nextPageToken, at most `maxPages` pages: each
 * page 200 and within its size; a token handed out a second time fails the walk, since following it again leads back
 * to the same place and the walk never ends.
 */
async function walkUsers(t: CheckContext, size: number, maxPages: number): Promise<Walk> {
  const ids: unknown[] = [];
  const tokens = new Set<string>();
  let token = '';
  let ended = false;
  let pages = 0;
  while (pages < maxPages && !ended) {
    const x = await t.call('listUsers', { query: { pageSize: String(size), ...(token !== '' ? { pageToken: token } : {}) } });
    pages += 1;
    t.expectStatus(x, 200, { requirement: LISTED, what: `page ${pages} of a walk of GET /v2/users in pages of ${size}${token !== '' ? ' (following the nextPageToken of the page before)' : ''}` });
    const page = ((x.json as { users?: Array<{ id?: unknown }> } | undefined)?.users ?? []).map((v) => v?.id);
    await judgeThat(t, BOUNDS, page.length <= size, `pageSize ${size}: ${page.length} users on page ${pages}`, x);
    ids.push(...page);
    const next = (x.json as { nextPageToken?: unknown } | undefined)?.nextPageToken;
    ended = typeof next !== 'string' || next === '';
    if (!ended && tokens.has(next as string)) {
      t.fail(`a walk of GET /v2/users in pages of ${size} never ends: page ${pages} hands out the nextPageToken ${JSON.stringify(next).slice(0, 80)} an earlier page handed out`, { requirement: LISTED, exchange: x });
    }
    token = typeof next === 'string' ? next : '';
    tokens.add(token);
  }
  return { ids, ended, pages, found: (id) => ids.includes(id) };
}

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
      const walk = await walkUsers(t, size, MAX_WALK_PAGES);
      const found = walk.found(u.id);
      if (!found && !walk.ended) t.skip(`the walk of GET /v2/users did not end within ${MAX_WALK_PAGES} pages of ${size}: the user ${u.id} may come later`);
      t.expect(found, `a walk of GET /v2/users (pages of ${size}) did not list the user ${u.id} the check created`, { requirement: LISTED });
      if (!walk.ended) t.note(`the walk of GET /v2/users stopped after ${MAX_WALK_PAGES} pages of ${size}`);
    },
  );

  conformance(
    {
      id: 'ledger.list-users.walk-small-pages',
      title: 'lists the users it created on a walk of the largest pages and on a walk of small pages through every nextPageToken, and each walk ends',
      api,
      operations: ['listUsers', 'createUser', 'getVersion'],
      requirements: [LISTED, BOUNDS],
    },
    async (t) => {
      // ids at both ends of the allowed characters' order ('!' lowest, '~' highest): a listing in id order puts them
      // first and last, where a walk that drops its first or last user would lose them (no order is assumed: each must
      // be listed somewhere)
      const created = await Promise.all([createUser(t, { id: t.uniqueName('!!cc') }), createUser(t, { id: t.uniqueName('~~cc') })]);
      const max = (await userLimits(t)).maxUsersPageSize || 1000;
      const judgeWalk = (walk: Walk, size: number) => {
        for (const { id } of created) {
          if (!walk.found(id) && !walk.ended) t.skip(`the walk of GET /v2/users in pages of ${size} did not end within ${walk.pages} pages: the user ${id} may come later`);
          t.expect(walk.found(id), `a walk of GET /v2/users in pages of ${size} (${walk.pages} pages) did not list the user ${id} the check created`, { requirement: LISTED });
        }
      };
      // how many users there are, from a walk of the largest pages; then pages small enough that the walk follows a
      // token after nearly every user (one user a page up to SMALL_WALK_PAGES users), as a client with small pages does
      const all = await walkUsers(t, max, MAX_WALK_PAGES);
      if (!all.ended) t.skip(`the walk of GET /v2/users did not end within ${MAX_WALK_PAGES} pages of ${max}: too many users to walk in small pages`);
      judgeWalk(all, max);
      const size = Math.min(max, Math.max(1, Math.ceil(all.ids.length / SMALL_WALK_PAGES)));
      // users other checks create meanwhile lengthen the walk: room for as many again
      const walk = await walkUsers(t, size, 2 * SMALL_WALK_PAGES + 10);
      judgeWalk(walk, size);
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
