import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceServer } from '../../reference/index.js';
import { referenceFixtures } from '../../reference/data/fixtures.js';
import { ScanHistory, VerdictStore, ingestVerdict, type Verdict } from '../../reference/scan/history.js';
import { createWorld } from '../../reference/world.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const fx = referenceFixtures();

let server: ReferenceServer;
let scan: string;

/** the parsed JSON body, or for a text/plain body (a framework rejection) {text} */
async function bodyOf(r: Response): Promise<Json> {
  const text = await r.text();
  return (r.headers.get('content-type') ?? '').startsWith('text/plain') ? { text } : JSON.parse(text);
}

async function get(path: string): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${scan}${path}`);
  return { status: r.status, body: await bodyOf(r) };
}

async function post(path: string, body: unknown, raw = false): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${scan}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ? (body as string) : JSON.stringify(body),
  });
  return { status: r.status, body: await bodyOf(r) };
}

/** an error body: {error}, or (a 400 the HTTP framework answers, FACTS.md) text/plain */
function expectError(res: { status: number; body: Json }, status: number): void {
  expect(res.status).toBe(status);
  if (status === 400 && typeof res.body.text === 'string') expect(res.body.text.length).toBeGreaterThan(0);
  else expect(typeof res.body.error).toBe('string');
}

async function allEvents(pageSize: number, encoding?: string): Promise<Json[]> {
  const out: Json[] = [];
  let after: Json;
  for (;;) {
    const res = await post('/v0/events', { page_size: pageSize, ...(after ? { after } : {}), ...(encoding ? { daml_value_encoding: encoding } : {}) });
    expect(res.status).toBe(200);
    out.push(...res.body.events);
    if (res.body.events.length < pageSize) return out;
    const last = res.body.events[res.body.events.length - 1];
    after = { after_migration_id: migrationOf(last), after_record_time: recordTimeOf(last) };
  }
}

function migrationOf(e: Json): number {
  if (e.update === null) return e.verdict.migration_id;
  if ('migration_id' in e.update) return e.update.migration_id;
  return e.update.event.migration_id;
}

function recordTimeOf(e: Json): string {
  return e.update === null ? e.verdict.record_time : e.update.record_time;
}

function updateIdOf(e: Json): string {
  return e.update === null ? e.verdict.update_id : e.update.update_id;
}

beforeAll(async () => {
  server = await startReference();
  scan = server.urls.scan;
});
afterAll(async () => server.close());

describe('scan events', () => {
  it('lists every event once, ordered by (migration_id, record_time), and each matches its lookup', async () => {
    const events = await allEvents(7);
    expect(events.length).toBeGreaterThan(30);
    const ids = events.map(updateIdOf);
    expect(new Set(ids).size).toBe(ids.length);
    for (let k = 1; k < events.length; k++) {
      const [am, at] = [migrationOf(events[k - 1]), recordTimeOf(events[k - 1])];
      const [bm, bt] = [migrationOf(events[k]), recordTimeOf(events[k])];
      expect(am < bm || (am === bm && at < bt)).toBe(true);
    }
    for (const e of events.slice(0, 12)) {
      const one = await get(`/v0/events/${updateIdOf(e)}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(e);
    }
  });

  it('has every field, nulls for absent parts, and consistent transaction trees', async () => {
    const events = await allEvents(1000);
    const kinds = new Set<string>();
    for (const e of events) {
      expect(Object.keys(e).sort()).toEqual(['app_activity_records', 'traffic_summary', 'update', 'verdict']);
      expect(e.update !== null || e.verdict !== null).toBe(true);
      const u = e.update;
      if (u !== null && 'events_by_id' in u) {
        kinds.add(e.verdict ? 'tx+verdict' : 'tx');
        expect(u.record_time).toMatch(MICROS);
        expect(typeof u.workflow_id).toBe('string');
        expect(typeof u.synchronizer_id).toBe('string');
        expect(typeof u.effective_at).toBe('string');
        expect(Number.isInteger(u.migration_id)).toBe(true);
        if ('external_transaction_hash' in u) expect(typeof u.external_transaction_hash).toBe('string');
        for (const r of u.root_event_ids) expect(u.events_by_id).toHaveProperty([r]);
        for (const [id, ev] of Object.entries<Json>(u.events_by_id)) {
          expect(ev.event_id).toBe(id);
          if (ev.event_type === 'created_event') {
            for (const f of ['contract_id', 'template_id', 'package_name', 'created_at']) expect(typeof ev[f]).toBe('string');
            expect(typeof ev.create_arguments).toBe('object');
            expect(Array.isArray(ev.signatories) && Array.isArray(ev.observers)).toBe(true);
          } else {
            expect(ev.event_type).toBe('exercised_event');
            for (const c of ev.child_event_ids) expect(u.events_by_id).toHaveProperty([c]);
          }
        }
      } else if (u !== null) {
        kinds.add('reassignment');
        expect(u.record_time).toMatch(MICROS);
        expect(typeof u.offset).toBe('string');
        expect(e.verdict).toBeNull();
      } else {
        kinds.add('verdict-only');
      }
      if (e.verdict !== null) {
        const v = e.verdict;
        expect(v.update_id).toBe(updateIdOf(e));
        expect(v.record_time).toMatch(MICROS);
        expect(['VERDICT_RESULT_UNSPECIFIED', 'VERDICT_RESULT_ACCEPTED', 'VERDICT_RESULT_REJECTED']).toContain(v.verdict_result);
        for (const f of ['domain_id', 'finalization_time', 'submitting_participant_uid']) expect(typeof v[f]).toBe('string');
        expect(Number.isInteger(v.mediator_group)).toBe(true);
        const viewIds = v.transaction_views.views.map((x: Json) => x.view_id);
        for (const x of v.transaction_views.views) {
          expect(Array.isArray(x.informees)).toBe(true);
          for (const c of x.confirming_parties) expect(Number.isInteger(c.threshold)).toBe(true);
          for (const s of x.sub_views) expect(viewIds).toContain(s);
          expect(typeof x.view_hash).toBe('string');
        }
        for (const r of v.transaction_views.root_views) expect(viewIds).toContain(r);
      }
      if (e.traffic_summary !== null) {
        const t = e.traffic_summary;
        const sum = t.envelope_traffic_summaries.reduce((s: number, x: Json) => s + x.traffic_cost, 0);
        expect(t.total_traffic_cost).toBe(sum);
      }
      if (e.app_activity_records !== null) {
        expect(Number.isInteger(e.app_activity_records.round_number)).toBe(true);
        for (const r of e.app_activity_records.records) expect(typeof r.party === 'string' && Number.isInteger(r.weight)).toBe(true);
      }
    }
    expect([...kinds].sort()).toEqual(['reassignment', 'tx', 'tx+verdict', 'verdict-only']);
  });

  it('keeps reassignment counters consistent: equal on a matching pair, +1 per unassign', async () => {
    const events = await allEvents(1000);
    const unassigns = new Map<string, Json>();
    const lastCounter = new Map<string, number>();
    let pairs = 0;
    for (const e of events) {
      const ev = e.update?.event;
      if (ev !== undefined && 'contract_id' in ev) {
        const un = ev;
        expect(un.reassignment_counter).toBe((lastCounter.get(un.contract_id) ?? 0) + 1);
        lastCounter.set(un.contract_id, un.reassignment_counter);
        unassigns.set(un.unassign_id, un);
      } else if (ev !== undefined) {
        const as = ev;
        expect(as).toHaveProperty('created_event');
        const un = unassigns.get(as.unassign_id);
        expect(un).toBeDefined();
        expect(as.reassignment_counter).toBe(un.reassignment_counter);
        expect(as.created_event.contract_id).toBe(un.contract_id);
        expect(as.source_synchronizer).toBe(un.source_synchronizer);
        expect(as.target_synchronizer).toBe(un.target_synchronizer);
        pairs++;
      }
    }
    expect(pairs).toBeGreaterThanOrEqual(2);
    const u1 = await get(`/v0/events/${fx.scan.updateIds.unassignment}`);
    expect(u1.body.update.event.reassignment_counter).toBe(1);
    const a2 = await get(`/v0/events/${fx.scan.updateIds.secondAssignment}`);
    expect(a2.body.update.event.reassignment_counter).toBe(2);
  });

  it('serves the named fixtures', async () => {
    const ids = fx.scan.updateIds;
    const noVerdict = await get(`/v0/events/${ids.transactionWithoutVerdict}`);
    expect(noVerdict.body.verdict).toBeNull();
    expect(noVerdict.body.traffic_summary).toBeNull();
    expect(noVerdict.body.app_activity_records).toBeNull();
    expect(noVerdict.body.update).not.toHaveProperty('external_transaction_hash');
    const withVerdict = await get(`/v0/events/${ids.transactionWithVerdict}`);
    expect(withVerdict.body.verdict.verdict_result).toBe('VERDICT_RESULT_ACCEPTED');
    expect(withVerdict.body.app_activity_records).not.toBeNull();
    const only = await get(`/v0/events/${ids.verdictOnly}`);
    expect(only.body.update).toBeNull();
    expect(only.body.verdict.verdict_result).toBe('VERDICT_RESULT_REJECTED');
    const ext = await get(`/v0/events/${ids.externalHash}`);
    expect(typeof ext.body.update.external_transaction_hash).toBe('string');
    expect(ext.body.update.migration_id).toBe(1);
    const old = await get(`/v0/events/${ids.verdictWithEmptyViewHash}`);
    expect(old.body.verdict.transaction_views.views.every((v: Json) => v.view_hash === '')).toBe(true);
  });

  it('keeps the first verdict of an update and rejects later duplicates', async () => {
    const dup = await get(`/v0/events/${fx.scan.updateIds.duplicateVerdictAttempt}`);
    expect(dup.body.verdict.verdict_result).toBe('VERDICT_RESULT_ACCEPTED');
    const h = new ScanHistory(createWorld());
    expect(h.verdicts.rejected.map((v) => v.update_id)).toEqual([fx.scan.updateIds.duplicateVerdictAttempt]);
    const store = new VerdictStore();
    const v = structuredClone(h.verdicts.get(fx.scan.updateIds.transactionWithVerdict)!) as Verdict;
    expect(ingestVerdict(store, v)).toBe(true);
    expect(ingestVerdict(store, { ...v, verdict_result: 'VERDICT_RESULT_REJECTED' })).toBe(false);
    expect(store.get(v.update_id)!.verdict_result).toBe('VERDICT_RESULT_ACCEPTED');
    expect(store.size).toBe(1);
  });

  it('renders create arguments per daml_value_encoding', async () => {
    const id = fx.scan.updateIds.transactionWithVerdict;
    const compact = await get(`/v0/events/${id}`);
    const explicit = await get(`/v0/events/${id}?daml_value_encoding=compact_json`);
    expect(explicit.body).toEqual(compact.body);
    const proto = await get(`/v0/events/${id}?daml_value_encoding=protobuf_json`);
    expect(proto.status).toBe(200);
    const created = (b: Json) => Object.values<Json>(b.update.events_by_id).find((e) => e.event_type === 'created_event');
    expect(created(compact.body).create_arguments.owner).toMatch(/::/);
    expect(Array.isArray(created(proto.body).create_arguments.fields)).toBe(true);
    expect(created(proto.body).create_arguments.fields[1]).toEqual({ label: 'owner', value: { party: created(compact.body).create_arguments.owner } });
    const assign = await get(`/v0/events/${fx.scan.updateIds.assignment}?daml_value_encoding=protobuf_json`);
    expect(Array.isArray(assign.body.update.event.created_event.create_arguments.fields)).toBe(true);
    const listed = await post('/v0/events', { page_size: 3, daml_value_encoding: 'protobuf_json' });
    expect(listed.status).toBe(200);
    expectError(await get(`/v0/events/${id}?daml_value_encoding=json`), 400);
    expectError(await get(`/v0/events/${id}?daml_value_encoding=compact_json&daml_value_encoding=protobuf_json`), 400);
    expectError(await post('/v0/events', { page_size: 3, daml_value_encoding: 'xml' }), 400);
  });

  it('rejects bad lookups and listings with {error}', async () => {
    expectError(await get('/v0/events/1220deadbeef'), 404);
    for (const page_size of [0, 1001, -1, 1.5, '10', null]) expectError(await post('/v0/events', { page_size }), 400);
    expectError(await post('/v0/events', {}), 400);
    expectError(await post('/v0/events', []), 400);
    expectError(await post('/v0/events', '{"page_size":', true), 400);
    expectError(await post('/v0/events', { page_size: 5, after: { after_migration_id: 0 } }), 400);
    expectError(await post('/v0/events', { page_size: 5, after: { after_migration_id: 'x', after_record_time: '2026-01-01T00:00:00Z' } }), 400);
    expectError(await post('/v0/events', { page_size: 5, after: { after_migration_id: 0, after_record_time: 'yesterday' } }), 400);
    const late = await post('/v0/events', { page_size: 5, after: { after_migration_id: 9, after_record_time: '2026-01-01T00:00:00Z' } });
    expect(late.body).toEqual({ events: [] });
  });
});

