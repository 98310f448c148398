/**
 * The HTTP client every check uses: undici with a per-request timeout and a response-size cap; every exchange is
 * recorded (method, URL, headers, body, status, timing) with secrets redacted before the record exists.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { Agent, request, undiciPool, undiciProxyAgent } from './undici-core.js';
import { describeTlsOrProxyFailure, diagnoseClosedTls, mayBeClientCertRefusal, nodeTlsOptions, proxyFor, registeredTransport, type FailureContext, type Transport } from './tls.js';
import { SAFE_METHODS } from './safe-methods.js';
import type { Api, ExchangeRecord } from '../types.js';
import type { PacedTime, RequestPace } from './pace.js';
import { SlotQueue, type InFlightGate } from './in-flight.js';
import { REDACTED, redactHeaders, redactText, registerSecret, registerUrlCredentials } from './redact.js';
import { LOST_CONNECTION_CODES, LOST_CONNECTION_LOOKBACK_MS, ownStallClock, ownStallClockAt, starved } from './own-stall.js';

/** The harness or the network broke (refused, timed out, too large): the check's verdict is error, not fail. */
export class TransportError extends Error {
  override name = 'TransportError';
  /** the target refused the connection: the request never reached it, so it changed nothing there */
  neverSent?: boolean;
  /** a timeout while the suite's own thread was stalled this long (harness/transport/own-stall.ts): this machine, not the target */
  ownStallMs?: number;
}

/**
 * The target answered a status any endpoint may send under load or on cancellation (429, 503, the ledger's 499) where
 * a check expected another: nothing is judged, so the check ends in error, never in fail (overload is not
 * non-conformance) and never in pass.
 */
export class TargetOverloaded extends TransportError {
  override name = 'TargetOverloaded';
}

/**
 * An answer that cannot decide the rule a check asked it for (DESIGN.md principle 15): a 2xx whose documented JSON body
 * is not JSON (HTML, truncated, not UTF-8, numbers beyond a double's range). The check ends in error, naming what was
 * answered instead; the body rule itself has judged it already.
 */
export class NoDecidingAnswer extends TransportError {
  override name = 'NoDecidingAnswer';
}

/**
 * Read-only mode (run.readOnly) refused a request that changes state: it never left the client, and the check that
 * needed it ends skipped with this reason, never failed nor errored.
 */
export const READ_ONLY_REASON = 'read-only mode: ';
export class ReadOnlyRefused extends Error {
  override name = 'ReadOnlyRefused';
}

/** Which requests read-only mode lets reach the target: `path` is relative to the base URL, without the query. */
export interface ReadOnlyPolicy {
  allows(method: string, path: string): boolean;
}

export { SAFE_METHODS };

export interface HttpRequest {
  method: string;
  /** path relative to the target's base URL, with the query already applied or given in `query` */
  path: string;
  query?: Record<string, string | number | boolean | undefined | Array<string | number | boolean>>;
  headers?: Record<string, string>;
  /** sent as JSON with content-type application/json */
  json?: unknown;
  /** sent as is; set the content type in headers */
  body?: string | Uint8Array;
  /** bearer token; sent as `Authorization: Bearer ...` and never recorded */
  token?: string;
  operationId?: string;
  /**
   * Sent at once, outside the in-flight limit (run.concurrency): for a bounded burst whose point is to arrive together
   * (the load-shedding probe), never for ordinary requests.
   */
  burst?: boolean;
}

/** A response as checks see it: status, headers, text and the JSON value when the body is JSON. */
export interface Exchange {
  api: Api;
  operationId?: string;
  status: number;
  headers: Record<string, string>;
  /** lower-case media type without parameters, e.g. application/json; undefined when absent */
  mediaType?: string;
  text: string;
  /** parsed body when it is JSON (by content type or by shape) */
  json?: unknown;
  /** why the body did not parse as JSON although the content type says JSON */
  jsonError?: string;
  record: ExchangeRecord;
  /**
   * Answers 429 or 503 that were retried before this one (oldest first): each was a real response of the target, so
   * the generic checks judge them too.
   */
  earlier?: Exchange[];
}

/** What the recorder keeps of a body in a report. */
const RECORD_BODY_LIMIT = 8 * 1024;

/**
 * What `run --record` sees of one exchange (harness/observe/har-record.ts): the redacted record and, not yet redacted
 * nor cut, the request body as sent and the response headers and decoded body as received. The tap runs in the thread
 * that sent the request (a suite worker), where the run's secrets are registered, and redacts there.
 */
export interface TappedExchange {
  record: ExchangeRecord;
  requestBody?: string | Uint8Array;
  responseHeaders?: Record<string, string>;
  responseText?: string;
  invalidUtf8?: boolean;
}

/** Kept on globalThis, so that every copy of this module a thread loads (vitest's runner, a bundle) finds the one tap. */
const EXCHANGE_TAP = Symbol.for('canton-conformance.exchange-tap');
type ExchangeTap = (x: TappedExchange) => void;

/** Sets (or, with undefined, removes) this thread's exchange tap: called once per exchange, after its answer or failure. */
export function setExchangeTap(tap: ExchangeTap | undefined): void {
  (globalThis as Record<symbol, unknown>)[EXCHANGE_TAP] = tap;
}

