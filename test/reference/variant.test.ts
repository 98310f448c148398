/**
 * Reference variants (reference/variant.ts): a seed fixes every open choice; the self-test's seeds take every option;
 * a variant answers the same request the same way twice, re-encodes its page tokens both ways, and advertises and
 * enforces its own limits.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceServer } from '../../reference/index.js';
import { chooseVariant, describeVariant, untakenOptions } from '../../reference/variant.js';
import { DEFAULT_VARIANT_SEEDS } from '../../harness/run/selftest.js';

describe('variant choices', () => {
  it('are fixed by the seed, and the self-test variants take every option of every choice', () => {
    expect(chooseVariant(7)).toEqual(chooseVariant(7));
    expect(untakenOptions(DEFAULT_VARIANT_SEEDS)).toEqual([]);
    expect(DEFAULT_VARIANT_SEEDS.length).toBeGreaterThanOrEqual(5);
    for (const s of DEFAULT_VARIANT_SEEDS) expect(Object.keys(describeVariant(chooseVariant(s))).length).toBeGreaterThan(0);
  });
});

describe('a served variant', () => {
  // seed 12: sealed or hex page tokens, limits of its own (checked below rather than assumed)
  const seed = DEFAULT_VARIANT_SEEDS.find((s) => chooseVariant(s).pageTokens !== 'as-built' && chooseVariant(s).extraFields)!;
  const v = chooseVariant(seed);
  let server: ReferenceServer;
  let auth: Record<string, string>;
  beforeAll(async () => {
    server = await startReference({ variant: seed });
    const token = await new SignJWT({ sub: server.auth.adminUser }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(server.auth.hs256Secret));
    auth = { authorization: `Bearer ${token}` };
  });
  afterAll(() => server.close());
  const get = async (path: string) => {
    const r = await fetch(`${server.urls.ledger}${path}`, { headers: auth });
    return { status: r.status, text: await r.text() };
  };

  it('answers the same request the same way twice, with its extra fields', async () => {
    const a = await get('/v2/version');
    const b = await get('/v2/version');
    expect(a.status).toBe(200);
    expect(a.text).toBe(b.text);
    expect(a.text).toContain('variantExtra');
    const features = (JSON.parse(a.text) as { features: { userManagement: { maxUsersPageSize: number; maxRightsPerUser: number } } }).features;
    expect(features.userManagement.maxUsersPageSize).toBe(v.limits.maxUsersPageSize);
    expect(features.userManagement.maxRightsPerUser).toBe(v.limits.maxRightsPerUser);
  });

  it('pages users with tokens of its own form, and refuses a token of the default form', async () => {
    const first = await get('/v2/users?pageSize=1');
    const token = (JSON.parse(first.text) as { nextPageToken: string }).nextPageToken;
    expect(token).not.toBe('');
    expect(token).not.toBe(Buffer.from('alice_user').toString('base64url'));
    const next = await get(`/v2/users?pageSize=1&pageToken=${encodeURIComponent(token)}`);
    expect(next.status).toBe(200);
    expect(next.text).not.toBe(first.text);
    const guessed = await get(`/v2/users?pageSize=1&pageToken=${Buffer.from('alice_user').toString('base64url')}`);
    expect(guessed.status).toBe(400);
  });

  it('adds extra fields to records only: never to a union wrapper, a Right\'s kind or a Daml payload', async () => {
    const alice = server.targetConfig().registry.fixtures?.reassignmentSubmitter as string;
    const token = await new SignJWT({ sub: 'alice_user' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(server.auth.hs256Secret));
    const rights = await get('/v2/users/alice_user/rights');
    for (const r of (JSON.parse(rights.text) as { rights: Array<{ kind: Record<string, unknown> }> }).rights) expect(Object.keys(r.kind)).toHaveLength(1);
    // the seeded transactions alice sees: each event one kind key, the created event's argument as the ledger holds it
    const end = (JSON.parse((await get('/v2/state/ledger-end')).text) as { offset: number }).offset;
    let seen = 0;
    for (let k = 0, offset = end; k < 30 && offset > 0 && seen < 3; k++, offset -= v.offsets.step) {
      const r = await fetch(`${server.urls.ledger}/v2/updates/transaction-by-offset`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ offset, transactionFormat: { eventFormat: { filtersByParty: { [alice]: {} }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' } }),
      });
      if (r.status !== 200) continue;
      const events = (JSON.parse(await r.text()) as { transaction: { events: Array<Record<string, Record<string, unknown>>> } }).transaction.events;
      for (const e of events) {
        expect(Object.keys(e)).toHaveLength(1);
        const inner = Object.values(e)[0]!;
        const arg = (inner.createArgument ?? (inner.value as Record<string, unknown> | undefined)?.createArgument) as Record<string, unknown> | undefined;
        if (arg !== undefined) {
          expect(JSON.stringify(arg)).not.toContain('variantExtra');
          seen++;
        }
      }
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('gives the suite a target configuration with its own ids', () => {
    const t = server.targetConfig();
    expect(t.ledger.url).toBe(server.urls.ledger);
    const sender = t.registry.fixtures?.reassignmentSubmitter as string;
    expect(sender.endsWith(`::${v.ids.namespace}`)).toBe(true);
    expect(server.variant).toEqual({ seed, choices: describeVariant(v) });
  });
});
