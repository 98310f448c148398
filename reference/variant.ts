/**
 * Reference variants: the reference server makes, at random from a seed, every choice SPEC.md and FACTS.md leave open,
 * so that the self-test proves the suite clean on many allowed servers, not on one. A check that fails on a variant
 * depends on a choice the specification leaves open: a false failure waiting for a vendor.
 *
 * Most choices live in one fastify layer over the JSON bodies (installVariantLayer): field order, extra record fields,
 * null sent as absent, page tokens of another form, JSON instead of text/plain where either is allowed. The others are
 * read where the choice lives (the refused-user status in ledger/http.ts, limits in ledger/version.ts and the modules
 * that enforce them, ids and resource versions through the World).
 *
 * A variant is deterministic: the same request is answered the same way twice (some checks compare two answers).
 */
import { createHash, createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface Variant {
  /** the seed; undefined for the default reference */
  seed: number | undefined;
  /** status for a token whose user is deactivated or unknown (FACTS.md: 401 or 403) */
  refusedUserStatus: 401 | 403;
  /**
   * an optional response field without a value: as built, left out, or sent as JSON null also where the default
   * reference leaves it out (scan's last-page next_page_token, excluded registry debug fields)
   */
  unsetOptional: 'as-built' | 'absent' | 'null';
  /** scan's ANS listings add the DSO's own entry (no contract_id, no expiry) when a page has room (FACTS.md) */
  dsoEntries: boolean;
  /** the version string of GET /v2/version: as built (3.5.0), another patch (3.5.2) or a snapshot build */
  versionString: 'as-built' | 'patch' | 'snapshot';
  /** extra fields added to response records (FACTS.md: extra response fields are allowed) */
  extraFields: boolean;
  /** order of the fields of every response object */
  fieldOrder: 'as-built' | 'reversed' | 'shuffled';
  /** the form of the ledger's opaque page tokens (nextPageToken / pageToken) */
  pageTokens: 'as-built' | 'hex' | 'sealed';
  /** user resourceVersions: a counter (as built) or random-looking opaque strings */
  resourceVersions: 'counter' | 'random';
  /** maxima advertised in GET /v2/version and enforced */
  limits: { maxUsersPageSize: number; maxRightsPerUser: number; maxVettedPackagesPageSize: number };
  /** id formats: participant namespace, synchronizer ids, contract and update id shapes */
  ids: { namespace: string; synchronizers: string[]; partySalt: string; contractIds: 'as-built' | 'long-suffix'; updateIds: 'as-built' | 'plain-hex' };
  /** scan, validator and registry 400/401 rejected by the HTTP framework: text/plain (as built) or an {error} JSON body */
  frameworkErrors: 'as-built' | 'json';
  /** ledger 400 for a missing required field: a JsCantonError (as built) or text/plain */
  missingField: 'as-built' | 'text/plain';
  /** seeded data sizes (used when the options do not name them) */
  size: { ansEntries: number; validatorLicenses: number };
  /** ledger offsets: the first update's and the distance between two updates (as built 1 and 1) */
  offsets: { start: number; step: number };
  /** set-like response lists (rights, parties, synchronizers) in the order built or reversed */
  listOrder: 'as-built' | 'reversed';
  /** JSON content type: as built, with `; charset=utf-8`, or without parameters */
  contentType: 'as-built' | 'charset' | 'bare';
  /** error messages (`cause`, `error`, text/plain bodies): as built, or worded otherwise (their wording is free) */
  messages: 'as-built' | 'reworded';
  /** the removed /v0/activities: amulet_* names and devnet_tap as real scans send them, or SPEC.md's coin_* and tap */
  activityNames: 'as-built' | 'spec';
  /** scan's int64 license page token: the sequence number (as built) or another int64 that orders the same way */
  scanTokens: 'as-built' | 'scaled';
  /** ledger timestamps: six fractional digits (as built) or trailing zeros trimmed, as Java's Instant prints them */
  ledgerTimes: 'as-built' | 'trimmed';
  /**
   * a non-object where a ledger request expects a message: refused as undecodable (as built) or read as the empty
   * message and the request goes on (FACTS.md; reference/request-leniency.ts)
   */
  nonObjectMessages: 'as-built' | 'empty';
  /** a scan or validator request without a required query parameter: 400 (as built) or the framework's 404 text/plain */
  missingQuery: 'as-built' | '404';
  /**
   * scan's license pages: the last page of licenses without next_page_token (look-ahead, as built), or, as Splice pages,
   * a token on every page that holds a license, the page it leads to then empty and without one (FACTS.md)
   */
  licensePages: 'look-ahead' | 'no-look-ahead';
  /** scan's maximum page size, an operator's setting (FACTS.md: default 1000); the reference's target config names it */
  scanMaxPageSize: number;
  /**
   * a ledger command without its acting parties (no submitter, an empty actAs): refused 400 by validation (as built), or
   * checked against the token's rights first and refused 403, as a real participant does (FACTS.md)
   */
  authorization: 'as-built' | 'authorize-first';
}

export const DEFAULT_NAMESPACE = '1220aa00000000000000000000000000000000000000000000000000000000000001';

export const DEFAULT_VARIANT: Variant = Object.freeze({
  seed: undefined,
  refusedUserStatus: 403,
  unsetOptional: 'as-built',
  dsoEntries: false,
  versionString: 'as-built',
  extraFields: false,
  fieldOrder: 'as-built',
  pageTokens: 'as-built',
  resourceVersions: 'counter',
  limits: { maxUsersPageSize: 1000, maxRightsPerUser: 1000, maxVettedPackagesPageSize: 100 },
  ids: {
    namespace: DEFAULT_NAMESPACE,
    synchronizers: [
      'global-domain::1220bb00000000000000000000000000000000000000000000000000000000000001',
      'private-domain::1220bb00000000000000000000000000000000000000000000000000000000000002',
    ],
    partySalt: '',
    contractIds: 'as-built',
    updateIds: 'as-built',
  },
  frameworkErrors: 'as-built',
  missingField: 'as-built',
  size: { ansEntries: 200, validatorLicenses: 120 },
  offsets: { start: 1, step: 1 },
  listOrder: 'as-built',
  contentType: 'as-built',
  messages: 'as-built',
  ledgerTimes: 'as-built',
  scanTokens: 'as-built',
  activityNames: 'as-built',
  nonObjectMessages: 'as-built',
  missingQuery: 'as-built',
  licensePages: 'look-ahead',
  scanMaxPageSize: 1000,
  authorization: 'as-built',
}) as Variant;

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Every open choice with the options a variant draws from (the first is the default reference's). */
export const CHOICES = {
  'refused-user': [403, 401],
  'unset-optional': ['as-built', 'absent', 'null'],
  'dso-entries': [false, true],
  'version-string': ['as-built', 'patch', 'snapshot'],
  'extra-fields': [false, true],
  'field-order': ['as-built', 'reversed', 'shuffled'],
  'page-tokens': ['as-built', 'hex', 'sealed'],
  'resource-versions': ['counter', 'random'],
  'max-users-page': [1000, 500, 200, 100],
  // FACTS.md: at least 100, 0 for no limit
  'max-rights': [1000, 0, 250, 100],
  'max-vetted-page': [100, 50, 1000, 25],
  'sync-names': [
    ['global-domain', 'private-domain'],
    ['global-synchronizer', 'app-synchronizer'],
    ['sync1', 'sync2', 'sync3'],
    ['da', 'acme'],
  ],
  'contract-ids': ['as-built', 'long-suffix'],
  'update-ids': ['as-built', 'plain-hex'],
  'framework-errors': ['as-built', 'json'],
  'missing-field': ['as-built', 'text/plain'],
  offsets: [
    { start: 1, step: 1 },
    { start: 1_000_000_000_001, step: 7 },
    { start: 40, step: 3 },
  ],
  'list-order': ['as-built', 'reversed'],
  'content-type': ['as-built', 'charset', 'bare'],
  messages: ['as-built', 'reworded'],
  'ledger-times': ['as-built', 'trimmed'],
  'scan-tokens': ['as-built', 'scaled'],
  'activity-names': ['as-built', 'spec'],
  'non-object-messages': ['as-built', 'empty'],
  'missing-query': ['as-built', '404'],
  'license-pages': ['look-ahead', 'no-look-ahead'],
  'scan-max-page': [1000, 500, 250, 2000],
  authorization: ['as-built', 'authorize-first'],
} as const;
type Choice = keyof typeof CHOICES;

/** The index of the option a seed draws for a choice. */
function draw(seed: number, name: string, n: number): number {
  return Math.floor((Number.parseInt(sha(`variant:${seed}:${name}`).slice(0, 12), 16) / 2 ** 48) * n);
}

/** The variant of a seed: each choice drawn independently from a hash of the seed and the choice's name. */
export function chooseVariant(seed: number): Variant {
  const pick = <C extends Choice>(name: C): (typeof CHOICES)[C][number] => CHOICES[name][draw(seed, name, CHOICES[name].length)]!;
  const between = (name: string, lo: number, hi: number) => lo + draw(seed, name, hi - lo + 1);
  const ns = `1220${sha(`variant:${seed}:namespace`)}`;
  return {
    seed,
    refusedUserStatus: pick('refused-user'),
    unsetOptional: pick('unset-optional'),
    dsoEntries: pick('dso-entries'),
    versionString: pick('version-string'),
    extraFields: pick('extra-fields'),
    fieldOrder: pick('field-order'),
    pageTokens: pick('page-tokens'),
    resourceVersions: pick('resource-versions'),
    limits: { maxUsersPageSize: pick('max-users-page'), maxRightsPerUser: pick('max-rights'), maxVettedPackagesPageSize: pick('max-vetted-page') },
    ids: {
      namespace: ns,
      synchronizers: pick('sync-names').map((n, i) => `${n}::1220${sha(`variant:${seed}:sync:${i}`)}`),
      partySalt: `${seed}:`,
      contractIds: pick('contract-ids'),
      updateIds: pick('update-ids'),
    },
    frameworkErrors: pick('framework-errors'),
    missingField: pick('missing-field'),
    size: { ansEntries: between('ans-entries', 60, 400), validatorLicenses: between('licenses', 30, 260) },
    offsets: { ...pick('offsets') },
    listOrder: pick('list-order'),
    contentType: pick('content-type'),
    messages: pick('messages'),
    ledgerTimes: pick('ledger-times'),
    scanTokens: pick('scan-tokens'),
    activityNames: pick('activity-names'),
    nonObjectMessages: pick('non-object-messages'),
    missingQuery: pick('missing-query'),
    licensePages: pick('license-pages'),
    scanMaxPageSize: pick('scan-max-page'),
    authorization: pick('authorization'),
  };
}

/** The options of every choice that none of these seeds takes (empty: together they try every allowed option). */
export function untakenOptions(seeds: number[]): string[] {
  const out: string[] = [];
  for (const [name, options] of Object.entries(CHOICES) as Array<[Choice, readonly unknown[]]>) {
    const taken = new Set(seeds.map((s) => draw(s, name, options.length)));
    options.forEach((o, i) => {
      if (!taken.has(i)) out.push(`${name}=${JSON.stringify(o)}`);
    });
  }
  return out;
}

/** What a variant chose, for reports: only the choices that differ from the default reference. */
export function describeVariant(v: Variant): Record<string, string> {
  const d = DEFAULT_VARIANT;
  const out: Record<string, string> = {};
  if (v.refusedUserStatus !== d.refusedUserStatus) out.refusedUser = String(v.refusedUserStatus);
  if (v.unsetOptional !== d.unsetOptional) out.unsetOptional = v.unsetOptional;
  if (v.dsoEntries) out.dsoEntries = 'yes';
  if (v.versionString !== d.versionString) out.versionString = v.versionString;
  if (v.extraFields) out.extraFields = 'yes';
  if (v.fieldOrder !== d.fieldOrder) out.fieldOrder = v.fieldOrder;
  if (v.pageTokens !== d.pageTokens) out.pageTokens = v.pageTokens;
  if (v.resourceVersions !== d.resourceVersions) out.resourceVersions = v.resourceVersions;
  const l = v.limits;
  if (JSON.stringify(l) !== JSON.stringify(d.limits)) out.limits = `users page ${l.maxUsersPageSize}, rights ${l.maxRightsPerUser}, vetted page ${l.maxVettedPackagesPageSize}`;
  if (v.ids.namespace !== d.ids.namespace) out.ids = `synchronizers ${v.ids.synchronizers.map((s) => s.split('::')[0]).join(', ')}; other namespaces${v.ids.contractIds !== 'as-built' ? `; contract ids ${v.ids.contractIds}` : ''}${v.ids.updateIds !== 'as-built' ? `; update ids ${v.ids.updateIds}` : ''}`;
  if (v.frameworkErrors !== d.frameworkErrors) out.frameworkErrors = v.frameworkErrors;
  if (v.missingField !== d.missingField) out.missingField = v.missingField;
  if (JSON.stringify(v.size) !== JSON.stringify(d.size)) out.size = `${v.size.ansEntries} ANS entries, ${v.size.validatorLicenses} licenses`;
  if (JSON.stringify(v.offsets) !== JSON.stringify(d.offsets)) out.offsets = `from ${v.offsets.start}, step ${v.offsets.step}`;
  if (v.listOrder !== d.listOrder) out.listOrder = v.listOrder;
  if (v.contentType !== d.contentType) out.contentType = v.contentType;
  if (v.messages !== d.messages) out.messages = v.messages;
  if (v.ledgerTimes !== d.ledgerTimes) out.ledgerTimes = v.ledgerTimes;
  if (v.scanTokens !== d.scanTokens) out.scanTokens = v.scanTokens;
  if (v.activityNames !== d.activityNames) out.activityNames = v.activityNames;
  if (v.nonObjectMessages !== d.nonObjectMessages) out.nonObjectMessages = v.nonObjectMessages;
  if (v.missingQuery !== d.missingQuery) out.missingQuery = v.missingQuery;
  if (v.licensePages !== d.licensePages) out.licensePages = v.licensePages;
  if (v.scanMaxPageSize !== d.scanMaxPageSize) out.scanMaxPageSize = String(v.scanMaxPageSize);
  if (v.authorization !== d.authorization) out.authorization = v.authorization;
  return out;
}

export const variantText = (v: Variant): string =>
  v.seed === undefined
    ? 'default reference'
    : `variant ${v.seed}: ${Object.entries(describeVariant(v))
        .map(([k, x]) => `${k} ${x}`)
        .join('; ')}`;

// --- ids and versions the modules draw through the World ---

/** A ledger contract id of the variant's form ("00" + 64 hex digits, maybe a suffix). */
export function variantContractId(v: Variant, seed: string): string {
  const base = `00${sha(`contract:${seed}`)}`;
  return v.ids.contractIds === 'long-suffix' ? `${base}ca12${sha(`suffix:${v.seed}:${seed}`)}` : base;
}

/** A ledger update id of the variant's form ("1220" + 64 hex digits, or 64 hex digits). */
export function variantUpdateId(v: Variant, seed: string): string {
  const h = sha(`update:${seed}`);
  return v.ids.updateIds === 'plain-hex' ? sha(`${v.seed}:${h}`) : `1220${h}`;
}

/** The n-th resourceVersion: the counter, or an opaque string unique to n. */
export function variantResourceVersion(v: Variant, n: number): string {
  return v.resourceVersions === 'random' ? sha(`rv:${v.seed}:${n}`).slice(0, 8 + (n % 9)) : String(n);
}

// --- page tokens ---

/** A token the ledger modules cannot have issued: what an outer token that does not decode stands for. */
const INVALID_INNER = '!';

function encodeToken(v: Variant, inner: string): string {
  if (inner === '' || v.pageTokens === 'as-built') return inner;
  if (v.pageTokens === 'hex') return Buffer.from(inner, 'utf8').toString('hex');
  const body = Buffer.from(inner, 'utf8').toString('base64');
  return `v1~${body}~${createHmac('sha256', `tokens:${v.seed}`).update(body).digest('hex').slice(0, 10)}`;
}

function decodeToken(v: Variant, outer: string): string {
  if (outer === '' || v.pageTokens === 'as-built') return outer;
  if (v.pageTokens === 'hex') return /^(?:[0-9a-f]{2})+$/.test(outer) ? Buffer.from(outer, 'hex').toString('utf8') : INVALID_INNER;
  const m = /^v1~([A-Za-z0-9+/=]+)~([0-9a-f]{10})$/.exec(outer);
  if (m === null || createHmac('sha256', `tokens:${v.seed}`).update(m[1]!).digest('hex').slice(0, 10) !== m[2]) return INVALID_INNER;
  return Buffer.from(m[1]!, 'base64').toString('utf8');
}

// --- the JSON layer ---

/** Daml values and other payloads: their content is the application's, never reshaped (only reordered). */
const PAYLOAD_KEYS = new Set([
  'createArgument', 'createArguments', 'create_arguments', 'choiceArgument', 'choice_argument', 'choiceArguments',
  'exerciseResult', 'exercise_result', 'payload', 'debugPayload', 'contractKey', 'viewValue', 'choiceContextData',
  'argument', 'arguments',
]);
/** Objects that are maps (their keys are data) or unions (exactly one key): no extra key is added to them. */
const MAP_OR_UNION_KEYS = new Set([
  'annotations', 'context', 'eventsById', 'events_by_id', 'filtersByParty', 'values', 'meta', 'transferLegs',
  'kind', 'identifierFilter', 'command', 'commands', 'headers', 'features', 'cumulative',
]);
/** Lists whose order SPEC.md and FACTS.md leave open (sets of parties, rights, synchronizers, disclosed contracts). */
const SET_LISTS = new Set([
  'rights', 'newlyGrantedRights', 'newlyRevokedRights', 'witnessParties', 'signatories', 'observers', 'actingParties',
  'connectedSynchronizers', 'implementedInterfaces', 'disclosedContracts', 'open_mining_rounds', 'issuing_mining_rounds',
  'submitting_parties', 'informees', 'acting_parties',
]);
/** Ledger timestamps (Java's Instant prints as many fractional digits as it needs). */
const LEDGER_TIMES = new Set(['effectiveAt', 'recordTime', 'createdAt']);
const trimTime = (s: string) => s.replace(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d*?)0*)?Z$/, (_, base: string, frac: string | undefined) => `${base}${frac ? `.${frac}` : ''}Z`);

