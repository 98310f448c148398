import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { expectRejected, judgeBadRequests, judgeRejection } from '../../rejections.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { allocateParty, createUser } from '../../../harness/fixtures/ledger.js';
import { invalidMissingDedupId, modelBalances, trafficUpdates, type TrafficUpdate } from '../../../generators/ledger/traffic.js';
import { judgeThat } from '../shared.js';
import { mayAnswerAnywhere } from '../../../harness/judging/checks.js';

const U = 'ledger.update-traffic-account';

/** A fresh party to use as a traffic account id. */
const freshAccount = (t: CheckContext): Promise<string> => allocateParty(t, 'cc-traffic');

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An int64 as a number: a JSON number, or a decimal string as int64 JSON codecs also write it. */
const int64 = (b: unknown) => (typeof b === 'string' && /^-?\d+$/.test(b) ? Number(b) : b);

/** The account an update answers: SPEC.md, `{response: {accountId, balance}}`; `unwrapped` when it came without it. */
function updated(json: unknown): { accountId?: unknown; balance: unknown; unwrapped: boolean } {
  const r = isObj(json) && isObj(json.response) ? json.response : undefined;
  return { accountId: r?.accountId, balance: int64(r?.balance), unwrapped: r === undefined && isObj(json) && 'balance' in json };
}

/** Why an update's balance is not an integer, for messages. */
const notInteger = (u: ReturnType<typeof updated>) =>
  u.unwrapped ? 'the update answers the account without the response wrapper SPEC.md gives ({response: {accountId, balance}})' : `balance ${JSON.stringify(u.balance)} is not an integer`;

/**
 * The account a read answers: FACTS.md, `{accountId, balance}` itself, with no `response` wrapper (unlike the update).
 * A read wrapped as the update is, is read all the same, so that the rules about its balance judge the balance; the
 * wrapper is get-traffic-account.response-schema's to judge (`wrapped`).
 */
function readAccount(json: unknown): { accountId?: unknown; balance: unknown; wrapped: boolean } {
  if (!isObj(json)) return { balance: undefined, wrapped: false };
  if (!('accountId' in json) && !('balance' in json) && isObj(json.response)) return { accountId: json.response.accountId, balance: int64(json.response.balance), wrapped: true };
  return { accountId: json.accountId, balance: int64(json.balance), wrapped: false };
}

const balanceOf = (json: unknown) => updated(json).balance;

/**
 * The balance an account starts from, learnt through POST /v2/traffic/accounts alone: an update with a fresh
 * deduplication id and balanceDelta 0 answers the balance before it plus 0 (SPEC.md). Whether a fresh account starts
 * at 0 is FACTS.md's, judged on its own (get-traffic-account.fresh-balance-zero).
 */
async function startingBalance(t: CheckContext, account: string): Promise<number> {
  const x = await t.call('updateTrafficAccount', { json: { accountId: account, deduplicationId: t.uniqueName('dedup'), balanceDelta: 0 } });
  t.expect(x.status !== 404, 'POST /v2/traffic/accounts answers 404', { requirement: 'ledger.versioning.traffic-accounts-added', exchange: x });
  t.expectStatus(x, 200, { requirement: `${U}.applies-delta`, what: 'an update with balanceDelta 0 (reading the starting balance)' });
  const u = updated(x.json);
  t.expect(Number.isSafeInteger(u.balance), notInteger(u), { requirement: `${U}.response-schema`, exchange: x });
  return u.balance as number;
}

const BAD_REQUEST = 'ledger.errors.bad-request-400';