describe('scan ans entries', () => {
  it('validates page_size', async () => {
    for (const q of ['', '?page_size=0', '?page_size=1001', '?page_size=abc', '?page_size=1.5', '?page_size=', '?page_size=1&page_size=2']) {
      expectError(await get(`/v0/ans-entries${q}`), 400);
    }
  });

  it('lists non-expired entries, oldest first, at most page_size, filtered by prefix', async () => {
    const now = Date.now();
    const all = await get('/v0/ans-entries?page_size=1000');
    expect(all.status).toBe(200);
    const withCid = all.body.entries.filter((e: Json) => typeof e.contract_id === 'string');
    expect(withCid.length).toBeGreaterThan(150);
    for (const e of all.body.entries) {
      expect(typeof e.user === 'string' && typeof e.name === 'string' && typeof e.description === 'string').toBe(true);
      expect(e.url === '' || e.url.startsWith('https://')).toBe(true);
      if (e.expires_at !== null) expect(Date.parse(e.expires_at)).toBeGreaterThan(now);
    }
    const index = (n: string) => Number(/-(\d+)\./.exec(n)![1]);
    const idx = withCid.map((e: Json) => index(e.name));
    expect(idx).toEqual([...idx].sort((a, b) => a - b));
    expect(withCid.map((e: Json) => e.name)).not.toContain(fx.validator.expiredEntryName);
    expect(withCid.map((e: Json) => e.name)).not.toContain('ivan-012.unverified.cns');
    // DSO-provided entries follow when the page is not full, with contract_id null as Splice sends it
    const dso = all.body.entries.filter((e: Json) => e.contract_id === null);
    expect(dso.length).toBeGreaterThan(0);
    for (const e of dso) expect(e.expires_at).toBeNull();
    expect(all.body.entries.slice(-dso.length)).toEqual(dso);

    const page = await get('/v0/ans-entries?page_size=5&name_prefix=alice');
    expect(page.body.entries).toHaveLength(5);
    for (const e of page.body.entries) expect(e.name.startsWith('alice')).toBe(true);
    expect(page.body.entries.map((e: Json) => e.name)).toEqual(withCid.map((e: Json) => e.name).filter((n: string) => n.startsWith('alice')).slice(0, 5));
    expect((await get('/v0/ans-entries?page_size=10&name_prefix=zzz')).body).toEqual({ entries: [] });
    const d = await get('/v0/ans-entries?page_size=1000&name_prefix=dso');
    expect(d.body.entries.map((e: Json) => e.name)).toEqual(['dso.cns']);
    expect(d.body.entries[0].contract_id).toBeNull();
    expect((await get('/v0/ans-entries?page_size=1&name_prefix=dso')).body.entries).toHaveLength(1);
    const one = await get('/v0/ans-entries?page_size=1&name_prefix=alice-044.unverified.cns');
    expect(one.body.entries.map((e: Json) => e.name)).toEqual(['alice-044.unverified.cns']);
  });
});

