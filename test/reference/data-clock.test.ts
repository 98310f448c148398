/**
 * The seeded scan, validator and registry data are relative to the server's start (reference/data/clock.ts): open
 * mining rounds open at it, active ANS entries expiring after it and expired ones before it, licences and history
 * before it; the same start and variant give the same data, and servers started on the same day share the timestamps
 * of the bulk data (the memo of rendered timestamps stays shared).
 */
import { describe, expect, it } from 'vitest';
import { resolveReferenceOptions, startReference, type ReferenceContext } from '../../reference/index.js';
import { FaultSet } from '../../reference/faults.js';
import { createWorld } from '../../reference/world.js';
import { chooseVariant, DEFAULT_VARIANT } from '../../reference/variant.js';
import { DAY_MS, ROUND_TICK_MS, dataClock, pinDataClock } from '../../reference/data/clock.js';
import { sharedScanData } from '../../reference/data/shared.js';
import { isExpiredIndex } from '../../reference/data/ans.js';
import { registryState } from '../../reference/registry/routes.js';
import { scanHistory } from '../../reference/scan/routes.js';
import { seedActivities } from '../../reference/scan/activities.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** the seeded data of a world started at `startMs` */
function seeded(startMs: number, o: { variant?: number; ansEntries?: number; licenses?: number } = {}) {
  const world = createWorld(o.variant === undefined ? DEFAULT_VARIANT : chooseVariant(o.variant));
  pinDataClock(world, startMs);
  const options = resolveReferenceOptions({ size: { ansEntries: o.ansEntries ?? 200, validatorLicenses: o.licenses ?? 120 }, ...(o.variant !== undefined ? { variant: o.variant } : {}) });
  const ctx: ReferenceContext = { world, faults: new FaultSet(), options };
  const shared = sharedScanData(ctx);
  return { world, shared, registry: registryState(ctx), history: scanHistory(ctx), activities: seedActivities(world) };
}

/** everything a client can read of the seeded data, as JSON */
function snapshot(d: ReturnType<typeof seeded>): string {
  const { shared, registry, history, world } = d;
  return JSON.stringify({
    ans: shared.ans.list('', 10_000, Number.MAX_SAFE_INTEGER),
    ansAll: Array.from({ length: shared.ans.size }, (_, i) => [shared.ans.entry(i), shared.ans.entryResponse(i), shared.ans.createdAt(i)]),
    licenses: shared.licenses.page(undefined, 10_000),
    rounds: shared.rounds,
    featured: [...shared.featuredApps],
    registry: [registry, [...world.contracts.values()]],
    history: history.events.map((e) => history.render(e, 'compact_json')),
    activities: d.activities,
  });
}

const ms = (iso: unknown) => Date.parse(String(iso));
const AN_AFTERNOON = Date.UTC(2031, 5, 17, 14, 27, 31, 123);