function tapExchange(x: TappedExchange): void {
  const tap = (globalThis as Record<symbol, unknown>)[EXCHANGE_TAP] as ExchangeTap | undefined;
  if (tap === undefined) return;
  try {
    tap(x);
  } catch {
    // recording never changes the run
  }
}

export interface ClientOptions {
  api: Api;
  baseUrl: string;
  timeoutMs: number;
  maxResponseBytes: number;
  headers?: Record<string, string>;
  onExchange?: (x: ExchangeRecord) => void;
  /**
   * told of each request as it leaves (its record, without a response yet; the same object onExchange gets once the
   * exchange ended): what it asks for counts from here, whether or not an answer comes (the footprint)
   */
  onRequest?: (x: ExchangeRecord) => void;
  /** how often a 429 or 503 is retried (run.retries); 0 switches retries off */
  retries?: number;
  /** the most a request waits in total across its retries (run.retryMaxWaitMs) */
  retryMaxWaitMs?: number;
  /** JSON bodies nested deeper than this are an error before they are parsed (run.maxJsonDepth) */
  maxJsonDepth?: number;
  /** response headers larger than this (all of them, in bytes) are an error (run.maxHeaderBytes) */
  maxHeaderBytes?: number;
  /**
   * read-only mode (run.readOnly): every request the policy does not allow is refused before it is sent, with a
   * ReadOnlyRefused (told to onRefused first); GETs and HEADs always pass
   */
  readOnly?: ReadOnlyPolicy;
  onRefused?: (e: ReadOnlyRefused) => void;
  /** values never recorded: the configuration's secrets (run-wide), registered in this thread too */
  secrets?: readonly string[];
  /**
   * The target's TLS settings and proxy (targets.<api>.tls, targets.<api>.proxy); unset: those registered for the base
   * URL's origin when the configuration was loaded in this thread (registerTransport), else none.
   */
  transport?: Transport;
  /** the most requests per second this thread sends (run.maxRequestsPerSecond, already divided between threads) */
  pace?: RequestPace;
  /** counts the time this client's requests wait for their turn under `pace` (the check's, which its limits leave out) */
  pacedTime?: PacedTime;
  /**
   * The most requests in flight at once in this worker, across every client (its share of run.concurrency): a request
   * beyond it waits for a slot before it is sent (its timeout starts when it is sent). Unset: no limit.
   */
  maxInFlight?: number;
  /**
   * The run's one limit of requests in flight, shared by every worker thread (harness/transport/in-flight.ts): used instead of
   * maxInFlight once it resolves; undefined (no run shares one) keeps maxInFlight.
   */
  inFlight?: Promise<InFlightGate | undefined>;
  /**
   * Tell the run's limit how long each answer took (against a configured target: the latency signal of
   * harness/transport/in-flight.ts); not against the embedded reference, whose answer times are the suite's own CPU.
   */
  latencySignal?: boolean;
  /**
   * The client's requests go before the others waiting for a slot of the run's limit: the client of a check that holds
   * shared target state (other checks wait for its lock: the run's critical path).
   */
  urgent?: boolean;
}

export const DEFAULT_RETRIES = 2;
export const DEFAULT_RETRY_MAX_WAIT_MS = 5000;
export const DEFAULT_MAX_JSON_DEPTH = 512;
export const DEFAULT_MAX_HEADER_BYTES = 64 * 1024;
/** The wait before a retry when the answer has no Retry-After: this, then twice this. */
const RETRY_BACKOFF_MS = 300;

/** The limit of requests in flight, shared by every client of this worker (run.concurrency). */
class InFlightLimit {
  limit = Number.POSITIVE_INFINITY;
  private active = 0;
  private readonly queue = new SlotQueue();

  setLimit(limit: number): void {
    this.limit = limit;
    while (this.active < this.limit && this.queue.size > 0) {
      this.active++;
      this.queue.shift()!();
    }
  }

  async acquire(urgent = false, alone = false): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve, urgent, alone));
  }

  /** hands the slot to the next waiting request, in SlotQueue's order */
  release(): void {
    const next = this.queue.shift();
    if (next !== undefined) next();
    else this.active--;
  }
}
const inFlight = new InFlightLimit();

const agents = new Map<number, InstanceType<typeof Agent>>();
/** One connection pool per header bound (a run has one): undici refuses a response whose headers exceed it. */
export function agent(maxHeaderSize = DEFAULT_MAX_HEADER_BYTES): Dispatcher {
  let a = agents.get(maxHeaderSize);
  if (a === undefined) {
    a = new Agent({ keepAliveTimeout: 10_000, connections: 32, connect: { timeout: 5_000 }, maxHeaderSize });
    agents.set(maxHeaderSize, a);
  }
  return a;
}

type TunnelConnect = (opts: object, callback: (err: (Error & { code?: string }) | null, socket: unknown) => void) => unknown;

/**
 * A proxy that closes the connection instead of answering CONNECT makes undici's tunnel fail with UND_ERR_SOCKET, which
 * its pool takes for a passing socket error: it opens the next tunnel at once, hundreds a second, and the waiting
 * request (whose abort acts only once it has a connection) never ends. Given another code, the failure ends the
 * requests waiting for that connection, as a refused connection does.
 */
