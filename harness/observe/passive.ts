/**
 * The passive judge: every rule a single exchange can decide, applied to exchanges the suite did not send (a live
 * node's traffic through `observe`, a HAR capture through `judge`). These are the generic checks of harness/judging/checks.ts
 * (documented status, documented content type, body valid against the schema of its operation and status, no 5xx, the
 * ledger's status by gRPC code), run as a conformance run runs them, on the operation the request's method and path
 * name. Nothing else: a rule that needs a request of the suite's own, or more than one exchange, is not observed.
 *
 * Memory is bounded however many exchanges it judges: counts per requirement and per reason, a capped number of kept
 * failures per requirement (each with its recorded, redacted exchange), a capped list of requests outside the
 * specification. Bodies are judged only up to run.maxResponseBytes (on the wire and decoded).
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { isUtf8 } from 'node:buffer';
import { GENERIC_CHECKS, noServerError, statusDocumented, type GenericCheck } from '../judging/checks.js';
import type { Catalogue } from '../judging/catalogue.js';
import type { TargetConfig } from '../config.js';
import { redactedCut, toExchange, TransportError, type Exchange } from '../transport/http.js';
import { REDACTED, redactHeaders, redactText } from '../transport/redact.js';
import type { SchemaRegistry } from '../judging/schemas.js';
import type { Api, ExchangeRecord, FailureRecord } from '../types.js';
import { outOfRange } from '../judging/versions.js';
import { OperationMatcher } from './match.js';

/** One exchange as observed: what the request was and what came back, before any judging. */
export interface ObservedExchange {
  /** the interface, when the listener or a base URL says which; else it is matched by path */
  api?: Api;
  method: string;
  /** the URL the request went to (the target's): redacted before it is recorded */
  url: string;
  /** with `api`: the path relative to the interface's base URL; without: the whole path. Without the query. */
  path: string;
  requestHeaders: Record<string, string | string[] | undefined>;
  /** the start of the request body as text (a record keeps 8 KiB of it), or a description of a binary body */
  requestBody?: string;
  /** `requestBody` is the whole request body as sent (not cut, not a description): rules about the request may read it */
  requestBodyComplete?: boolean;
  startedAt: string;
  durationMs: number;
  /** no answer (refused, reset, cut off): nothing to judge */
  error?: string;
  status?: number;
  /** lower-case names; repeated headers joined with ", " */
  responseHeaders?: Record<string, string>;
  /** the body as received: still content-encoded unless `decoded` */
  body?: Buffer;
  decoded?: boolean;
  /** why the body cannot be judged (larger than the cap, cut off): only the rules that need no body are judged */
  bodyNotJudged?: string;
}

export interface PassiveJudgeOptions {
  schemas: SchemaRegistry;
  catalogue: Catalogue;
  /** the configured targets: a requirement a target switched off, or outside its version, is not judged on it */
  targets: Partial<Record<Api, Pick<TargetConfig, 'version' | 'disabledRequirements'>>>;
  maxResponseBytes: number;
  maxJsonDepth: number;
  /** failures kept (with their exchange) per requirement; the ones beyond are counted */
  maxKeptFailures?: number;
}

export const DEFAULT_MAX_KEPT_FAILURES = 20;
/** distinct requests outside the specification listed by method and path; the ones beyond are counted */
const MAX_LISTED_NOT_IN_SPEC = 50;
/** the rules a response decides by its status alone, judged on a response whose body is not */
const STATUS_CHECKS: readonly GenericCheck[] = [noServerError, statusDocumented];

export const MALFORMED_REQUIREMENT = 'ledger.errors.malformed-request-text-plain';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** an int64 as the ledger writes it: a JSON number or a decimal string */
const isInt64 = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v));

/**
 * The shape of a successful answer where the catalogue asks more than the OpenAPI document's schema (which stays
 * lenient where released servers differ): the same single-exchange rules the suite's checks judge on these answers,
 * on the same response-schema requirement. Keyed by interface and operation; a message when the body breaks it.
 */
const CATALOGUE_SHAPES: Record<string, { requirement: string; check: (json: unknown) => string | undefined }> = {
  'ledger getPackageVetting': { requirement: 'ledger.get-package-vetting.response-schema', check: (j) => vettingShape(j) },
  'ledger listPackageVetting': { requirement: 'ledger.list-package-vetting.response-schema', check: (j) => vettingShape(j) },
  'ledger updateTrafficAccount': {
    requirement: 'ledger.update-traffic-account.response-schema',
    check: (j) => {
      const r = isObj(j) && isObj(j.response) ? j.response : undefined;
      if (r === undefined) return isObj(j) && 'balance' in j ? 'the update answers the account without the response wrapper SPEC.md gives ({response: {accountId, balance}})' : 'the update answers no {response: {accountId, balance}}';
      return isInt64(r.balance) ? undefined : `balance ${JSON.stringify(r.balance)} is not an integer`;
    },
  },
  'ledger getTrafficAccount': {
    requirement: 'ledger.get-traffic-account.response-schema',
    check: (j) => {
      if (!isObj(j)) return 'the read answers no object';
      if (!('accountId' in j) && !('balance' in j) && isObj(j.response)) return 'the read wraps the account in response, as the update does: FACTS.md says a read answers {accountId, balance} itself';
      return typeof j.accountId === 'string' && isInt64(j.balance) ? undefined : `the read answers accountId ${JSON.stringify(j.accountId)} and balance ${JSON.stringify(j.balance)}, not an account id and an integer`;
    },
  },
};

