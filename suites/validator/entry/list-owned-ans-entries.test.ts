import { createHmac, randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { CLOCK_SKEW_MS, widePage } from '../../../harness/fixtures/scan.js';
import { expectStatus, hasChallenge, judgeBadRequests, judgeRejection, notBusy, validatorUser } from '../../v0-http-checks.js';

/**
 * SPEC.md requires the bearer token but names no status for its absence or refusal: the MUST is a refusal (a 4xx).
 * FACTS.md gives 401, with a WWW-Authenticate challenge when the HTTP framework answers: two SHOULDs, judged apart.
 */
const CHALLENGE = 'validator.auth.www-authenticate';
const UNAUTHENTICATED = 'validator.auth.unauthenticated-401';

/** the SHOULD that a 401 challenges the client; a refusal with 403 has nothing to judge */
async function judgeChallenge(t: CheckContext, x: Exchange, what: string): Promise<boolean> {
  if (x.status !== 401) return false;
  await t.judge(CHALLENGE, () => t.expect(hasChallenge(x), `${what} answered 401 without a WWW-Authenticate header`, { requirement: CHALLENGE, exchange: x }));
  return true;
}

describe('GET /v0/entry/all', () => {
  conformance(
    {
      id: 'validator.list-owned-ans-entries.requires-token',
      title: 'refuses a request without a bearer token with a 4xx (401 as FACTS.md gives), listing no entries, and challenges with WWW-Authenticate on a 401',
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: ['validator.list-owned-ans-entries.requires-auth', UNAUTHENTICATED, CHALLENGE],
    },
    async (t) => {
      const x = await t.call('listOwnedAnsEntries', { auth: 'none' });
      notBusy(t, x);
      await judgeRejection(t, x, { refusal: 'caller', requirement: 'validator.list-owned-ans-entries.requires-auth', badRequest: UNAUTHENTICATED, statuses: [401], what: 'GET /v0/entry/all without a token' });
      await t.judge('validator.list-owned-ans-entries.requires-auth', () => {
        t.expect((x.json as { entries?: unknown } | undefined)?.entries === undefined, 'a request without a token got entries listed', { exchange: x });
      });
      if (!(await judgeChallenge(t, x, 'GET /v0/entry/all without a token'))) t.notObserved(CHALLENGE, `the request without a token was answered ${x.status}, not 401`);
    },
  );

  conformance(
    {
      id: 'validator.list-owned-ans-entries.schema',
      title: "answers 200 with the caller's entries in the AnsEntryResponse shape",
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: ['validator.list-owned-ans-entries.response-schema'],
    },
    async (t) => {
      const x = await t.call('listOwnedAnsEntries', { auth: await validatorUser(t) });
      expectStatus(t, x, 200);
    },
  );
});

/** an HS256 JWT signed with a secret the target does not know */
function wronglySignedToken(sub: string): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const body = `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc({ sub, aud: 'https://canton.network.global', exp: Math.floor(Date.now() / 1000) + 600 })}`;
  const sig = createHmac('sha256', randomBytes(32)).update(body).digest('base64url');
  return `${body}.${sig}`;
}

/** the ledger user the validator role acts as, when the configuration names it */
function validatorUserId(t: CheckContext): string | undefined {
  const auth = t.target.auth as { kind: string; users?: Record<string, string> };
  return auth.kind === 'hs256' ? auth.users?.user : undefined;
}

interface OwnedEntry {
  contractId?: unknown;
  name?: unknown;
  expiresAt?: unknown;
}

async function ownedEntries(t: CheckContext, role = 'user'): Promise<{ entries: OwnedEntry[]; x: Exchange }> {
  const x = await t.call('listOwnedAnsEntries', { auth: await validatorUser(t, role) });
  expectStatus(t, x, 200, { requirement: 'validator.list-owned-ans-entries.response-schema' });
  const entries = (x.json as { entries?: unknown } | undefined)?.entries;
  return { entries: Array.isArray(entries) ? (entries.filter((e) => e !== null && typeof e === 'object') as OwnedEntry[]) : [], x };
}