function closedTunnelEndsRequests(connect: TunnelConnect): TunnelConnect {
  return (opts, callback) =>
    connect(opts, (err, socket) => {
      if (err?.code === 'UND_ERR_SOCKET') {
        callback(Object.assign(new Error(`the proxy closed the connection without answering CONNECT (${err.message})`), { code: 'UND_ERR_PROXY_CLOSED', cause: err }), socket);
      } else callback(err, socket);
    });
}

const routedAgents = new Map<string, Dispatcher>();
/** each TLS settings object's part of a pool's key, worked out once (the PEM texts are long) */
const tlsKeys = new WeakMap<object, string>();

/**
 * The connection pool for requests to `url` with a transport's TLS settings and proxy (`setting` names its settings
 * block in errors): undici's Agent with the TLS options in its connector, or its ProxyAgent, which tunnels with CONNECT
 * and runs TLS to the target inside the tunnel. One per header bound, TLS settings and proxy. Without TLS settings and
 * with no proxy for the URL: the plain pool of agent(), the start-up path of every run against the embedded reference.
 */
export function agentFor(url: string, transport: Transport | undefined, setting: string, maxHeaderSize = DEFAULT_MAX_HEADER_BYTES): Dispatcher {
  const route = proxyFor(url, transport, setting);
  if (route === undefined && transport?.tls === undefined) return agent(maxHeaderSize);
  let tlsKey = '';
  if (transport?.tls !== undefined) {
    tlsKey = tlsKeys.get(transport.tls) ?? createHash('sha256').update(JSON.stringify(nodeTlsOptions(transport.tls))).digest('hex');
    tlsKeys.set(transport.tls, tlsKey);
  }
  const key = `${maxHeaderSize} ${tlsKey} ${route?.uri ?? ''}`;
  let a = routedAgents.get(key);
  if (a === undefined) {
    const tls = nodeTlsOptions(transport?.tls);
    const common = { keepAliveTimeout: 10_000, connections: 32, maxHeaderSize };
    if (route === undefined) a = new Agent({ ...common, connect: { timeout: 5_000, ...tls } });
    else {
      try {
        const ProxyAgent = undiciProxyAgent();
        // a proxy's credentials (http://user:password@host, from the setting or the environment) are never printed
        registerUrlCredentials(route.uri);
        const Pool = undiciPool();
        a = new ProxyAgent({
          ...common,
          uri: route.uri,
          proxyTls: { timeout: 5_000 },
          requestTls: { timeout: 5_000, ...tls },
          factory: (origin: string | URL, options: object) => new Pool(origin, { ...options, connect: closedTunnelEndsRequests((options as { connect: TunnelConnect }).connect) as never }),
        } as ConstructorParameters<typeof ProxyAgent>[0]);
      } catch (e) {
        throw new TransportError(`${route.from} is not a proxy URL undici can use (${redactText((e as Error).message)}): give one such as http://proxy.example:3128`);
      }
    }
    routedAgents.set(key, a);
  }
  return a;
}

export function buildUrl(baseUrl: string, path: string, query?: HttpRequest['query']): string {
  const base = parsedBase(baseUrl);
  const p = path.startsWith('/') ? path : `/${path}`;
  // what the URL parser makes of the base's path and this one: as written for most paths (PLAIN_PATH)
  let url = base.prefix + p;
  let hash = '';
  if (!PLAIN_PATH.test(p)) {
    url = new URL(url).href;
    const h = url.indexOf('#');
    if (h >= 0) {
      hash = url.slice(h);
      url = url.slice(0, h);
    }
  }
  const q = url.indexOf('?');
  let search = q < 0 ? '' : url.slice(q + 1);
  if (q >= 0) url = url.slice(0, q);
  if (query !== undefined) {
    let params: URLSearchParams | undefined;
    for (const k in query) {
      const v = query[k];
      if (v === undefined || (Array.isArray(v) && v.length === 0)) continue;
      // the path's own query is read and written again with the request's, as URL.searchParams does
      params ??= new URLSearchParams(`?${search}`); // (the constructor drops one leading "?")
      if (Array.isArray(v)) for (const item of v) params.append(k, String(item));
      else params.append(k, String(v));
    }
    if (params !== undefined) search = params.toString();
  }
  // a query of the base URL (`?api_key=...` for a gateway) is kept as written, ahead of the request's own
  if (base.query !== '') search = search === '' ? base.query : `${base.query}&${search}`;
  // an empty query ("?" with nothing after it) stays as the parser keeps it
  return `${url}${search !== '' || q >= 0 ? `?${search}` : ''}${hash}`;
}

/**
 * A path the URL parser leaves as written: slash-separated segments of characters it neither escapes nor reads as a
 * query or fragment, none of them a dot segment ("." or "..", "%2e" standing for a dot). Others go through the parser.
 */