function vettingShape(j: unknown): string | undefined {
  if (!isObj(j) || !Array.isArray(j.vettedPackages)) return 'the response has no vettedPackages list';
  return typeof j.nextPageToken === 'string' ? undefined : 'the response has no string nextPageToken';
}
/**
 * Answers that say nothing about how the target treats a malformed body: the credentials come first (401, 403), a
 * route not served (404, 405), a request the target did not read (408, 413), overload (429, 503) and redirects.
 */
const NOT_ABOUT_THE_BODY = new Set([401, 403, 404, 405, 408, 413, 429, 503]);

/**
 * The ledger's rule on malformed input, judged on a request the capture holds whole: a JSON request body of an
 * operation that takes one, which does not parse as JSON, must be answered 400 with a text/plain message (SPEC.md:
 * Errors). Only JSON that does not parse is judged here: whether a value is of the wrong JSON type depends on how
 * leniently the target decodes (FACTS.md), which a passive judge cannot tell. Undefined: the exchange does not decide it.
 */
export function judgeMalformedRequest(
  x: Pick<ObservedExchange, 'method' | 'path' | 'requestHeaders' | 'requestBody' | 'requestBodyComplete'>,
  status: number,
  headers: Record<string, string>,
  body: Buffer | undefined,
  takesJsonBody: boolean,
): { requirement: string; message?: string } | undefined {
  if (!takesJsonBody || x.requestBodyComplete !== true || x.requestBody === undefined) return undefined;
  const text = x.requestBody;
  // a body the redaction changed cannot be read as sent
  if (text.trim() === '' || text.includes(REDACTED)) return undefined;
  const type = x.requestHeaders['content-type'];
  const mediaType = (Array.isArray(type) ? type[0] : type)?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    // JSON that does not parse: the rule applies
  }
  if (NOT_ABOUT_THE_BODY.has(status) || (status >= 300 && status < 400)) return undefined;
  const answered = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  const what = `${x.method.toUpperCase()} ${x.path} with a JSON body that does not parse`;
  if (status !== 400) return { requirement: MALFORMED_REQUIREMENT, message: `${what} was answered ${status}, not 400 with a text/plain message` };
  if (answered !== 'text/plain') return { requirement: MALFORMED_REQUIREMENT, message: `${what} was answered 400 with Content-Type ${answered ?? '(none)'}, not text/plain` };
  // the message's emptiness is the body's rule: judged where the body was (the schema of the text/plain 400 says it too)
  if (body !== undefined && body.toString('utf8').trim() === '') return { requirement: MALFORMED_REQUIREMENT, message: `${what} was answered 400 text/plain with an empty message` };
  return { requirement: MALFORMED_REQUIREMENT };
}

export interface RequirementTally {
  /** exchanges that judged the requirement */
  judged: number;
  /** exchanges that broke it */
  failed: number;
  /** the first failures, each with its recorded exchange */
  kept: FailureRecord[];
  /** per operation, how many of its exchanges broke it */
  failedOperations: Record<string, number>;
}

export interface TrafficTally {
  requests: number;
  /** answered with 429 or 503 */
  overloaded: number;
  redirected: number;
  /** no answer */
  transportErrors: number;
}

/** What the passive judge has seen so far: sums only, bounded. */
export interface PassiveTally {
  exchanges: number;
  /** exchanges of an operation of the specification, with an answer, judged */
  judged: number;
  byApi: Partial<Record<Api, TrafficTally>>;
  requirements: Map<string, RequirementTally>;
  /** requests no operation of the specification has (method and path), by method and path, at most MAX_LISTED_NOT_IN_SPEC */
  notInSpecification: Map<string, number>;
  notInSpecificationTotal: number;
  /** exchanges (or their bodies) not judged, by reason */
  notJudged: Map<string, number>;
  firstAt?: string;
  lastAt?: string;
}