describe('scan validator licenses', () => {
  it('pages newest first with next_page_token until the last page', async () => {
    const first = await get('/v0/admin/validator/licenses');
    expect(first.status).toBe(200);
    expect(first.body.validator_licenses).toHaveLength(120);
    expect(first.body.next_page_token ?? null).toBeNull();
    const seen: Json[] = [];
    let after: number | undefined;
    let pages = 0;
    for (;;) {
      const res = await get(`/v0/admin/validator/licenses?limit=50${after === undefined ? '' : `&after=${after}`}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.validator_licenses);
      pages++;
      if (res.body.next_page_token === undefined || res.body.next_page_token === null) break;
      expect(Number.isInteger(res.body.next_page_token)).toBe(true);
      after = res.body.next_page_token;
    }
    expect(pages).toBe(3);
    expect(seen.map((c) => c.contract_id)).toEqual(first.body.validator_licenses.map((c: Json) => c.contract_id));
    for (let k = 1; k < seen.length; k++) expect(Date.parse(seen[k - 1].created_at)).toBeGreaterThan(Date.parse(seen[k].created_at));
    for (const c of seen) {
      expect(c.template_id).toMatch(/:Splice\.ValidatorLicense:ValidatorLicense$/);
      for (const f of ['contract_id', 'created_event_blob', 'created_at']) expect(typeof c[f]).toBe('string');
      expect(typeof c.payload).toBe('object');
    }
    const exact = await get('/v0/admin/validator/licenses?limit=120');
    expect(exact.body.next_page_token ?? null).toBeNull();
  });

  it('rejects limits outside 1..1000 and a malformed after', async () => {
    for (const q of ['limit=0', 'limit=1001', 'limit=x', 'after=abc', 'after=1.5', 'after=99999999999999999999']) {
      expectError(await get(`/v0/admin/validator/licenses?${q}`), 400);
    }
    expect((await get('/v0/admin/validator/licenses?after=0')).body.validator_licenses).toEqual([]);
  });
});

describe('scan activities', () => {
  it('is removed from 0.6.8 on', async () => {
    expectError(await post('/v0/activities', { page_size: 10 }), 404);
    for (const v of ['0.6.8', '0.10.0']) {
      const s = await startReference({ scanVersion: v });
      try {
        const r = await fetch(`${s.urls.scan}/v0/activities`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"page_size":1}' });
        expect(r.status).toBe(404);
      } finally {
        await s.close();
      }
    }
  });

  it('lists historical activities newest first before 0.6.8', async () => {
    const s = await startReference({ scanVersion: '0.6.7' });
    try {
      const call = async (body: unknown) => {
        const r = await fetch(`${s.urls.scan}/v0/activities`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: r.status, body: (await bodyOf(r)) as Json };
      };
      const all: Json[] = [];
      let begin: string | undefined;
      for (;;) {
        const res = await call({ page_size: 7, ...(begin ? { begin_after_id: begin } : {}) });
        expect(res.status).toBe(200);
        all.push(...res.body.activities);
        if (res.body.activities.length < 7) break;
        begin = res.body.activities[res.body.activities.length - 1].event_id;
      }
      expect(all.length).toBe(40);
      for (let k = 1; k < all.length; k++) expect(all[k - 1].event_id > all[k].event_id).toBe(true);
      const types = new Set(all.map((a) => a.activity_type));
      // as real scans send them (FACTS.md): devnet_tap, with its payload under tap, and amulet_* names
      expect([...types].sort()).toEqual(['abort_transfer_instruction', 'devnet_tap', 'mint', 'transfer']);
      for (const a of all) {
        for (const f of ['event_id', 'offset', 'date', 'domain_id']) expect(typeof a[f]).toBe('string');
        expect(a).toHaveProperty([a.activity_type === 'devnet_tap' ? 'tap' : a.activity_type]);
      }
      expect(typeof all.find((a) => a.activity_type === 'mint').mint.amulet_owner).toBe('string');
      const ti = all.find((a) => a.transfer?.transfer_kind === 'create_transfer_instruction');
      expect(typeof ti.transfer.transferInstructionCid).toBe('string');
      expect(all.find((a) => a.activity_type === 'abort_transfer_instruction').abort_transfer_instruction.abort_kind).toBe('withdraw');
      // bodies that do not decode are framework rejections (text/plain); a page size out of range a handler's {error}
      for (const b of [{}, { page_size: 'x' }, { page_size: 0 }, { page_size: 5, begin_after_id: 3 }]) expectError(await call(b), 400);
      expect(typeof (await call({ page_size: 0 })).body.error).toBe('string');
      expect((await startOld('0.5.10'))).toBe(200);
    } finally {
      await s.close();
    }
  });
});

async function startOld(version: string): Promise<number> {
  const s = await startReference({ scanVersion: version });
  try {
    const r = await fetch(`${s.urls.scan}/v0/activities`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"page_size":2}' });
    return r.status;
  } finally {
    await s.close();
  }
}

describe('scan errors', () => {
  it('answers unknown routes and bad bodies with {error}', async () => {
    expectError(await get('/v0/nothing-here'), 404);
    expectError(await get('/v1/events/x'), 404);
    const del = await fetch(`${scan}/v0/events/x`, { method: 'DELETE' });
    expect(del.status).toBe(404);
    expect(typeof ((await del.json()) as Json).error).toBe('string');
    const text = await fetch(`${scan}/v0/events`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(400);
    // a body that does not decode: rejected by the HTTP framework, text/plain (FACTS.md)
    expect(text.headers.get('content-type') ?? '').toMatch(/^text\/plain/);
  });
});