const PLAIN_PATH = /^(?:\/(?!(?:\.|%2[eE]){1,2}(?:\/|$))[A-Za-z0-9\-._~!$&'()*+,;=:@%]*)+$/;

/** A base URL as requests extend it: origin and path without trailing slashes, and its own query (encoded as the URL parser does). */
const baseParts = new Map<string, { prefix: string; query: string }>();
function parsedBase(baseUrl: string): { prefix: string; query: string } {
  let b = baseParts.get(baseUrl);
  if (b === undefined) {
    const q = baseUrl.indexOf('?');
    const rawQuery = q < 0 ? '' : baseUrl.slice(q + 1).replace(/#.*$/, '');
    const u = new URL((q < 0 ? baseUrl : baseUrl.slice(0, q)).replace(/#.*$/, '').replace(/\/+$/, ''));
    const query = rawQuery === '' ? '' : new URL(`http://h/?${rawQuery}`).search.slice(1);
    b = { prefix: `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`, query };
    if (baseParts.size >= 64) baseParts.clear();
    baseParts.set(baseUrl, b);
  }
  return b;
}

/** Room past the cut that is redacted too, so a secret or token that straddles the cut is hidden whole. */
const REDACT_MARGIN = 4096;

/**
 * A copy of a string that shares no memory with the string it was cut from. V8 represents `slice` of a long string as
 * a view on it (and `replace` without a match returns its input), so a record cut from a 1 MB body would keep the whole
 * body alive for as long as the record lives (12 per check, and every failure's).
 */
const detached = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');

/** The recorded form of a body: redacted, then cut to RECORD_BODY_LIMIT characters (a copy: it keeps no larger body alive). */
export function redactedCut(text: string): { body: string; truncated: boolean } {
  if (text.length <= RECORD_BODY_LIMIT) return { body: redactText(text), truncated: false };
  const redacted = redactText(text.slice(0, RECORD_BODY_LIMIT + REDACT_MARGIN));
  return { body: detached(`${redacted.slice(0, RECORD_BODY_LIMIT)}...`), truncated: true };
}

function describeBody(body: string | Uint8Array | undefined): string | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string') return redactedCut(body).body;
  // the digest tells two uploads of the same archive apart from two of different ones (the footprint)
  return `<${body.byteLength} bytes of binary data, sha256 ${createHash('sha256').update(body).digest('hex').slice(0, 32)}>`;
}

/**
 * A target that stops answering must not stall the run for the full timeout of every request of every check: after
 * this many timeouts in a row on one origin, requests to it fail at once; one request every PROBE_AFTER_MS still goes
 * through, and an answer ends the fast failing.
 */
const TIMEOUTS_BEFORE_FAST_FAIL = 3;
const PROBE_AFTER_MS = 10_000;
const timeoutsInARow = new Map<string, { count: number; lastAt: number }>();

export class HttpClient {
  /** lower-case names of the configured extra headers: their values are never recorded, whatever their length */
  private readonly configuredHeaders: Set<string>;
  private origin: string | undefined;
  /** this client's requests waiting for a slot or in flight */
  private sending = 0;
  /** how its requests travel (TLS settings, proxy); undefined: directly, with the system's CAs */
  private readonly transport: Transport | undefined;
  /** its connection pool, chosen on its first request */
  private dispatcher: Dispatcher | undefined;

  constructor(readonly options: ClientOptions) {
    // registered here, where exchanges are recorded, and not only where the configuration was loaded: the checks run
    // in worker threads, whose redaction set starts empty. Header values (an API-gateway key) and URL credentials are
    // then redacted in every recorded request and response, also when the target echoes them in a body.
    for (const v of Object.values(options.headers ?? {})) registerSecret(v);
    for (const v of options.secrets ?? []) registerSecret(v);
    registerUrlCredentials(options.baseUrl);
    this.transport = options.transport ?? registeredTransport(options.baseUrl);
    if (options.maxInFlight !== undefined) inFlight.setLimit(options.maxInFlight);
    this.configuredHeaders = new Set(Object.keys(options.headers ?? {}).map((h) => h.toLowerCase()));
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /**
   * Sends a request. A 429 or 503 is retried (run.retries times at most, waiting what Retry-After asks or a growing
   * backoff, and never more than run.retryMaxWaitMs in total); when the target stays overloaded the last answer is
   * returned as is, and checks turn it into an error (TargetOverloaded), never a verdict. Every request is retried,
   * state-changing ones too: 429 and 503 say the request was refused, not carried out, and the ledger's command
   * submissions carry a command id, so a submission that went through after all is deduplicated, not repeated.
   */
  async send(req: HttpRequest): Promise<Exchange> {
    const retries = this.options.retries ?? DEFAULT_RETRIES;
    const budget = this.options.retryMaxWaitMs ?? DEFAULT_RETRY_MAX_WAIT_MS;
    const earlier: Exchange[] = [];
    let waited = 0;
    this.refuseWrites(req);
    for (let attempt = 0; ; attempt++) {
      const x = await this.sendOnce(req);
      if ((x.status !== 429 && x.status !== 503) || attempt >= retries) return withEarlier(x, earlier);
      const wait = retryAfterMs(x.headers['retry-after']) ?? RETRY_BACKOFF_MS * 2 ** attempt;
      if (waited + wait > budget) return withEarlier(x, earlier);
      earlier.push(x);
      waited += wait;
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  /** Read-only mode: a request that may change state never leaves the client (judged on the URL as it would be sent). */
  private refuseWrites(req: HttpRequest): void {
    const policy = this.options.readOnly;
    const method = req.method.toUpperCase();
    if (policy === undefined || SAFE_METHODS.has(method)) return;
    const base = new URL(this.options.baseUrl).pathname.replace(/\/+$/, '');
    // the path after dot segments are resolved, relative to the base URL; one that leaves the base matches nothing
    const full = new URL(buildUrl(this.options.baseUrl, req.path, req.query)).pathname;
    const path = full.startsWith(`${base}/`) ? full.slice(base.length) : undefined;
    if (path !== undefined && policy.allows(method, path)) return;
    const err = new ReadOnlyRefused(`${READ_ONLY_REASON}${method} ${redactText(path ?? full)} changes state`);
    this.options.onRefused?.(err);
    throw err;
  }

  private async sendOnce(req: HttpRequest): Promise<Exchange> {
    // the rate limit's slot is taken once the request may be sent (in flight), so a request that waited for room never
    // leaves in a slot that passed while it waited
    if (req.burst === true) {
      await this.options.pace?.take(this.options.pacedTime);
      return this.dispatch(req);
    }
    const gate = (this.options.inFlight !== undefined ? await this.options.inFlight : undefined) ?? inFlight;
    // a request of a client (a check) with none other in flight or waiting goes before those of clients with some
    const alone = this.sending === 0;
    this.sending++;
    // under run.maxRequestsPerSecond the slots are held by requests waiting for their turn: waiting for one is the rate's
    const paced = this.options.pace !== undefined ? this.options.pacedTime : undefined;
    paced?.enter();
    try {
      await gate.acquire(this.options.urgent === true, alone);
    } catch (e) {
      this.sending--;
      throw e;
    } finally {
      paced?.leave();
    }
    let status: number | undefined;
    let sent: number | undefined;
    let size = 0;
    try {
      await this.options.pace?.take(this.options.pacedTime);
      sent = performance.now();
      // a read that timed out, or lost its connection before any answer, while this thread was starved is tried once more
      // before it is judged
      const x = await this.dispatch(req).catch(async (e: unknown) => {
        if (!(e instanceof TransportError) || e.ownStallMs === undefined || !SAFE_METHODS.has(req.method.toUpperCase())) throw e;
        await this.options.pace?.take(this.options.pacedTime);
        return this.dispatch(req);
      });
      status = x.status;
      size = x.text.length;
      return x;
    } finally {
      // the answer's status (and time) lets the run's limit adapt (harness/transport/in-flight.ts): no answer tells nothing. An
      // answer's time is compared with answers of the same operation, status and size (within a factor of 4): a page of
      // a thousand records takes longer than a page of one without the target being any busier
      const timed = this.options.latencySignal === true && status !== undefined && sent !== undefined;
      const key = timed ? `${req.method} ${req.operationId ?? req.path.split('?')[0]} ${status} ~${Math.ceil(Math.log(size + 1) / Math.log(4))}` : '';
      gate.release(status, timed ? { key, ms: performance.now() - sent! } : undefined);
      this.sending--;
    }
  }

  private async dispatch(req: HttpRequest): Promise<Exchange> {
    const url = buildUrl(this.options.baseUrl, req.path, req.query);
    const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5', ...this.options.headers, ...req.headers };
    let body: string | Uint8Array | undefined = req.body;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] ??= 'application/json';
    }
    if (req.token !== undefined) headers.authorization = `Bearer ${req.token}`;
    const startedAt = new Date();
    const t0 = performance.now();
    const stall0 = ownStallClock();
    const record: ExchangeRecord = {
      api: this.options.api,
      ...(req.operationId !== undefined ? { operationId: req.operationId } : {}),
      request: { method: req.method, url: redactText(url), headers: this.recordedHeaders(headers), ...(body !== undefined ? { body: describeBody(body) } : {}) },
      startedAt: startedAt.toISOString(),
      durationMs: 0,
    };
    // the request's path is appended to the base URL's: the origin is the base URL's, parsed once per client
    const origin = (this.origin ??= new URL(url).origin);
    const answered = { headers: false };
    try {
      const streak = timeoutsInARow.get(origin);
      if (streak !== undefined && streak.count >= TIMEOUTS_BEFORE_FAST_FAIL) {
        if (Date.now() - streak.lastAt < PROBE_AFTER_MS) {
          throw new TransportError(`${redactText(origin)} did not answer ${TIMEOUTS_BEFORE_FAST_FAIL} requests in a row within ${this.options.timeoutMs} ms; not waiting again`);
        }
        // this request is the probe: the others keep failing fast until it is answered or times out
        streak.lastAt = Date.now();
      }
      this.options.onRequest?.(record);
      const { status, resHeaders, text, invalidUtf8 } = await this.transmit(url, req.method, headers, body, answered);
      timeoutsInARow.delete(origin);
      record.durationMs = Math.round((performance.now() - t0) * 10) / 10;
      const recorded = redactedCut(text);
      record.response = {
        status,
        headers: redactHeaders(resHeaders),
        body: recorded.body,
        ...(recorded.truncated ? { bodyTruncated: true } : {}),
      };
      tapExchange({ record, ...(body !== undefined ? { requestBody: body } : {}), responseHeaders: resHeaders, responseText: text, invalidUtf8 });
      const location = resHeaders.location;
      if (status >= 300 && status < 400 && location !== undefined) {
        // never followed: a redirect may lead to another origin, and following it would send the token there
        throw new TransportError(`${redactText(url)} answered ${status}, redirected to ${redactText(location)}: redirects are not followed; check the target's base URL`);
      }
      const x = toExchange(this.options.api, req.operationId, status, resHeaders, text, record, this.options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH, url, invalidUtf8);
      this.options.onExchange?.(record);
      return x;
    } catch (e) {
      record.durationMs = Math.round((performance.now() - t0) * 10) / 10;
      const err = e instanceof TransportError ? e : new TransportError(await this.describeFailure(e, url));
      if (errorCode(e) === 'ECONNREFUSED') err.neverSent = true;
      // a timeout while this thread was starved is this machine's: said so, recorded, and not the target's streak
      const stalled = ownStallClock() - stall0;
      if (isTimeout(e) && starved(stalled, this.options.timeoutMs)) {
        err.ownStallMs = record.ownStallMs = Math.round(stalled);
        err.message += `, while the suite's own thread was stalled ${err.ownStallMs} ms (this machine was overloaded)`;
      } else if (isTimeout(e)) timeoutsInARow.set(origin, { count: (timeoutsInARow.get(origin)?.count ?? 0) + 1, lastAt: Date.now() });
      else if (!answered.headers && LOST_CONNECTION_CODES.has(errorCode(e) ?? '')) {
        // a connection reset or closed before any answer, with this thread stalled during the exchange or just before
        // it (a pooled connection the target closed while the stalled thread could not see it go): this machine's too
        const around = ownStallClock() - ownStallClockAt(t0 - LOST_CONNECTION_LOOKBACK_MS);
        if (starved(around, this.options.timeoutMs)) {
          err.ownStallMs = record.ownStallMs = Math.round(around);
          err.message += `, while the suite's own thread was stalled ${err.ownStallMs} ms during or just before it (this machine was overloaded)`;
        }
      }
      record.transportError = redactText(err.message);
      if (record.response === undefined) tapExchange({ record, ...(body !== undefined ? { requestBody: body } : {}) });
      this.options.onExchange?.(record);
      throw err;
    }
  }

  /**
   * A failed request's message: a TLS or proxy failure names its cause and the setting to change (harness/transport/tls.ts); a
   * connection over TLS closed before any answer is looked into once per origin (a server refusing the client
   * certificate after a TLS 1.3 handshake closes it so); anything else as describeTransportError says.
   */
  private async describeFailure(e: unknown, url: string): Promise<string> {
    const context = this.failureContext(url);
    const named = describeTlsOrProxyFailure(e, context);
    if (named !== undefined) return named;
    const plain = describeTransportError(e, url, this.options.timeoutMs, this.options.maxHeaderBytes);
    if (!mayBeClientCertRefusal(e, context.https)) return plain;
    const origin = new URL(url).origin;
    const byOrigin = closedTlsDiagnoses.get(this.transport ?? NO_TRANSPORT) ?? new Map<string, Promise<string | undefined>>();
    closedTlsDiagnoses.set(this.transport ?? NO_TRANSPORT, byOrigin);
    let diagnosis = byOrigin.get(origin);
    if (diagnosis === undefined) {
      diagnosis = diagnoseClosedTls(url, this.transport, context, this.options.timeoutMs).catch(() => undefined);
      byOrigin.set(origin, diagnosis);
    }
    const found = await diagnosis;
    return found ?? plain;
  }

  private failureContext(url: string): FailureContext {
    const setting = `targets.${this.options.api}`;
    const route = proxyFor(url, this.transport, setting);
    return {
      where: redactText(url),
      setting,
      https: url.startsWith('https:'),
      ...(this.transport?.tls !== undefined ? { tls: this.transport.tls } : {}),
      ...(route !== undefined ? { proxy: route } : {}),
    };
  }

  private recordedHeaders(headers: Record<string, string>): Record<string, string> {
    const out = redactHeaders(headers);
    for (const name of Object.keys(out)) if (this.configuredHeaders.has(name)) out[name] = REDACTED;
    return out;
  }

  private async transmit(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | Uint8Array | undefined,
    answered?: { headers: boolean },
  ): Promise<{ status: number; resHeaders: Record<string, string>; text: string; invalidUtf8: boolean }> {
    const { timeoutMs, maxResponseBytes, maxHeaderBytes } = this.options;
    const deadline = exchangeDeadline(timeoutMs);
    try {
      const res = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher: (this.dispatcher ??= agentFor(url, this.transport, `targets.${this.options.api}`, maxHeaderBytes)),
        ...deadline.options,
      });
      if (answered !== undefined) answered.headers = true;
      const resHeaders: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) resHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      const bytes = await readBoundedBytes(res, resHeaders['content-encoding'], maxResponseBytes, `response from ${redactText(url)}`);
      // a body that is not valid UTF-8 is decoded with replacement characters for the record, and never parsed
      return { status: res.statusCode, resHeaders, text: bytes.toString('utf8'), invalidUtf8: !isUtf8(bytes) };
    } finally {
      deadline.clear();
    }
  }
}

/**
 * The bound of one exchange, headers and body: request options that abort it `timeoutMs` after they are made, and
 * `clear` to call when it has ended. A plain timer cleared at the end, rather than AbortSignal.timeout, whose weak
 * references and finalization every request paid for in the garbage collector.
 *
 * When the timer fires, the abort waits for the loop's poll phase: a turn of the loop runs its timers before it reads
 * the sockets, so after a stall of this thread (garbage collection, a validator compiled, a machine short of CPU)
 * longer than the bound, an answer that arrived during the stall would be thrown away as the target's timeout
 * (test/harness/own-stall.test.ts). undici's own header and body timers, which fire in that same timers phase, are off:
 * this bound covers the whole exchange.
 */
export function exchangeDeadline(timeoutMs: number): { options: { signal: AbortSignal; headersTimeout: 0; bodyTimeout: 0 }; clear: () => void } {
  const abort = new AbortController();
  let last: NodeJS.Immediate | undefined;
  // time this thread was starved during the exchange is given back once (at most the bound again): not the target's
  const from = ownStallClock();
  let extended = false;
  const expire = () => {
    last = setImmediate(() => {
      const stalled = ownStallClock() - from;
      if (!extended && starved(stalled, timeoutMs)) {
        extended = true;
        timer = setTimeout(expire, Math.min(stalled, timeoutMs));
        return;
      }
      abort.abort(new DOMException(`no response within ${timeoutMs} ms`, 'TimeoutError'));
    });
  };
  let timer = setTimeout(expire, timeoutMs);
  return {
    options: { signal: abort.signal, headersTimeout: 0, bodyTimeout: 0 },
    clear: () => {
      clearTimeout(timer);
      if (last !== undefined) clearImmediate(last);
    },
  };
}

function withEarlier(x: Exchange, earlier: Exchange[]): Exchange {
  if (earlier.length > 0) x.earlier = earlier;
  return x;
}

/** Retry-After in milliseconds: delay-seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Reads a response body, at most `maxBytes` on the wire and, after any content encoding (gzip, deflate, br) is
 * decoded, at most `maxBytes` decoded: a small compressed body of a huge zero stream stops at the bound, with bounded
 * memory. `what` names the response in the error.
 */
export async function readBounded(res: Dispatcher.ResponseData, contentEncoding: string | undefined, maxBytes: number, what: string): Promise<string> {
  return (await readBoundedBytes(res, contentEncoding, maxBytes, what)).toString('utf8');
}

/** readBounded's bytes, before they are decoded as UTF-8. */
async function readBoundedBytes(res: Dispatcher.ResponseData, contentEncoding: string | undefined, maxBytes: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  // read with events rather than an async iterator, which costs a few promises and stream listeners per chunk
  await new Promise<void>((resolve, reject) => {
    const body = res.body;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        body.off('error', reject);
        body.on('error', () => {});
        body.destroy();
        reject(new TransportError(`${what} exceeds the ${maxBytes}-byte cap (run.maxResponseBytes)`));
        return;
      }
      chunks.push(chunk);
    });
    let ended = false;
    body.once('end', () => {
      ended = true;
      resolve();
    });
    body.once('error', reject);
    // a body destroyed without an error (aborted) neither ends nor errs; every other body closes after its end, and
    // an error made there for nothing (its stack captured) cost each request a few tens of microseconds
    body.once('close', () => {
      if (!ended) reject(new TransportError(`${what} was cut off before its end`));
    });
  });
  let buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const codings = (contentEncoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  // the codings are listed in the order they were applied: undone from the last
  for (const coding of codings.reverse()) {
    const decode = coding === 'gzip' || coding === 'x-gzip' ? gunzipSync : coding === 'deflate' ? inflateSync : coding === 'br' ? brotliDecompressSync : undefined;
    if (decode === undefined) break; // an unknown coding: the body is kept as sent
    try {
      buf = decode(buf, { maxOutputLength: maxBytes });
    } catch (e) {
      const err = e as Error & { code?: string };
      if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
        throw new TransportError(`${what} exceeds the ${maxBytes}-byte cap (run.maxResponseBytes) once its ${coding} content encoding is decoded`);
      }
      throw new TransportError(`${what} says Content-Encoding ${coding} but does not decode: ${err.message}`);
    }
  }
  return buf;
}