/**
 * Optional ledger fields whose unset value the default reference sends as "" or false: a server may leave them out
 * (SPEC.md marks them optional; unset means the empty default).
 */
const EMPTY_OPTIONAL = new Map<string, unknown>([
  ['primaryParty', ''],
  ['identityProviderId', ''],
  ['workflowId', ''],
  ['isDeactivated', false],
  ['primaryPartyAuthentication', false],
]);

/** Fields that stay even when null (FACTS.md: scan's event record sends them as null). */
const KEEP_NULL = new Set(['update', 'verdict', 'traffic_summary', 'app_activity_records']);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isRecord = (x: unknown): x is Record<string, Json> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A union wrapper: one key naming the variant (`{CreatedEvent: {...}}`, `{CanActAs: {...}}`) or a lone `value`. */
const isUnionLike = (o: Record<string, Json>): boolean => {
  const keys = Object.keys(o);
  return keys.length === 1 && (/^[A-Z]/.test(keys[0]!) || keys[0] === 'value');
};

/** A key's place in a shuffled order, per variant (memoized: large answers repeat few keys many times). */
const ranks = new WeakMap<Variant, Map<string, string>>();
function rankOf(v: Variant, k: string): string {
  let m = ranks.get(v);
  if (m === undefined) ranks.set(v, (m = new Map()));
  let r = m.get(k);
  if (r === undefined) {
    r = sha(`order:${v.seed}:${k}`);
    if (m.size < 100_000) m.set(k, r);
  }
  return r;
}

