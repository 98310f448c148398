import './faults-derived.js';
import { SCAN_ABSENCE_FAULTS as XF } from './faults-absence.js';
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import { listAnsEntriesHandler } from '../data/ans-routes.js';
import { SCAN_LIST_ANS_ENTRIES_PAGE_SIZE_EXCEEDED, SCAN_LIST_ANS_ENTRIES_PREFIX_IGNORED, SCAN_LIST_ANS_ENTRIES_USER_MISSING } from './faults-thin.js';
import { FrameworkRejection, HttpError, installJsonErrors, routeNotFound, intParam, isPlainObject, objectBody, queryParam, sendError, undecodable, wildcardSegment } from '../data/http.js';
import { compareVersions, parseIsoMicros } from '../data/seed.js';
import { sharedScanData } from '../data/shared.js';
import { SCAN_EVENTS_BAD_RECORD_TIME_500 } from './faults-robustness.js';
import { listActivities, seedActivities } from './activities.js';
import { ScanHistory } from './history.js';
import { DAML_VALUE_ENCODINGS, type DamlValueEncoding } from './values.js';
import { SCAN_EVENT_REQUEST_FAULTS as RF } from './faults-event-requests.js';
import { scanAnsFaults } from './faults-ans.js';
import { installScanHttpFaults } from './faults-http.js';
import { installScanBodyFaults } from './faults-wire.js';
import { licenseFaults, SCAN_LICENSE_FAULTS as LF } from './faults-licenses.js';
import { TEMPLATES } from '../data/templates.js';
import { SCAN_ACTIVITY_FAULTS as AF } from './faults-activities.js';
import { applyEventFaults, listEventFaults, SCAN_EVENT_FAULTS as EF } from './faults-events.js';

const histories = new WeakMap<ReferenceContext['world'], ScanHistory>();

/** the scan event history of a server (built once per world) */
export function scanHistory(ctx: ReferenceContext): ScanHistory {
  let h = histories.get(ctx.world);
  if (h === undefined) {
    h = new ScanHistory(ctx.world);
    histories.set(ctx.world, h);
  }
  return h;
}

/** the encoding a request names; another value does not decode (the query parameter or the body field is an enum) */
function encoding(raw: unknown, where: 'query' | 'body'): DamlValueEncoding {
  if (raw === undefined || (raw === null && where === 'body')) return 'compact_json';
  if (typeof raw === 'string' && (DAML_VALUE_ENCODINGS as readonly string[]).includes(raw)) return raw as DamlValueEncoding;
  const expected = `one of ${DAML_VALUE_ENCODINGS.join(', ')}`;
  if (where === 'query') throw new FrameworkRejection(400, `The query parameter 'daml_value_encoding' was malformed: expected ${expected}`);
  throw undecodable('daml_value_encoding', `is not ${expected}`);
}

