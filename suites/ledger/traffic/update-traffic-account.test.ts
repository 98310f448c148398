import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { allocateParty, createUser } from '../../../harness/fixtures/ledger.js';
import { invalidMissingDedupId, modelBalances, trafficUpdates, type TrafficUpdate } from '../../../generators/ledger/traffic.js';

const U = 'ledger.update-traffic-account';

/** A fresh party to use as a traffic account id. */
const freshAccount = (t: CheckContext): Promise<string> => allocateParty(t, 'cc-traffic');

const balanceOf = (json: unknown) => {
  const b = (json as { response?: { balance?: unknown } } | undefined)?.response?.balance;
  return typeof b === 'string' && /^-?\d+$/.test(b) ? Number(b) : b;
};

/**
 * The balance an account starts from, learnt through POST /v2/traffic/accounts alone: an update with a fresh
 * deduplication id and balanceDelta 0 answers the balance before it plus 0 (SPEC.md). Whether a fresh account starts
 * at 0 is FACTS.md's, judged on its own (get-traffic-account.fresh-balance-zero).
 */
async function startingBalance(t: CheckContext, account: string): Promise<number> {
  const x = await t.call('updateTrafficAccount', { json: { accountId: account, deduplicationId: t.uniqueName('dedup'), balanceDelta: 0 } });
  t.expect(x.status !== 404, 'POST /v2/traffic/accounts answers 404', { requirement: 'ledger.versioning.traffic-accounts-added', exchange: x });
  t.expectStatus(x, 200, { requirement: `${U}.applies-delta`, what: 'an update with balanceDelta 0 (reading the starting balance)' });
  const b = balanceOf(x.json);
  t.expect(Number.isSafeInteger(b), `balance ${JSON.stringify(b)} is not an integer`, { requirement: `${U}.response-schema`, exchange: x });
  return b as number;
}