describe('seeded data relative to the start', () => {
  it('is the same for the same start and variant, and follows the start', () => {
    expect(snapshot(seeded(AN_AFTERNOON))).toBe(snapshot(seeded(AN_AFTERNOON)));
    expect(snapshot(seeded(AN_AFTERNOON, { variant: 12 }))).toBe(snapshot(seeded(AN_AFTERNOON, { variant: 12 })));
    expect(snapshot(seeded(AN_AFTERNOON + DAY_MS))).not.toBe(snapshot(seeded(AN_AFTERNOON)));
  });

  it('shares the bulk data across a day, so the memo of rendered timestamps is shared too', () => {
    const morning = seeded(Date.UTC(2031, 5, 17, 0, 0, 1));
    const evening = seeded(Date.UTC(2031, 5, 17, 23, 59, 59));
    const bulk = (d: ReturnType<typeof seeded>) => JSON.stringify([d.shared.licenses.page(undefined, 1000), d.shared.ans.list('', 1000, 0), d.history.events.map((e) => e.recordMicros)]);
    expect(bulk(morning)).toBe(bulk(evening));
    // the rounds alone follow the start's hour
    expect(JSON.stringify(morning.shared.rounds)).not.toBe(JSON.stringify(evening.shared.rounds));
  });

  it('has mining rounds open at the start and for two hours after it, whatever the minute', () => {
    for (const start of [AN_AFTERNOON, Date.UTC(2031, 5, 17, 14, 0, 0, 0), Date.UTC(2031, 5, 17, 14, 59, 59, 999), Date.UTC(2030, 0, 1)]) {
      const { open, issuing } = seeded(start).shared.rounds;
      const openAt = (t: number) => open.filter((c) => ms(c.contract.payload.opensAt) <= t && t < ms(c.contract.payload.targetClosesAt));
      for (let t = start; t < start + 2 * ROUND_TICK_MS; t += 60_000) expect(openAt(t).length, new Date(t).toISOString()).toBeGreaterThan(0);
      for (const c of [...open, ...issuing]) expect(ms(c.contract.created_at)).toBeLessThanOrEqual(start);
      for (const c of issuing) expect(ms(c.contract.payload.targetClosesAt)).toBeLessThanOrEqual(start);
      expect(open.map((c) => c.contract.payload.tickDuration)).toEqual(open.map(() => ({ microseconds: String(ROUND_TICK_MS * 1000) })));
    }
  });

  it('discloses a registry round open at the start, with deadlines after it', () => {
    const d = seeded(AN_AFTERNOON);
    const round = d.world.contracts.get(d.registry.openRound)!.createArgument as Json;
    expect(ms(round.opensAt)).toBeLessThanOrEqual(AN_AFTERNOON);
    expect(ms(round.targetClosesAt)).toBeGreaterThan(AN_AFTERNOON);
    for (const cid of [...d.registry.allocationInstructions, ...d.registry.transferInstructions]) {
      const r = d.world.contracts.get(cid)!;
      expect(ms(r.createdAt)).toBeLessThan(AN_AFTERNOON);
      const args = r.createArgument as Json;
      const deadline = args.transfer !== undefined ? args.transfer.executeBefore : args.allocation.settlement.allocateBefore;
      expect(ms(deadline)).toBeGreaterThan(AN_AFTERNOON + 7 * DAY_MS);
    }
  });

  it('has ANS entries expiring after the start and expired before it, whatever the size', () => {
    for (const size of [200, 100_000]) {
      const { ans } = seeded(AN_AFTERNOON, { ansEntries: size }).shared;
      for (const i of [0, 1, 2, 5, 12, size - 3, size - 2, size - 1]) {
        const expires = ms(ans.expiresAt(i));
        if (isExpiredIndex(i)) expect(expires, `entry ${i}`).toBeLessThan(AN_AFTERNOON);
        else expect(expires, `entry ${i}`).toBeGreaterThan(AN_AFTERNOON + 30 * DAY_MS);
        expect(ms(ans.createdAt(i))).toBeLessThan(AN_AFTERNOON);
      }
      expect(ans.list('', 50, AN_AFTERNOON).filter((e) => e.contract_id != null)).toHaveLength(50);
    }
  });

  it('has licences created and last active before the start', () => {
    const { licenses } = seeded(AN_AFTERNOON, { licenses: 10_000 }).shared;
    const page = licenses.page(undefined, 1000).licenses;
    for (const l of [...page, licenses.license(1)]) {
      expect(ms(l.created_at)).toBeLessThan(AN_AFTERNOON);
      expect(ms(l.payload.lastActiveAt)).toBeLessThan(AN_AFTERNOON);
      expect(ms(l.payload.lastActiveAt)).toBeGreaterThanOrEqual(ms(l.created_at));
    }
    // most validators were active within a day of the start, some long before
    const recent = page.filter((l) => AN_AFTERNOON - ms(l.payload.lastActiveAt) < DAY_MS).length;
    expect(recent).toBeGreaterThan(page.length / 2);
    expect(recent).toBeLessThan(page.length);
  });

  it('has its event history and activities in the days before the start', () => {
    const d = seeded(AN_AFTERNOON);
    for (const e of d.history.events) {
      expect(e.recordMicros / 1000).toBeLessThan(AN_AFTERNOON);
      expect(e.recordMicros / 1000).toBeGreaterThan(AN_AFTERNOON - 7 * DAY_MS);
    }
    for (const a of d.activities) expect(ms(a.date)).toBeLessThan(AN_AFTERNOON);
  });

  it('takes the start of a served reference when it starts, and keeps it', async () => {
    const before = Date.now();
    const server = await startReference();
    try {
      const r = (await (await fetch(`${server.urls.validator}/v0/scan-proxy/open-and-issuing-mining-rounds`, { headers: { authorization: `Bearer ${await token(server)}` } })).json()) as Json;
      const now = Date.now();
      expect(r.open_mining_rounds.some((c: Json) => ms(c.contract.payload.opensAt) <= now && now < ms(c.contract.payload.targetClosesAt))).toBe(true);
      expect(ms(r.open_mining_rounds[0].contract.payload.opensAt)).toBeGreaterThanOrEqual(Math.floor(before / ROUND_TICK_MS) * ROUND_TICK_MS - ROUND_TICK_MS);
    } finally {
      await server.close();
    }
    const w = createWorld();
    const first = dataClock(w);
    expect(dataClock(w)).toBe(first);
    expect(() => pinDataClock(w, first.startMs + 1)).toThrow();
  });
});

async function token(server: { auth: { hs256Secret: string; validatorUser: string } }): Promise<string> {
  const { SignJWT } = await import('jose');
  return new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(server.auth.validatorUser).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(server.auth.hs256Secret));
}