/** Decodes a Content-Encoding (gzip, deflate, br; several in turn) within `max` bytes; an error names why not. */
export function decodeContent(body: Buffer, encoding: string | undefined, max: number): Buffer | { notJudged: string } {
  let buf = body;
  const codings = (encoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  for (const coding of codings.reverse()) {
    const decode = coding === 'gzip' || coding === 'x-gzip' ? gunzipSync : coding === 'deflate' ? inflateSync : coding === 'br' ? brotliDecompressSync : undefined;
    if (decode === undefined) return buf;
    try {
      buf = decode(buf, { maxOutputLength: max });
    } catch (e) {
      const err = e as Error & { code?: string };
      if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) return { notJudged: `body larger than ${max} bytes (run.maxResponseBytes) once its ${coding} content encoding is decoded` };
      return { notJudged: `body says Content-Encoding ${coding} but does not decode` };
    }
  }
  return buf;
}

export class PassiveJudge {
  readonly tally: PassiveTally = { exchanges: 0, judged: 0, byApi: {}, requirements: new Map(), notInSpecification: new Map(), notInSpecificationTotal: 0, notJudged: new Map() };
  readonly matcher: OperationMatcher;
  private readonly maxKept: number;
  /** per ledger operation, whether it takes a JSON request body */
  private readonly jsonBodies = new Map<string, boolean>();

  constructor(private readonly o: PassiveJudgeOptions) {
    this.matcher = new OperationMatcher(o.schemas);
    this.maxKept = o.maxKeptFailures ?? DEFAULT_MAX_KEPT_FAILURES;
  }

  /** Counts an exchange (or part of one) not judged, by reason: an upgraded connection, an unreadable entry. */
  notJudged(reason: string): void {
    this.tally.notJudged.set(reason, (this.tally.notJudged.get(reason) ?? 0) + 1);
  }

  /** Whether a requirement is judged on the target of its interface (not switched off, within its version range). */
  private judgedHere(api: Api, id: string): boolean {
    const target = this.o.targets[api];
    if (target === undefined) return true;
    if (target.disabledRequirements.includes(id)) return false;
    const r = this.o.catalogue.byId.get(id);
    return r === undefined || outOfRange(target.version, r.since, r.until) === undefined;
  }

  private requirement(id: string): RequirementTally {
    let t = this.tally.requirements.get(id);
    if (t === undefined) {
      t = { judged: 0, failed: 0, kept: [], failedOperations: {} };
      this.tally.requirements.set(id, t);
    }
    return t;
  }