function order(v: Variant, keys: string[]): string[] {
  if (v.fieldOrder === 'reversed') return [...keys].reverse();
  if (v.fieldOrder === 'shuffled') {
    const ranked = keys.map((k) => [rankOf(v, k), k] as const);
    ranked.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return ranked.map((r) => r[1]);
  }
  return keys;
}

interface Walk {
  v: Variant;
  snake: boolean;
  /** a ledger body (its timestamps may be trimmed) */
  ledger: boolean;
}

function reshape(w: Walk, x: Json, key: string | undefined, inPayload: boolean): Json {
  if (Array.isArray(x)) {
    const list = x.map((e) => reshape(w, e, undefined, inPayload));
    return !inPayload && w.v.listOrder === 'reversed' && key !== undefined && SET_LISTS.has(key) ? list.reverse() : list;
  }
  if (typeof x === 'string' && w.ledger && !inPayload && w.v.ledgerTimes === 'trimmed' && key !== undefined && LEDGER_TIMES.has(key)) return trimTime(x);
  if (!isRecord(x)) return x;
  const payload = inPayload || (key !== undefined && PAYLOAD_KEYS.has(key));
  const out: Record<string, Json> = {};
  for (const k of order(w.v, Object.keys(x))) {
    let val = x[k]!;
    if (!payload && val === null && w.v.unsetOptional === 'absent' && !KEEP_NULL.has(k)) continue;
    if (!payload && w.ledger && w.v.unsetOptional === 'absent' && EMPTY_OPTIONAL.has(k) && EMPTY_OPTIONAL.get(k) === val) continue;
    if (!payload && k === 'nextPageToken' && typeof val === 'string') val = encodeToken(w.v, val);
    out[k] = reshape(w, val, k, payload);
  }
  const mapOrUnion = key !== undefined && MAP_OR_UNION_KEYS.has(key);
  if (w.v.extraFields && !payload && !mapOrUnion && !isUnionLike(x) && Object.keys(x).length > 0) {
    out[w.snake ? 'variant_extra' : 'variantExtra'] = `extra field of reference variant ${w.v.seed}`;
  }
  return out;
}