/**
 * Whether a JSON text nests arrays and objects deeper than `max`: a linear scan that runs before JSON.parse, so a
 * deeply nested body never reaches the parser, the schema validator or a recursive walk.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  return scanJsonText(text, max).tooDeep;
}

/**
 * One linear pass over a JSON text before it is parsed: whether it nests deeper than `maxDepth`, and whether a number
 * in it may lie beyond a double's range (its decimal magnitude, significant integer digits plus exponent, is 309 or
 * more: 1e400, 2.5e308, 309 nines, 0.5e309), which JSON.parse turns into Infinity. The second is an upper bound: a
 * body it flags is walked for an infinite number (nonFiniteAt). Strings are skipped by a native search for their
 * closing quote, so the hex of ids and party ids inside them costs nothing and is never taken for a number.
 */
export function scanJsonText(text: string, maxDepth: number): { tooDeep: boolean; mayOverflow: boolean } {
  let depth = 0;
  let mayOverflow = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: its closing quote is the next one not escaped by an odd run of backslashes
      let j = text.indexOf('"', i + 1);
      while (j > 0) {
        let k = j - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      if (j < 0) break;
      i = j;
    } else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return { tooDeep: true, mayOverflow };
    } else if (c === 125 || c === 93) depth--;
    else if (c === 45 || (c >= 48 && c <= 57)) {
      // a number: its significant integer digits, a fraction, and an exponent's value (capped)
      let j = c === 45 ? i + 1 : i;
      let intDigits = 0;
      let d = text.charCodeAt(j);
      while (d >= 48 && d <= 57) {
        if (intDigits > 0 || d !== 48) intDigits++;
        d = text.charCodeAt(++j);
      }
      if (d === 46) {
        d = text.charCodeAt(++j);
        while (d >= 48 && d <= 57) d = text.charCodeAt(++j);
      }
      if (d === 101 || d === 69) {
        d = text.charCodeAt(++j);
        let sign = 1;
        if (d === 43 || d === 45) {
          if (d === 45) sign = -1;
          d = text.charCodeAt(++j);
        }
        let exp = 0;
        while (d >= 48 && d <= 57) {
          if (exp < 1e6) exp = exp * 10 + (d - 48);
          d = text.charCodeAt(++j);
        }
        if (intDigits + sign * exp >= 309) mayOverflow = true;
      } else if (intDigits >= 309) mayOverflow = true;
      i = j - 1;
    }
  }
  return { tooDeep: false, mayOverflow };
}