  /** Judges one exchange: every rule it can decide, on the operation its method and path name. */
  judge(x: ObservedExchange): void {
    const t = this.tally;
    t.exchanges++;
    t.firstAt ??= x.startedAt;
    t.lastAt = x.startedAt;
    const found = x.api !== undefined ? { api: x.api, path: x.path, operation: this.matcher.match(x.api, x.method, x.path) } : this.matcher.matchByPath(x.method, x.path);
    if (found !== undefined) {
      const traffic = (t.byApi[found.api] ??= { requests: 0, overloaded: 0, redirected: 0, transportErrors: 0 });
      traffic.requests++;
      if (x.status === undefined) traffic.transportErrors++;
      else if (x.status === 429 || x.status === 503) traffic.overloaded++;
      else if (x.status >= 300 && x.status < 400) traffic.redirected++;
    }
    const operation = found?.operation;
    if (found === undefined || operation === undefined) {
      t.notInSpecificationTotal++;
      const key = `${x.method.toUpperCase()} ${found !== undefined ? `${found.api} ${found.path}` : x.path}`;
      const listed = t.notInSpecification.get(key);
      if (listed !== undefined) t.notInSpecification.set(key, listed + 1);
      else if (t.notInSpecification.size < MAX_LISTED_NOT_IN_SPEC) t.notInSpecification.set(redactText(key), 1);
      return;
    }
    const api = found.api;
    if (x.status === undefined) {
      this.notJudged(`no answer${x.error !== undefined ? ` (${x.error.replace(/:.*$/, '')})` : ''}`);
      return;
    }
    const headers = x.responseHeaders ?? {};
    let body: Buffer | undefined = x.body ?? Buffer.alloc(0);
    let bodyNotJudged = x.bodyNotJudged;
    if (bodyNotJudged === undefined && x.decoded !== true) {
      const d = decodeContent(body, headers['content-encoding'], this.o.maxResponseBytes);
      if (Buffer.isBuffer(d)) body = d;
      else bodyNotJudged = d.notJudged;
    }
    if (bodyNotJudged === undefined && body.length > this.o.maxResponseBytes) bodyNotJudged = `body larger than ${this.o.maxResponseBytes} bytes (run.maxResponseBytes)`;
    let recorded: ExchangeRecord | undefined;
    const record = (): ExchangeRecord => (recorded ??= this.record(x, api, operation.operationId, bodyNotJudged === undefined ? body : undefined, bodyNotJudged));
    let exchange: Exchange;
    let checks: readonly GenericCheck[] = GENERIC_CHECKS;
    if (bodyNotJudged !== undefined) {
      this.notJudged(`body not judged: ${bodyNotJudged}`);
      body = undefined;
      // the status rules still judge it; a 404 or 405 whose body cannot be read says nothing (as a route not served)
      exchange = this.lazyRecord({ api, operationId: operation.operationId, status: x.status, headers, text: '(not judged)', ...mediaOf(headers) }, record);
      checks = STATUS_CHECKS;
    } else {
      const text = body!.toString('utf8');
      try {
        exchange = toExchange(api, operation.operationId, x.status, headers, text, EMPTY_RECORD, this.o.maxJsonDepth, '', !isUtf8(body!));
      } catch (e) {
        // nested deeper than run.maxJsonDepth: a conformance run judges nothing on such an answer either
        this.notJudged(e instanceof TransportError ? `not judged: JSON nested deeper than ${this.o.maxJsonDepth} levels (run.maxJsonDepth)` : `not judged: ${(e as Error).message}`);
        return;
      }
      Object.defineProperty(exchange, 'record', { get: record, enumerable: true, configurable: true });
    }
    t.judged++;
    // harness/judging/checks.ts's runGenericChecks, but a failure's record is made only where it is kept
    const failedHere = new Set<string>();
    const judgedHere = new Set<string>();
    type Judged = { requirement: string; message?: string };
    const judgements: Array<{ name: string; run: () => Judged | readonly Judged[] | undefined }> = checks.map((c) => ({ name: c.name, run: () => c.run({ exchange, operation, schemas: this.o.schemas }) }));
    if (api === 'ledger') judgements.push({ name: 'malformedRequest', run: () => judgeMalformedRequest(x, x.status!, headers, body, this.takesJsonBody(api, operation.operationId)) });
    const shape = CATALOGUE_SHAPES[`${api} ${operation.operationId}`];
    if (shape !== undefined && x.status === 200 && bodyNotJudged === undefined && exchange.mediaType === 'application/json' && exchange.json !== undefined) {
      judgements.push({ name: 'catalogueShape', run: () => ({ requirement: shape.requirement, message: shape.check(exchange.json) }) });
    }
    for (const c of judgements) for (const j of ([] as Judged[]).concat((c.run() ?? []) as Judged | Judged[])) {
      if (!this.judgedHere(api, j.requirement)) continue;
      if (!judgedHere.has(j.requirement)) {
        judgedHere.add(j.requirement);
        this.requirement(j.requirement).judged++;
      }
      if (j.message === undefined || failedHere.has(j.requirement)) continue;
      failedHere.add(j.requirement);
      const r = this.requirement(j.requirement);
      r.failed++;
      r.failedOperations[operation.operationId] = (r.failedOperations[operation.operationId] ?? 0) + 1;
      // a message may quote the body: redacted like the recorded exchange
      if (r.kept.length < this.maxKept) r.kept.push({ requirement: j.requirement, message: redactText(j.message), check: c.name, exchange: record() });
    }
  }

  private takesJsonBody(api: Api, operationId: string): boolean {
    let v = this.jsonBodies.get(operationId);
    if (v === undefined) {
      try {
        v = this.o.schemas.requestBodyValidator(api, operationId) !== undefined;
      } catch {
        v = false;
      }
      this.jsonBodies.set(operationId, v);
    }
    return v;
  }

  private lazyRecord(x: Omit<Exchange, 'record'>, record: () => ExchangeRecord): Exchange {
    const out = x as Exchange;
    Object.defineProperty(out, 'record', { get: record, enumerable: true, configurable: true });
    return out;
  }

  /** The recorded, redacted form of an exchange (made only for a failure that is kept). */
  private record(x: ObservedExchange, api: Api, operationId: string, body: Buffer | undefined, bodyNotJudged: string | undefined): ExchangeRecord {
    const cut = body !== undefined ? redactedCut(body.toString('utf8')) : { body: `(${bodyNotJudged ?? 'no body'})`, truncated: false };
    return {
      api,
      operationId,
      request: {
        method: x.method.toUpperCase(),
        url: redactText(x.url),
        headers: redactHeaders(x.requestHeaders),
        ...(x.requestBody !== undefined && x.requestBody !== '' ? { body: redactedCut(x.requestBody).body } : {}),
      },
      response: { status: x.status!, headers: redactHeaders(x.responseHeaders ?? {}), body: cut.body, ...(cut.truncated ? { bodyTruncated: true } : {}) },
      startedAt: x.startedAt,
      durationMs: x.durationMs,
    };
  }
}

/** toExchange's record until a failure asks for the real one (replaced by a getter at once). */
const EMPTY_RECORD = undefined as unknown as ExchangeRecord;

function mediaOf(headers: Record<string, string>): { mediaType?: string } {
  const mediaType = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return mediaType ? { mediaType } : {};
}