/** the owner party scan shows for an entry (looked up by its full name), or undefined */
async function scanOwnerOf(t: CheckContext, e: OwnedEntry): Promise<string | undefined> {
  if (typeof e.name !== 'string') return undefined;
  const x = await t.clientFor('scan').call('listAnsEntries', { query: { name_prefix: e.name, page_size: 20 } });
  const list = (x.json as { entries?: Array<{ contract_id?: unknown; name?: unknown; user?: unknown }> } | undefined)?.entries ?? [];
  const hit = list.find((s) => s.contract_id === e.contractId) ?? list.find((s) => s.name === e.name);
  return typeof hit?.user === 'string' ? hit.user : undefined;
}

function needScan(t: CheckContext): void {
  if (t.config.targets.scan === undefined) t.skip('entry owners are looked up on scan, and no scan target is configured');
}

describe('GET /v0/entry/all: owner and expiry', () => {
  conformance(
    {
      id: 'validator.list-owned-ans-entries.invalid-token',
      title: 'refuses a malformed, wrongly signed or unsigned bearer token with a 4xx (401 as FACTS.md gives), listing no entries, and challenges with WWW-Authenticate on a 401',
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: ['validator.list-owned-ans-entries.invalid-token-rejected', UNAUTHENTICATED, CHALLENGE],
    },
    async (t) => {
      const sub = validatorUserId(t) ?? t.fixture<string>('validatorUser') ?? 'validator_user';
      const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const tokens: Array<[string, string]> = [
        ['malformed', 'not-a-jwt'],
        ['wrongly signed', wronglySignedToken(sub)],
        ['unsigned (alg none)', `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ sub })}.`],
      ];
      let challenged = 0;
      const seen: Array<{ x: Exchange; what: string }> = [];
      for (const [what, token] of tokens) {
        const x = await t.call('listOwnedAnsEntries', { auth: { token } });
        notBusy(t, x);
        await judgeRejection(t, x, { refusal: 'caller', requirement: 'validator.list-owned-ans-entries.invalid-token-rejected', badRequest: UNAUTHENTICATED, what: `GET /v0/entry/all with a ${what} token`, deferBadRequest: seen });
        await t.judge('validator.list-owned-ans-entries.invalid-token-rejected', () => {
          const entries = (x.json as { entries?: unknown } | undefined)?.entries;
          t.expect(entries === undefined, `a ${what} token got entries listed`, { exchange: x, requirement: 'validator.list-owned-ans-entries.invalid-token-rejected' });
        });
        if (await judgeChallenge(t, x, `GET /v0/entry/all with a ${what} token`)) challenged++;
      }
      await judgeBadRequests(t, UNAUTHENTICATED, seen, [401]);
      if (challenged === 0) t.notObserved(CHALLENGE, 'no request with an invalid token was answered 401');
    },
  );

  conformance(
    {
      id: 'validator.list-owned-ans-entries.only-callers-entries',
      title: "lists only entries the caller's party owns",
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: ['validator.list-owned-ans-entries.only-callers-entries'],
    },
    async (t) => {
      needScan(t);
      const { entries, x } = await ownedEntries(t);
      if (entries.length === 0) t.skip('the user owns no unexpired entry to judge');
      const expected = t.fixture<string>('validatorParty');
      const owners = new Map<string, string>();
      for (const e of entries.slice(0, 50)) {
        const owner = await scanOwnerOf(t, e);
        if (owner !== undefined) owners.set(String(e.name), owner);
      }
      const distinct = [...new Set(owners.values())];
      if (expected !== undefined) {
        const other = [...owners].find(([, o]) => o !== expected);
        t.expect(other === undefined, `entry "${other?.[0]}" is owned by ${other?.[1]}, not the caller's party ${expected}`, { exchange: x });
      }
      t.expect(distinct.length <= 1, `the listed entries have ${distinct.length} different owners on scan: ${[...owners].map(([n, o]) => `${n} -> ${o}`).join(', ')}`, { exchange: x });
    },
  );

  conformance(
    {
      id: 'validator.list-owned-ans-entries.owned-entries-listed',
      title: "lists every unexpired entry of the caller's party that scan lists",
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: ['validator.list-owned-ans-entries.owned-entries-listed'],
    },
    async (t) => {
      needScan(t);
      const all = await t.clientFor('scan').call('listAnsEntries', { query: { page_size: widePage(t) } });
      const scanEntries = (all.json as { entries?: Array<{ contract_id?: unknown; user?: unknown; name?: unknown; expires_at?: string | null }> } | undefined)?.entries ?? [];
      /** judges one user's listing against scan's entries of the user's party; false when that party is unknown */
      const judgeUser = async (role: string, partyFixture: string): Promise<boolean> => {
        const { entries, x } = await ownedEntries(t, role);
        let party = t.fixture<string>(partyFixture);
        for (const e of entries.slice(0, 3)) party ??= await scanOwnerOf(t, e);
        if (party === undefined) return false;
        const listed = new Set(entries.map((e) => String(e.contractId)));
        const now = Date.now();
        const missed = scanEntries.find((s) => s.user === party && typeof s.contract_id === 'string' && !listed.has(s.contract_id) && (typeof s.expires_at !== 'string' || Date.parse(s.expires_at) > now + CLOCK_SKEW_MS));
        t.expect(missed === undefined, `scan lists entry "${String(missed?.name)}" (${String(missed?.contract_id)}) of the ${role === 'user' ? "caller's" : `${role} caller's`} party ${party}, unexpired, but GET /v0/entry/all with that caller's token does not`, { exchange: x });
        return true;
      };
      if (!(await judgeUser('user', 'validatorParty'))) t.skip("the caller's party is unknown: it lists no entry and no fixtures.validatorParty is configured");
      // a second user (role secondUser, for another party) where one is configured: a validator that lists the
      // operator's entries but not its other users' is caught too
      if (t.clientFor('validator').tokens.roles().includes('secondUser')) await judgeUser('secondUser', 'secondUserParty');
    },
  );

  conformance(
    {
      id: 'validator.list-owned-ans-entries.second-user',
      title: "lists for a second user's token that user's entries, none of the first user's",
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: ['validator.list-owned-ans-entries.token-subject-selects-user'],
    },
    async (t) => {
      // needs a second validator user (role secondUser) acting for another party than the first: an entry has one
      // owner, so no entry may be listed for both; which party each acts for comes from fixtures, else from scan
      const second = await ownedEntries(t, 'secondUser');
      const first = await ownedEntries(t);
      const partyOf = async (fixture: string, l: { entries: OwnedEntry[] }) =>
        t.fixture<string>(fixture) ?? (t.config.targets.scan !== undefined && l.entries[0] !== undefined ? await scanOwnerOf(t, l.entries[0]) : undefined);
      const [a, b] = [await partyOf('validatorParty', first), await partyOf('secondUserParty', second)];
      if (a === undefined || b === undefined) t.skip('which party each user acts for is unknown: configure fixtures.validatorParty and secondUserParty, or a scan target where their entries show their owner');
      if (a === b) t.skip(`both users act for party ${a}: their listings may be the same`);
      if (first.entries.length === 0 || second.entries.length === 0) t.skip(`the ${first.entries.length === 0 ? 'first' : 'second'} user's listing is empty: two listings that share nothing because one is empty do not show that the token's subject selects the user (whether entries are missing is judged by validator.list-owned-ans-entries.owned-entries-listed)`);
      const firsts = new Set(first.entries.map((e) => String(e.contractId)));
      const shared = second.entries.find((e) => firsts.has(String(e.contractId)));
      t.expect(shared === undefined, `the second user's token (party ${b}) lists entry "${String(shared?.name)}" (${String(shared?.contractId)}), which the first user's token (party ${a}) lists too: the listing does not follow the token's subject`, { exchange: second.x });
    },
  );

  conformance(
    {
      id: 'validator.list-owned-ans-entries.expired-left-out',
      title: 'leaves out entries whose expiry has passed',
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: ['validator.list-owned-ans-entries.expired-left-out'],
    },
    async (t) => {
      const { entries, x } = await ownedEntries(t);
      if (entries.length === 0) t.skip("the user's listing is empty, so no listed entry can be judged (whether entries are missing is judged by validator.list-owned-ans-entries.owned-entries-listed)");
      const now = Date.now();
      const expired = entries.find((e) => typeof e.expiresAt === 'string' && Date.parse(e.expiresAt) < now - CLOCK_SKEW_MS);
      t.expect(expired === undefined, `entry "${String(expired?.name)}" expired at ${String(expired?.expiresAt)} and is listed`, { exchange: x });
    },
  );
});