// Each check (and each case of the model) updates the account of a party it allocated for itself, under deduplication
// ids of its own: the checks share no target state and run at once.
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
          // each answer is judged on its rules; once an update is refused or answers an unreadable or unexpected
          // balance, the model no longer knows the balance and the sequence ends there
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
            if (!(await t.judge(rule, () => t.expectStatus(x, 200, { requirement: rule })))) return;
            const r = updated(x.json);
            await judgeThat(t, `${U}.echoes-account`, r.accountId === account, `the response names account ${String(r.accountId)}, not ${account}`, x);
            const got = r.balance;
            if (!(await judgeThat(t, `${U}.response-schema`, Number.isInteger(got), notInteger(r), x))) return;
            const held = await judgeThat(t, rule, got === want, `update ${i + 1} (${retry ? 'retry of' : 'fresh'} id ${u.id}, delta ${u.balanceDelta ?? 'unset'}): balance ${String(got)}, model ${want}`, x);
            if (!held) return;
            seen.add(u.id);
            deltas.push(u.balanceDelta);
          }
          const g = await t.call('getTrafficAccount', { params: { 'account-id': account } });
          const read = readAccount(g.json);
          await t.judge('ledger.get-traffic-account.reflects-update', () => {
            t.expectStatus(g, 200, { requirement: 'ledger.get-traffic-account.reflects-update' });
            // a read without an integer balance is the response-schema rule's (party-account check) to judge
            if (!Number.isSafeInteger(read.balance)) t.skip(`the read after the updates answered balance ${JSON.stringify(read.balance)}: no integer to compare`);
            t.expect(read.balance === expected[expected.length - 1], `read balance ${String(read.balance)}${read.wrapped ? ' (under response)' : ''}, last update returned ${expected[expected.length - 1]}`, { requirement: 'ledger.get-traffic-account.reflects-update', exchange: g });
          });
      };
      // one fixed sequence touching every rule (identical fresh updates, a retry, an unset delta, a negative end
      // whatever the starting balance), beside generated ones: each case models an account of its own (a fresh party)
      // under deduplication ids of its own, so the sequences share no target state and run at once (each is a chain of
      // topology-speed updates on a real participant)
      // (both end before the check goes on: the first to throw ends it then)
      const ended = await Promise.allSettled([
        run((start) => [{ id: 0, balanceDelta: 5 }, { id: 1, balanceDelta: 5 }, { id: 0, balanceDelta: 5 }, { id: 2 }, { id: 3, balanceDelta: -(start + 20) }]),
        t.property(trafficUpdates(), run, { runs: t.scaledRuns(12), concurrent: true }),
      ]);
      for (const e of ended) if (e.status === 'rejected') throw e.reason;
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
      const read = readAccount(before.json);
      const start = read.balance;
      // the MUST from the update alone: accepted, and (when the read showed a balance) moved by the delta
      await t.judge(`${U}.account-id-is-party`, () => {
        t.expectStatus(x, 200, { requirement: `${U}.account-id-is-party` });
        // an unreadable balance is the response-schema rule's (model check) to judge: then only the acceptance is
        if (before.status === 200 && Number.isSafeInteger(start) && Number.isSafeInteger(balanceOf(x.json))) {
          t.expect(balanceOf(x.json) === (start as number) + 7, `the party's account read ${String(start)}; an update of 7 answered balance ${String(balanceOf(x.json))}`, { requirement: `${U}.account-id-is-party`, exchange: x });
        }
      });
      // FACTS.md's read endpoint, each rule on its own: the shape of the read (the account itself, no response wrapper)
      // and the 0 of a fresh account (read in either shape)
      const SCHEMA = 'ledger.get-traffic-account.response-schema';
      await t.judge(SCHEMA, () => {
        // a refused read is fresh-balance-zero's to judge: the shape is that of a successful read
        if (before.status !== 200) t.skip(`the read of a fresh account answered ${before.status}: no successful read to judge the shape of`);
        t.expect(!read.wrapped, 'the read wraps the account in response, as the update does: FACTS.md says a read answers {accountId, balance} itself', { requirement: SCHEMA, exchange: before });
        t.expect(read.accountId === account && Number.isInteger(start), `the read answers accountId ${JSON.stringify(read.accountId)} and balance ${JSON.stringify(start)}, not the account's id and an integer`, { requirement: SCHEMA, exchange: before });
      });
      await t.judge('ledger.get-traffic-account.fresh-balance-zero', () => {
        t.expectStatus(before, 200, { requirement: 'ledger.get-traffic-account.fresh-balance-zero', what: 'reading a fresh account' });
        if (!Number.isSafeInteger(start)) t.skip(`the read of a fresh account answered balance ${JSON.stringify(start)}: no integer to compare with 0 (response-schema judges it)`);
        t.expect(start === 0, `a fresh account reads ${String(start)}${read.wrapped ? ' (under response)' : ''}`, { requirement: 'ledger.get-traffic-account.fresh-balance-zero', exchange: before });
      });
    },
  );

  conformance(
    {
      id: 'ledger.update-traffic-account.large-balance',
      title: 'applies deltas that take the balance to 2^53-1 and to -(2^53-1) exactly, answering each balance as an integer',
      api: 'ledger',
      operations: ['updateTrafficAccount', 'getTrafficAccount'],
      requirements: [`${U}.applies-delta`, `${U}.may-go-negative`, 'ledger.get-traffic-account.reflects-update'],
    },
    async (t) => {
      // the largest magnitudes a JSON number holds exactly in every client (2^53-1); the int64 range goes further, but a
      // JSON number beyond it is rounded by common JSON parsers, so the balance's digits are read from the raw text (a
      // JSON number, or a decimal string as int64 codecs write it; response-schema judges the form)
      const account = await freshAccount(t);
      const start = BigInt(await startingBalance(t, account));
      const digits = (text: string): bigint | undefined => {
        const m = /"balance"\s*:\s*"?(-?\d+)"?/.exec(text);
        return m === null ? undefined : BigInt(m[1]!);
      };
      const big = 2n ** 53n - 1n;
      let want = start;
      for (const d of [big - start, -big, -big]) {
        want += d;
        const rule = want < 0n ? `${U}.may-go-negative` : `${U}.applies-delta`;
        const x = await t.call('updateTrafficAccount', { json: { accountId: account, deduplicationId: t.uniqueName('dedup'), balanceDelta: Number(d) } });
        if (!(await t.judge(rule, () => t.expectStatus(x, 200, { requirement: rule, what: `an update of ${d}` })))) return;
        const got = digits(x.text);
        // an answer without an integer balance is response-schema's (model check) to judge
        if (got === undefined) t.skip(`the update answered no integer balance: ${x.text.slice(0, 200)}`);
        if (!(await judgeThat(t, rule, got === want, `an update of ${d} answered balance ${got}, not ${want}`, x))) return;
      }
      const g = await t.call('getTrafficAccount', { params: { 'account-id': account } });
      await t.judge('ledger.get-traffic-account.reflects-update', () => {
        t.expectStatus(g, 200, { requirement: 'ledger.get-traffic-account.reflects-update' });
        const read = digits(g.text);
        if (read === undefined) t.skip(`the read answered no integer balance: ${g.text.slice(0, 200)}`);
        t.expect(read === want, `the read answered balance ${read}, the updates made it ${want}`, { requirement: 'ledger.get-traffic-account.reflects-update', exchange: g });
      });
    },
  );

  conformance(
    {
      id: 'ledger.update-traffic-account.dedup-id-required',
      title: 'rejects an update without deduplicationId with a 4xx, 400 as FACTS.md gives',
      api: 'ledger',
      operations: ['updateTrafficAccount'],
      requirements: [`${U}.dedup-id-required`, BAD_REQUEST],
    },
    async (t) => {
      const account = await freshAccount(t);
      const seen: Array<{ x: Exchange; what: string }> = [];
      await t.property(invalidMissingDedupId(), async (body) => {
        const x = await t.call('updateTrafficAccount', { json: { accountId: account, ...body } });
        expectRejected(t, x, { what: 'an update without deduplicationId' });
        seen.push({ x, what: 'an update without deduplicationId' });
      }, { runs: t.scaledRuns(3) });
      // FACTS.md: a missing string decodes to its empty default, so an empty deduplicationId is the missing one
      const empty = await t.call('updateTrafficAccount', { json: { accountId: account, deduplicationId: '', balanceDelta: 1 } });
      expectRejected(t, empty, { what: 'an update whose deduplicationId is the empty string' });
      seen.push({ x: empty, what: 'an update whose deduplicationId is the empty string' });
      await judgeBadRequests(t, BAD_REQUEST, seen);
    },
  );

  conformance(
    {
      id: 'ledger.update-traffic-account.admin-only',
      title: 'refuses a traffic account update by a user who is not an admin with a 4xx, 403 as FACTS.md gives',
      api: 'ledger',
      operations: ['updateTrafficAccount'],
      requirements: ['ledger.auth.traffic-admin-only', 'ledger.auth.permission-denied-403'],
    },
    async (t) => {
      const account = await freshAccount(t);
      const user = await createUser(t);
      const x = await t.call('updateTrafficAccount', { auth: { user: user.id }, json: { accountId: account, deduplicationId: t.uniqueName('dedup'), balanceDelta: 1 } });
      await judgeRejection(t, x, { requirement: 'ledger.auth.traffic-admin-only', badRequest: 'ledger.auth.permission-denied-403', statuses: [403], what: 'a traffic account update by a user who is not an admin' });
    },
  );

  conformance(
    {
      id: 'ledger.versioning.traffic-accounts-absent-before',
      title: 'never answers a traffic account update with 2xx before 3.5',
      api: 'ledger',
      operations: ['updateTrafficAccount'],
      requirements: ['ledger.versioning.traffic-accounts-absent-before'],
    },
    async (t) => {
      // a valid update of a party account: a participant that serves the route applies it (200) whatever the party
      const x = await t.call('updateTrafficAccount', { json: { accountId: await freshAccount(t), deduplicationId: t.uniqueName('dedup'), balanceDelta: 1 } });
      // an overload or cancellation answer says nothing about the route: it ends the check in error, never in a pass
      if (mayAnswerAnywhere('ledger', x.status)) t.expectStatus(x, 404);
      t.expect(x.status < 200 || x.status >= 300, `a ${t.target.version ?? ''} participant answered a traffic account update with ${x.status}: POST /v2/traffic/accounts, added in 3.5, is served`, { exchange: x });
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