/**
 * An undici or abort timeout (headers or body not in time). undici's refusal of a proxy's answer to CONNECT is an
 * AbortError too, and no timeout.
 */
export function isTimeout(e: unknown): boolean {
  const err = e as Error & { code?: string };
  if (err.name === 'AbortError' && err.code === 'UND_ERR_ABORTED' && /^Proxy response \(/.test(err.message)) return false;
  return err.name === 'TimeoutError' || err.name === 'AbortError' || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT';
}

/**
 * Per transport (its TLS settings decide what the server says) and origin, what a TLS connection of its own found when
 * a request over TLS was closed before any answer: looked into once.
 */
const closedTlsDiagnoses = new WeakMap<Transport, Map<string, Promise<string | undefined>>>();
const NO_TRANSPORT: Transport = {};

/** The system or undici error code of a failed request (ECONNREFUSED, UND_ERR_...), on the error or its cause. */
function errorCode(e: unknown): string | undefined {
  const err = e as { code?: string; cause?: { code?: string } } | undefined;
  return err?.code ?? err?.cause?.code;
}

function describeTransportError(e: unknown, url: string, timeoutMs: number, maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES): string {
  const err = e as Error & { code?: string };
  const code = errorCode(e);
  const where = redactText(url);
  if (isTimeout(e)) {
    return `no response from ${where} within ${timeoutMs} ms (run.timeoutMs)`;
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return `the response headers from ${where} exceed the ${maxHeaderBytes}-byte cap (run.maxHeaderBytes)`;
  if (code === 'ECONNREFUSED') return `connection refused by ${where}: is the target running?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot resolve the host of ${where}`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `connecting to ${where} timed out`;
  return `request to ${where} failed: ${code ?? ''} ${err.message}`.replace(/\s+/g, ' ');
}

/** The JSON path of the first number that parsed as Infinity (or -Infinity), if any. */
function nonFiniteAt(v: unknown, path: string, depth: number): string | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : path;
  if (depth > 200 || typeof v !== 'object' || v === null) return undefined;
  for (const [k, e] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
    const at = nonFiniteAt(e, Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}`, depth + 1);
    if (at !== undefined) return at;
  }
  return undefined;
}

export function toExchange(
  api: Api,
  operationId: string | undefined,
  status: number,
  headers: Record<string, string>,
  text: string,
  record: ExchangeRecord,
  maxJsonDepth = DEFAULT_MAX_JSON_DEPTH,
  url = '',
  invalidUtf8 = false,
): Exchange {
  const ct = headers['content-type'];
  const mediaType = ct?.split(';')[0]?.trim().toLowerCase() || undefined;
  const x: Exchange = { api, status, headers, text, record, ...(operationId !== undefined ? { operationId } : {}) };
  if (mediaType !== undefined) x.mediaType = mediaType;
  const looksJson = mediaType === 'application/json' || (mediaType?.endsWith('+json') ?? false);
  if (looksJson && text.length > 0) {
    if (invalidUtf8) {
      // never parsed: ids read from replacement characters would be sent back mangled and judged as the target's
      x.jsonError = 'the body is not valid UTF-8';
      return x;
    }
    const scan = scanJsonText(text, maxJsonDepth);
    if (scan.tooDeep) {
      throw new TransportError(`response from ${redactText(url)} nests JSON deeper than ${maxJsonDepth} levels (run.maxJsonDepth); not parsed`);
    }
    try {
      const json = JSON.parse(text) as unknown;
      // a number beyond a double's range (1e400) parses as Infinity, which would be sent back as null
      const outOfRange = scan.mayOverflow ? nonFiniteAt(json, '', 0) : undefined;
      if (outOfRange !== undefined) x.jsonError = `the number at ${outOfRange === '' ? 'the top level' : outOfRange} is beyond the range of a double (JSON numbers such as 1e400)`;
      else x.json = json;
    } catch (e) {
      x.jsonError = (e as Error).message;
    }
  }
  return x;
}

/** A curl line that reproduces a recorded request; the token appears as a shell variable, never its value. */
export function curlFor(x: ExchangeRecord): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const parts = ['curl', '-sS', '-X', x.request.method, q(x.request.url)];
  for (const [k, v] of Object.entries(x.request.headers)) {
    if (k === 'accept' || k === 'content-length' || k === 'host') continue;
    if (k === 'authorization') parts.push('-H', `"Authorization: Bearer \${${x.api.toUpperCase()}_TOKEN}"`);
    else parts.push('-H', q(`${k}: ${v}`));
  }
  if (x.request.body !== undefined) parts.push('--data-raw', q(x.request.body));
  return parts.join(' ');
}