function bodyText(payload: unknown): string | undefined {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined;
}

const pathOf = (req: FastifyRequest) => (req.raw.url ?? '').split('?')[0] ?? '';

/**
 * The JSON body of a request, for a layer that rewrites it (then set again as `req.body`, a Buffer); undefined when
 * there is none, it is over 1 MiB or it does not parse (the routes then answer it as they would).
 */
export async function requestJson(req: FastifyRequest): Promise<unknown> {
  let body = req.body;
  if (body === undefined && req.method === 'GET') {
    // a JSON body of a GET (GET /v2/package-vetting): fastify leaves it unread; read it here, within the same limit
    const len = Number(req.headers['content-length'] ?? '0');
    if (!(len > 0 && len <= 1024 * 1024)) return undefined;
    const chunks: Buffer[] = [];
    for await (const c of req.raw) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string));
    body = Buffer.concat(chunks);
    req.body = body;
  }
  if (!Buffer.isBuffer(body) || body.length > 1024 * 1024) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Rewrites the page token of a request (query or JSON body) from the variant's form to the one the modules issued. */
async function decodeRequestTokens(v: Variant, req: FastifyRequest): Promise<void> {
  const q = req.query as Record<string, unknown> | undefined;
  if (q !== null && typeof q === 'object' && typeof q.pageToken === 'string') q.pageToken = decodeToken(v, q.pageToken);
  const parsed = await requestJson(req);
  if (isRecord(parsed) && typeof parsed.pageToken === 'string' && parsed.pageToken !== '') {
    parsed.pageToken = decodeToken(v, parsed.pageToken);
    req.body = Buffer.from(JSON.stringify(parsed), 'utf8');
  }
}