describe('POST /v2/traffic/accounts', () => {
  conformance(
    {
      id: 'ledger.update-traffic-account.model',
      title: 'ends every sequence of updates with retried deduplication ids at the balance the model predicts',
      api: 'ledger',
      operations: ['updateTrafficAccount', 'getTrafficAccount'],
      requirements: [
        `${U}.applies-delta`,
        `${U}.response-schema`,
        `${U}.echoes-account`,
        `${U}.unset-delta-unchanged`,
        `${U}.may-go-negative`,
        `${U}.duplicate-dedup-id-ignored`,
        `${U}.fresh-dedup-id-applies`,
        'ledger.get-traffic-account.reflects-update',
        'ledger.versioning.traffic-accounts-added',
      ],
    },
    async (t) => {
      const run = async (updates: TrafficUpdate[] | ((start: number) => TrafficUpdate[])) => {
          const account = await freshAccount(t);
          const start = await startingBalance(t, account);
          if (typeof updates === 'function') updates = updates(start);
          const expected = modelBalances(updates, start);
          const ids = [0, 1, 2, 3].map(() => t.uniqueName('dedup'));
          const seen = new Set<number>();
          const deltas: (number | undefined)[] = [];
          for (const [i, u] of updates.entries()) {
            const x = await t.call('updateTrafficAccount', {
              json: { accountId: account, deduplicationId: ids[u.id], ...(u.balanceDelta !== undefined ? { balanceDelta: u.balanceDelta } : {}) },
            });
            const want = expected[i]!;
            const retry = seen.has(u.id);
            const identical = !retry && deltas.includes(u.balanceDelta);
            const rule = retry
              ? `${U}.duplicate-dedup-id-ignored`
              : u.balanceDelta === undefined
                ? `${U}.unset-delta-unchanged`
                : identical
                  ? `${U}.fresh-dedup-id-applies`
                  : want < 0
                    ? `${U}.may-go-negative`
                    : `${U}.applies-delta`;
            t.expectStatus(x, 200, { requirement: rule });
            const r = (x.json as { response?: { accountId?: unknown; balance?: unknown } } | undefined)?.response;
            t.expect(r?.accountId === account, `the response names account ${String(r?.accountId)}, not ${account}`, { requirement: `${U}.echoes-account`, exchange: x });
            const got = balanceOf(x.json);
            t.expect(Number.isInteger(got), `balance ${JSON.stringify(got)} is not an integer`, { requirement: `${U}.response-schema`, exchange: x });
            t.expect(got === want, `update ${i + 1} (${retry ? 'retry of' : 'fresh'} id ${u.id}, delta ${u.balanceDelta ?? 'unset'}): balance ${String(got)}, model ${want}`, { requirement: rule, exchange: x });
            seen.add(u.id);
            deltas.push(u.balanceDelta);
          }
          const g = await t.call('getTrafficAccount', { params: { 'account-id': account } });
          t.expectStatus(g, 200, { requirement: 'ledger.get-traffic-account.reflects-update' });
          t.expect(balanceOf(g.json) === expected[expected.length - 1], `read balance ${String(balanceOf(g.json))}, last update returned ${expected[expected.length - 1]}`, { requirement: 'ledger.get-traffic-account.reflects-update', exchange: g });
      };
      // one fixed sequence touching every rule (identical fresh updates, a retry, an unset delta, a negative end
      // whatever the starting balance)
      await run((start) => [{ id: 0, balanceDelta: 5 }, { id: 1, balanceDelta: 5 }, { id: 0, balanceDelta: 5 }, { id: 2 }, { id: 3, balanceDelta: -(start + 20) }]);
      await t.property(trafficUpdates(), run, { runs: t.scaledRuns(12) });
    },
  );

  conformance(
    {
      id: 'ledger.update-traffic-account.party-account',
      title: 'addresses a party id used as accountId as that party\'s account (the update moves what a read of it showed), which reads 0 before any update',
      api: 'ledger',
      operations: ['updateTrafficAccount', 'getTrafficAccount'],
      requirements: [`${U}.account-id-is-party`, 'ledger.get-traffic-account.fresh-balance-zero', 'ledger.get-traffic-account.response-schema'],
    },
    async (t) => {
      const account = await freshAccount(t);
      const before = await t.call('getTrafficAccount', { params: { 'account-id': account } });
      const x = await t.call('updateTrafficAccount', { json: { accountId: account, deduplicationId: t.uniqueName('dedup'), balanceDelta: 7 } });
      // the MUST first, from the update alone: accepted, and (when the read showed a balance) moved by the delta
      t.expectStatus(x, 200, { requirement: `${U}.account-id-is-party` });
      const start = balanceOf(before.json);
      if (before.status === 200 && Number.isSafeInteger(start)) {
        t.expect(balanceOf(x.json) === (start as number) + 7, `the party's account read ${String(start)}; an update of 7 answered balance ${String(balanceOf(x.json))}`, { requirement: `${U}.account-id-is-party`, exchange: x });
      }
      // then FACTS.md's read endpoint: the fresh account's read, its shape, and its 0
      t.expectStatus(before, 200, { requirement: 'ledger.get-traffic-account.fresh-balance-zero', what: 'reading a fresh account' });
      const r = (before.json as { response?: { accountId?: unknown; balance?: unknown } } | undefined)?.response;
      t.expect(r?.accountId === account && Number.isInteger(start), 'the read lacks the accountId or an integer balance', { requirement: 'ledger.get-traffic-account.response-schema', exchange: before });
      t.expect(start === 0, `a fresh account reads ${String(start)}`, { requirement: 'ledger.get-traffic-account.fresh-balance-zero', exchange: before });
    },
  );

  conformance(
    {
      id: 'ledger.update-traffic-account.dedup-id-required',
      title: 'rejects an update without deduplicationId with 400',
      api: 'ledger',
      operations: ['updateTrafficAccount'],
      requirements: [`${U}.dedup-id-required`],
    },
    async (t) => {
      const account = await freshAccount(t);
      await t.property(invalidMissingDedupId(), async (body) => {
        t.expectStatus(await t.call('updateTrafficAccount', { json: { accountId: account, ...body } }), 400);
      }, { runs: t.scaledRuns(3) });
    },
  );

  conformance(
    {
      id: 'ledger.update-traffic-account.admin-only',
      title: 'refuses a traffic account update by a user who is not an admin with 403',
      api: 'ledger',
      operations: ['updateTrafficAccount'],
      requirements: ['ledger.auth.traffic-admin-only'],
    },
    async (t) => {
      const account = await freshAccount(t);
      const user = await createUser(t);
      const x = await t.call('updateTrafficAccount', { auth: { user: user.id }, json: { accountId: account, deduplicationId: t.uniqueName('dedup'), balanceDelta: 1 } });
      t.expectStatus(x, 403);
    },
  );

  conformance(
    {
      id: 'ledger.update-traffic-account.requires-enforcement',
      title: 'never answers a traffic account update with 2xx on a participant without traffic enforcement',
      api: 'ledger',
      operations: ['updateTrafficAccount'],
      requirements: [`${U}.requires-enforcement`],
    },
    async (t) => {
      if (t.target.features.trafficEnforcement !== false) t.skip('the target has traffic enforcement (or does not say it has none): the rule is about participants without it');
      const x = await t.call('updateTrafficAccount', { json: { accountId: `cc-none::1220${'ab'.repeat(32)}`, deduplicationId: t.uniqueName('dedup'), balanceDelta: 1 } });
      t.expect(x.status < 200 || x.status >= 300, `a participant without traffic enforcement answered ${x.status}`, { exchange: x });
    },
  );
});