/** Scan API routes of the reference server (paths relative to its base address). */
export async function scanRoutes(app: FastifyInstance, ctx: ReferenceContext): Promise<void> {
  installJsonErrors(app);
  installScanHttpFaults(app, ctx.faults);
  installScanBodyFaults(app, ctx.faults);
  const data = sharedScanData(ctx);
  const history = scanHistory(ctx);
  const activitiesAvailable = compareVersions(ctx.options.scanVersion, '0.6.8') < 0 ? !ctx.faults.has(AF.removedEarly) : ctx.faults.has(AF.stillServed);
  const activities = activitiesAvailable ? seedActivities(ctx.world) : [];

  // the Splice release this scan runs, under its base path and without a token (FACTS.md): a suite reads it here
  app.get('/version', async (_req, reply) => reply.send({ version: ctx.options.scanVersion, commit_ts: '2025-06-02T09:30:00Z' }));

  app.get('/v0/events/*', async (req, reply) => {
    const id = wildcardSegment(req.params);
    if (id === undefined) throw routeNotFound(req);
    const rawEnc = queryParam(req.query, 'daml_value_encoding');
    if (rawEnc === 'protobuf_json' && ctx.faults.has(EF.encodings)) throw new HttpError(400, 'daml_value_encoding protobuf_json is not supported');
    const enc =
      rawEnc === undefined && ctx.faults.has(EF.defaultEncoding)
        ? 'protobuf_json'
        : ctx.faults.has(EF.invalidEncoding) && rawEnc !== undefined && !(DAML_VALUE_ENCODINGS as readonly string[]).includes(rawEnc)
          ? 'compact_json'
          : encoding(rawEnc, 'query');
    const ev = history.get(id);
    if (ev === undefined && ctx.faults.has(EF.unknownId)) return reply.send({ update: null, verdict: null, traffic_summary: null, app_activity_records: null });
    if (ev === undefined && ctx.faults.has(EF.unknownId400)) return sendError(reply, 400, `update ${id} not found`);
    if (ev === undefined || (ev.migrationId === 1 && ctx.faults.has(EF.resolvable))) return sendError(reply, 404, `update ${id} not found`);
    return reply.send(applyEventFaults(history.render(ev, enc), { faults: ctx.faults, mode: 'get', encoding: enc, rejectedVerdict: history.verdicts.rejected.find((v) => v.update_id === ev.updateId) }));
  });

  app.post('/v0/events', async (req, reply) => {
    const body = objectBody(req.body, false);
    const pageSize = body.page_size;
    if (typeof pageSize !== 'number' || !Number.isInteger(pageSize)) throw undecodable('page_size', 'is missing or not an integer');
    const maxPageSize = ctx.faults.has(EF.listPageSize) ? Math.floor(ctx.world.variant.scanMaxPageSize / 2) : ctx.world.variant.scanMaxPageSize;
    if (ctx.faults.has(RF.pageSizeZero) && pageSize === 0) return reply.send({ events: [] });
    if (pageSize < 1 || pageSize > maxPageSize) throw new HttpError(400, `page_size must be between 1 and ${ctx.world.variant.scanMaxPageSize}`);
    const enc = encoding(body.daml_value_encoding, 'body');
    let after: { migrationId: number; recordMicros: number } | undefined;
    if (body.after !== undefined && body.after !== null) {
      if (!isPlainObject(body.after)) throw undecodable('after', 'is not an object');
      const rawM = body.after.after_migration_id;
      const m = ctx.faults.has(RF.migrationOptional) && rawM === undefined ? 0 : ctx.faults.has(RF.migrationFraction) && typeof rawM === 'number' ? Math.trunc(rawM) : rawM;
      const t = body.after.after_record_time;
      if (typeof m !== 'number' || !Number.isInteger(m)) throw undecodable('after.after_migration_id', 'is missing or not an integer');
      // int64: a JSON number beyond it does not decode (read as a double, the int64 bounds themselves round to 2^63)
      if (Math.abs(m) > 2 ** 63 && !ctx.faults.has(EF.migrationBeyondInt64)) throw undecodable('after.after_migration_id', 'is not a 64-bit integer');
      if (typeof t !== 'string') throw undecodable('after.after_record_time', 'is missing or not a string');
      const micros = parseIsoMicros(t);
      if (micros === undefined && ctx.faults.has(SCAN_EVENTS_BAD_RECORD_TIME_500)) throw new HttpError(500, 'internal server error');
      if (micros === undefined) throw new HttpError(400, 'after.after_record_time must be an ISO-8601 date-time');
      after = { migrationId: m, recordMicros: micros };
    }
    const events = listEventFaults(history.events, history.listAfter(after, pageSize), after, pageSize, ctx.faults)
      .map((e) => applyEventFaults(history.render(e, enc), { faults: ctx.faults, mode: 'list', rejectedVerdict: history.verdicts.rejected.find((v) => v.update_id === e.updateId) }));
    if (ctx.faults.has(XF.emptyListings) || ctx.faults.has(XF.eventsEmpty)) return reply.send({ events: [] });
    return reply.send(ctx.faults.has(EF.listSchema) ? { items: events } : { events });
  });

  app.get(
    '/v0/ans-entries',
    listAnsEntriesHandler(data.ans, {
      maxPageSize: ctx.world.variant.scanMaxPageSize,
      empty: ctx.faults.has(XF.emptyListings),
      prefixDropsMatching: ctx.faults.has(XF.prefixDropsMatching),
      pageSizeExceeded: ctx.faults.has(SCAN_LIST_ANS_ENTRIES_PAGE_SIZE_EXCEEDED),
      prefixIgnored: ctx.faults.has(SCAN_LIST_ANS_ENTRIES_PREFIX_IGNORED),
      userMissing: ctx.faults.has(SCAN_LIST_ANS_ENTRIES_USER_MISSING),
      ...scanAnsFaults(ctx.faults),
    }),
  );

  const lf = licenseFaults(ctx.faults, ctx.world.variant.scanMaxPageSize);
  app.get('/v0/admin/validator/licenses', async (req, reply) => {
    const limit = intParam(req.query, 'limit', { min: lf.min, max: lf.max, required: false, default: lf.defaultLimit })!;
    const afterRaw = queryParam(req.query, 'after');
    let after: number | undefined;
    if (afterRaw !== undefined) {
      const malformed = () => new FrameworkRejection(400, `The query parameter 'after' was malformed: ${JSON.stringify(afterRaw.slice(0, 40))} is not a 64-bit integer`);
      if (!(lf.has(LF.afterBeyondInt64) ? /^-?\d{1,24}$/ : /^-?\d{1,19}$/).test(afterRaw)) throw malformed();
      const big = BigInt(afterRaw);
      if ((big > 9223372036854775807n || big < -9223372036854775808n) && !lf.has(LF.afterBeyondInt64)) throw malformed();
      after = big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : big < 0n ? 0 : Number(big);
    }
    const page = data.licenses.page(after !== undefined && lf.has(LF.skipOne) ? after - 1 : after, Math.max(0, limit + (lf.has(LF.plusOne) ? 1 : 0)));
    let licenses: Record<string, unknown>[] = page.licenses as unknown as Record<string, unknown>[];
    if (ctx.faults.has(XF.emptyListings)) return reply.send({ validator_licenses: [], next_page_token: null });
    if (ctx.faults.has(XF.licenseHidden) && data.licenses.size > 0) {
      const oldest = data.licenses.license(1).contract_id;
      licenses = licenses.filter((l) => l.contract_id !== oldest);
    }
    if (lf.has(LF.reversed)) licenses = [...licenses].reverse();
    if (lf.has(LF.template)) licenses = licenses.map((l, k) => (k % 10 === 3 ? { ...l, template_id: TEMPLATES.featuredAppRight } : l));
    if (lf.has(LF.schema)) licenses = licenses.map(({ created_event_blob: _b, ...rest }) => rest);
    // an unset next_page_token is null, as Splice's encoder writes unset optional fields
    const body: Record<string, unknown> = { validator_licenses: licenses, next_page_token: null };
    if (page.next !== undefined && !(after !== undefined && lf.has(LF.tokenDropped))) body.next_page_token = page.next;
    // without look-ahead (Splice, FACTS.md) every page that holds a license carries a token: the last page of licenses
    // names its last license (sequence number 1), and the page after it is empty and carries none
    if (ctx.world.variant.licensePages === 'no-look-ahead' && page.next === undefined && licenses.length > 0) body.next_page_token = 1;
    if (lf.has(LF.tokenLoops) && page.next === undefined) {
      // the last page of licenses names its last license (sequence number 1); the empty page after it repeats the token
      if (licenses.length > 0) body.next_page_token = 1;
      else if (after !== undefined) body.next_page_token = after;
    }
    return reply.send(body);
  });

  app.post('/v0/activities', async (req, reply) => {
    if (!activitiesAvailable) return sendError(reply, ctx.faults.has(AF.gone410) ? 410 : 404, 'POST /v0/activities was removed in scan 0.6.8');
    const body = objectBody(req.body, false);
    const ps = body.page_size === undefined && ctx.faults.has(AF.pageSizeDefault) ? 10 : body.page_size;
    if (typeof ps !== 'number' || !Number.isInteger(ps)) throw undecodable('page_size', 'is missing or not an integer');
    if (ps < 1) throw new HttpError(400, 'page_size must be positive');
    const begin = body.begin_after_id;
    if (begin !== undefined && begin !== null && typeof begin !== 'string') throw undecodable('begin_after_id', 'is not a string');
    const ordered = ctx.faults.has(AF.ascending) ? [...activities].reverse() : activities;
    // the inclusive fault lists from the given id on: the activity just above it sorts below the id plus a suffix
    const from = typeof begin === 'string' ? (ctx.faults.has(AF.inclusive) ? `${begin}\u0000` : begin) : undefined;
    let listed = listActivities(ordered, from, ps + (ctx.faults.has(AF.plusOne) ? 1 : 0));
    if (ctx.faults.has(AF.ascending) && from !== undefined) listed = ordered.filter((a) => a.event_id < from).slice(0, ps).map((a) => structuredClone(a));
    if (ctx.faults.has(AF.schema)) listed = listed.map((a) => ({ ...a, round: String(a.round) }));
    if (ctx.faults.has(AF.twoKinds)) listed = listed.map((a) => ('mint' in a ? { ...a, tap: structuredClone(a.mint) } : a));
    if (ctx.faults.has(AF.oldestHidden)) listed = listed.filter((a) => a.event_id !== activities[activities.length - 1]?.event_id);
    if (ctx.faults.has(AF.emptyItem) && listed.length > 0) listed = [{} as (typeof listed)[number], ...listed.slice(1)];
    return reply.send({ activities: ctx.faults.has(XF.emptyListings) ? [] : listed });
  });
}