/** Whether the request's JSON body names the field (snake_case in the error, camelCase on the wire) anywhere. */
function requestHasField(req: FastifyRequest, snake: string): boolean {
  const camel = snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : typeof req.body === 'string' ? req.body : undefined;
  if (body === undefined) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return true;
  }
  const seen = (x: unknown, depth: number): boolean => {
    if (depth > 20 || x === null || typeof x !== 'object') return false;
    if (Array.isArray(x)) return x.some((e) => seen(e, depth + 1));
    return Object.entries(x).some(([k, e]) => ((k === camel || k === snake) && e !== null && e !== '') || seen(e, depth + 1));
  };
  return seen(parsed, 0);
}

const LICENSES = '/api/scan/v0/admin/validator/licenses';
const SCAN_TOKEN_SCALE = 1000;
const DEBUG_FIELDS = ['debugPackageName', 'debugPayload', 'debugCreatedAt'];
const ANS_LISTINGS = new Set(['/api/scan/v0/ans-entries', '/api/validator/v0/scan-proxy/ans-entries']);

/** Choices that live in one endpoint's answer. */
function endpointChoices(v: Variant, dso: string, req: FastifyRequest, path: string, status: number, body: Json): void {
  if (status !== 200 || !isRecord(body)) return;
  if (v.scanTokens === 'scaled' && path === LICENSES && typeof body.next_page_token === 'number') body.next_page_token *= SCAN_TOKEN_SCALE;
  if (v.unsetOptional === 'null') {
    if (path === LICENSES && !('next_page_token' in body)) body.next_page_token = null;
    if (path.startsWith('/api/registry/')) {
      const ctx = isRecord(body.choiceContext) ? body.choiceContext : body;
      for (const d of Array.isArray(ctx.disclosedContracts) ? ctx.disclosedContracts : []) {
        if (isRecord(d)) for (const k of DEBUG_FIELDS) if (!(k in d)) d[k] = null;
      }
    }
  }
  if (v.activityNames === 'spec' && path === '/api/scan/v0/activities' && Array.isArray(body.activities)) {
    const rename = (x: Json): Json => {
      if (Array.isArray(x)) return x.map(rename);
      if (!isRecord(x)) return x;
      return Object.fromEntries(Object.entries(x).map(([k, e]) => [k.replace(/(^|_)amulet(_|$)/, '$1coin$2'), rename(e)]));
    };
    body.activities = body.activities.map((a) => {
      const r = rename(a);
      if (isRecord(r) && r.activity_type === 'devnet_tap') r.activity_type = 'tap';
      return r;
    });
  }
  // the validator's own listing has no order SPEC.md names
  if (v.listOrder === 'reversed' && path === '/api/validator/v0/entry/all' && Array.isArray(body.entries)) body.entries.reverse();
  // ContractWithState.domain_id is optional: a scan proxy may leave it out
  if (v.unsetOptional === 'absent' && path === '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds') {
    for (const list of [body.open_mining_rounds, body.issuing_mining_rounds]) for (const c of Array.isArray(list) ? list : []) if (isRecord(c)) delete c.domain_id;
  }
  if (v.dsoEntries && ANS_LISTINGS.has(path) && Array.isArray(body.entries)) {
    const q = (req.query ?? {}) as Record<string, unknown>;
    const prefix = typeof q.name_prefix === 'string' ? q.name_prefix : '';
    const pageSize = Number(q.page_size);
    const name = 'dso.cns';
    if (name.startsWith(prefix) && body.entries.length < pageSize && !body.entries.some((e) => isRecord(e) && e.name === name)) {
      body.entries.push({ user: dso, name, url: '', description: '', ...(v.unsetOptional === 'null' ? { expires_at: null } : {}) });
    }
  }
  if (v.versionString !== 'as-built' && path === '/v2/version' && typeof body.version === 'string') {
    const mm = body.version.split('.').slice(0, 2).join('.');
    body.version = v.versionString === 'patch' ? `${mm}.2` : `${mm}.0-SNAPSHOT.20261101.${v.seed}`;
  }
}

/** The variant's answer for a response the routes built: the same status, the body in the variant's form. */
function rewrite(v: Variant, dso: string, req: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const text = bodyText(payload);
  if (text === undefined) return payload;
  const path = pathOf(req);
  const api = path.startsWith('/api/');
  const ct = String(reply.getHeader('content-type') ?? '');
  const status = reply.statusCode;
  // the challenge's parameters are the server's (a realm, an error code)
  if (v.messages === 'reworded' && status === 401 && reply.hasHeader('www-authenticate')) void reply.header('www-authenticate', `Bearer realm="reference-variant-${v.seed}", error="invalid_token"`);
  if (/^text\/plain/i.test(ct)) {
    if (api && v.frameworkErrors === 'json' && (status === 400 || status === 401)) {
      void reply.header('content-type', 'application/json; charset=utf-8');
      return JSON.stringify(reshape({ v, snake: true, ledger: false }, { error: text === '' ? 'bad request' : text }, undefined, false));
    }
    if (v.contentType !== 'as-built') void reply.header('content-type', v.contentType === 'charset' ? 'text/plain; charset=utf-8' : 'text/plain');
    return v.messages === 'reworded' && status >= 400 ? `Bad request. ${text}` : payload;
  }
  if (!/^application\/json/i.test(ct) || text === '') return payload;
  let body: Json;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    return payload;
  }
  endpointChoices(v, dso, req, path, status, body);
  if (v.contentType !== 'as-built') void reply.header('content-type', v.contentType === 'charset' ? 'application/json; charset=utf-8' : 'application/json');
  if (v.messages === 'reworded' && status >= 400 && isRecord(body)) {
    if (typeof body.cause === 'string') body.cause = `Request refused (${body.cause})`;
    if (typeof body.error === 'string') body.error = `Request failed: ${body.error}`;
  }
  if (!api && v.missingField === 'text/plain' && status === 400 && isRecord(body) && body.code === 'MISSING_FIELD') {
    // only a field the request left out (a value sent but refused, like TRANSACTION_SHAPE_UNSPECIFIED, stays JSON)
    const field = isRecord(body.context) && typeof body.context.field_name === 'string' ? body.context.field_name : undefined;
    if (field !== undefined && !requestHasField(req, field)) {
      void reply.header('content-type', 'text/plain; charset=UTF-8');
      return `${v.messages === 'reworded' ? 'Bad request. ' : ''}Invalid value for: body (missing required field ${field})`;
    }
  }
  return JSON.stringify(reshape({ v, snake: api && !path.startsWith('/api/registry') && !path.includes('/v0/entry/'), ledger: !api }, body, undefined, false));
}

/** Installs the variant's JSON layer on the whole server (all four interfaces). Nothing for the default reference. */
export function installVariantLayer(app: FastifyInstance, v: Variant, dso: string): void {
  if (v.seed === undefined) return;
  if (v.pageTokens !== 'as-built') {
    app.addHook('preHandler', async (req) => {
      if (!pathOf(req).startsWith('/api/')) await decodeRequestTokens(v, req);
    });
  }
  if (v.scanTokens === 'scaled') {
    app.addHook('preHandler', async (req) => {
      const q = req.query as Record<string, unknown> | undefined;
      // a token it issued, or any int64 in between, maps back to the sequence number that orders the same way
      if (pathOf(req) === LICENSES && q !== undefined && typeof q.after === 'string' && /^\d{1,16}$/.test(q.after)) q.after = String(Math.floor(Number(q.after) / SCAN_TOKEN_SCALE));
    });
  }
  app.addHook('onSend', async (req, reply, payload) => rewrite(v, dso, req, reply, payload));
}
