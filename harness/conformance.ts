/**
 * `conformance()`: the one wrapper that declares every check. It carries literal metadata (id, api, operations,
 * requirement ids, features), applies the Allure labels, gates on the target's version, features and the selection,
 * and turns what happened into one of five verdicts that the reporter reads from the vitest task meta.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { inject, test, type TestContext } from 'vitest';
import * as allure from 'allure-js-commons';
import fc from 'fast-check';
import { loadCatalogue, type Requirement } from './judging/catalogue.js';
import { foreignAuthPage, runGenericChecks, saysNothingOfTheRule, unreadableContentType } from './judging/checks.js';
import { newFootprint, noteFootprint, noteRequest, reportedFootprint } from './fixtures/footprint.js';
import { STOP_CLEANUP_MS, stoppedAt, stopping, whenStoppedNow } from './run/stop-now.js';
import { CHECK_LABEL } from './reporting/allure-status.js';
import { noteLatency } from './reporting/latency.js';
import { binaryBodyFor, bodyAttachmentName, keepBinaryBody } from './reporting/bodies.js';
import { exchangeKey } from './reporting/reproduce.js';
import { newChainTally, noteChain, reportedChain } from './reporting/chains.js';
import { DEFAULT_RUN, type Config, type TargetConfig } from './config.js';
import { HttpClient, NoDecidingAnswer, ReadOnlyRefused, TargetOverloaded, TransportError, type Exchange, type HttpRequest } from './transport/http.js';
import { PACED_EXTENSION_FACTOR, PacedTime, paceFor, paceWaiting, pacedTimer, runPacedClock } from './transport/pace.js';
import { sharedInFlight } from './transport/in-flight.js';
import { AuthUnavailable, TokenProvider } from './transport/auth.js';
import { redactText, registerSecretNames } from './transport/redact.js';
import { schemaRegistry, type OperationInfo, type SchemaRegistry } from './judging/schemas.js';
import type { Api, CheckDeclaration, CheckResultMeta, ExchangeRecord, FailureRecord, LatencyTally, PropertyRecord, TrafficCounts, Verdict } from './types.js';
import { outOfRange } from './judging/versions.js';
import { hash32, inShard } from './run/shard.js';
import { tallyOwnDescription, type OwnDescriptionTally } from './spec-diff/validate.js';
import { perWorker, workersFor } from './run/suite-vitest.js';
import { loadingSuiteFile } from './run-groups.js';
import { withSharedState } from './run/shared-state.js';
import { checkSelected } from './run/selection.js';

declare module 'vitest' {
  export interface ProvidedContext {
    conformanceConfig: Config;
    /** the run's stop channel (harness/run/stop-now.ts) */
    conformanceStopChannel: string;
    /** the channel of the run's shared limit of requests in flight (harness/transport/in-flight.ts), when the run shares one */
    conformanceInFlight?: string;
  }
}

/**
 * How many independent steps of one check (property cases, set-up allocations) may wait for answers at once: against
 * the embedded reference (CPU-bound) a worker's share of run.concurrency; against a target, where they mostly wait, up
 * to run.concurrency, since the run's one limit of requests in flight bounds them anyway.
 */
export const waitingLanes = (config: Pick<Config, 'useReference' | 'run'>): number => (config.useReference ? perWorker(config) : Math.max(1, config.run.concurrency));

/** A rule the target broke; thrown to stop a check, or collected softly. */
export class ConformanceFailure extends Error {
  override name = 'ConformanceFailure';
  constructor(readonly failures: FailureRecord[]) {
    super(failures.map((f) => `[${f.requirement}] ${f.message}`).join('\n'));
  }
}

/** A check decided not to run (skipped) or found an optional behaviour absent (unsupported). */
export class NotRun extends Error {
  override name = 'NotRun';
  constructor(
    readonly verdict: 'skipped' | 'unsupported',
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** How a call authenticates: a configured role, a user (minted token), an explicit token, or no token at all. */
export type CallAuth = { role: string } | { user: string } | { token: string } | 'none';

export interface CallOptions {
  params?: Record<string, string | number>;
  query?: HttpRequest['query'];
  json?: unknown;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  auth?: CallAuth;
  /** run the generic checks on the response (default true) */
  conform?: boolean;
  /** one of a bounded burst sent at once, outside run.concurrency (HttpRequest.burst) */
  burst?: boolean;
  /**
   * the check reads whatever comes back, overload answers included; by default an answer that cannot decide anything
   * (an overload or gateway status, a 2xx whose documented JSON body is not JSON) ends the check in error, so that no
   * rule passes or fails on it (ApiClient.call)
   */
  anyAnswer?: boolean;
}

/** Default role per interface when a call names none. */
const DEFAULT_ROLE: Record<Api, string | undefined> = { ledger: 'admin', scan: undefined, validator: undefined, registry: undefined };

/** Calls the operations of one interface by operationId, with paths built from the OpenAPI document. */
export class ApiClient {
  constructor(
    readonly api: Api,
    readonly target: TargetConfig,
    readonly http: HttpClient,
    readonly tokens: TokenProvider,
    private readonly schemas: SchemaRegistry,
    private readonly onExchange: (x: Exchange) => void,
  ) {}

  async token(auth: CallAuth | undefined): Promise<string | undefined> {
    const a = auth ?? (DEFAULT_ROLE[this.api] !== undefined && this.tokens.kind !== 'none' ? { role: DEFAULT_ROLE[this.api]! } : 'none');
    if (a === 'none') return undefined;
    if ('token' in a) return a.token;
    if ('user' in a) return this.tokens.tokenForUser(a.user);
    return this.tokens.tokenFor(a.role);
  }

  async call(operationId: string, o: CallOptions = {}): Promise<Exchange> {
    const op = this.schemas.operation(this.api, operationId);
    const token = await this.token(o.auth);
    const x = await this.http.send({
      method: op.method,
      path: this.schemas.pathFor(this.api, operationId, o.params),
      operationId,
      ...(o.query !== undefined ? { query: o.query } : {}),
      ...(o.json !== undefined ? { json: o.json } : {}),
      ...(o.body !== undefined ? { body: o.body } : {}),
      ...(o.headers !== undefined ? { headers: o.headers } : {}),
      ...(token !== undefined ? { token } : {}),
      ...(o.burst === true ? { burst: true } : {}),
    });
    // a binary body's bytes, for a failure's report to attach (the record holds a description of them)
    keepBinaryBody(x.record, o.body);
    if (o.conform !== false) {
      // the 429 and 503 answers that were retried are responses of the target too: judged like the last one
      for (const e of x.earlier ?? []) this.onExchange(e);
      this.onExchange(x);
      if (o.burst !== true && o.anyAnswer !== true) this.decides(op, x, o.auth === undefined || (typeof o.auth === 'object' && !('token' in o.auth)));
    }
    return x;
  }

  /**
   * Ends the check in error when the answer can decide nothing (DESIGN.md principle 15), in one place so that no check
   * can forget it: an overload, cancellation or gateway status (429, 503, the ledger's 499, 502, 504) says nothing of
   * any rule but the generic ones, which judged it above; a 2xx whose documented body is JSON and did not parse would
   * make every reader see an empty list or object, so reading its body (x.json) ends the check in error, while its
   * status still decides a rule about the status (a 2xx is no rejection). The same for an error answer whose body
   * cannot be read (JSON that does not parse, a Content-Type sent twice): its status decides, its body nothing, so a
   * check that reads it (an error code that would excuse the refusal) ends in error rather than failing a rule on it.
   * A 401 or 403 to the configured credentials (`configured`) that is not in the target's own error form (a gateway's
   * login page: foreignAuthPage) refused the caller, not the request: nothing is judged.
   */
  private decides(op: OperationInfo, x: Exchange, configured = true): void {
    const what = `${x.record.request.method} ${op.operationId}`;
    const excerpt = x.text.length > 200 ? `${x.text.slice(0, 200)}...` : x.text;
    if (saysNothingOfTheRule(this.api, x.status)) {
      throw new TargetOverloaded(`${what} answered ${x.status} (${x.status === 502 || x.status === 504 ? 'a gateway in front of the target could not reach it in time' : 'overload or cancellation, which any endpoint may answer'}): nothing judged${excerpt ? `: ${excerpt}` : ''}`);
    }
    if (configured && foreignAuthPage(x)) {
      throw new NoDecidingAnswer(`${what} answered ${x.status} with ${x.mediaType === undefined ? 'no Content-Type' : `Content-Type ${x.mediaType}`}, not in the target's own error form (a gateway's login or refusal page?): the configured credentials were refused before the request reached the target, nothing judged${excerpt ? `: ${excerpt}` : ''}`);
    }
    if (x.status >= 400 && (unreadableContentType(x) || (x.json === undefined && x.jsonError !== undefined))) {
      const why = `${what} answered ${x.status} with ${unreadableContentType(x) ? `a Content-Type that names several media types (${x.mediaType})` : `a body that is not JSON (${x.jsonError})`}: its status decides, but nothing its body should say could be read${excerpt ? `: ${excerpt}` : ''}`;
      Object.defineProperty(x, 'json', {
        get: () => {
          throw new NoDecidingAnswer(why);
        },
      });
      return;
    }
    if (x.status >= 200 && x.status < 300 && x.json === undefined) {
      const media = this.schemas.response(op, x.status)?.content ?? {};
      if (Object.keys(media).some((m) => m === 'application/json' || m.endsWith('+json'))) {
        // the status still decides (a 2xx is no rejection); whoever reads the body it should hold ends the check in error
        const why = `${what} answered ${x.status} with ${x.mediaType === undefined ? 'no Content-Type' : `Content-Type ${x.mediaType}`} and a body that is not JSON (${x.jsonError ?? (x.text === '' ? 'empty body' : 'not declared JSON')}): nothing it should hold could be read${excerpt ? `: ${excerpt}` : ''}`;
        Object.defineProperty(x, 'json', {
          get: () => {
            throw new NoDecidingAnswer(why);
          },
        });
      }
    }
  }

  /** A raw request to a path that may not be in the spec (robustness probes); generic checks are not applied. */
  async raw(req: HttpRequest): Promise<Exchange> {
    return this.http.send(req);
  }
}

export interface PropertyOptions<T = unknown> {
  /** what the property generates, for the reports (e.g. "wrong-type mutations of listPackageVetting") */
  name?: string;
  /** requirement a failure is attributed to when the predicate fails without naming one */
  requirement?: string;
  /** runs; default run.runs from the config */
  runs?: number;
  /**
   * The runs share no target state (each creates what it uses under its own name, or only reads): they are sent at
   * once, at most waitingLanes at a time, the cases generated from the same seed as one after another. The first
   * failing case (by its place in the sequence, whatever finished first) is then run again alone and shrunk, so the
   * verdict, the seed and the path are those of a run one after another. A number: at most that many cases at once
   * (cases that each hold much of a large listing).
   */
  concurrent?: boolean | number;
  /**
   * With `concurrent`: the target state a case uses (e.g. which of a few users it updates). Cases of the same key run
   * one after another, in their order in the sequence, as they would at concurrency 1; cases of other keys beside them.
   * A case's outcome must still depend on its own value only: the replay and the shrink run on the state the other
   * cases left, and a shrink may change the key (a case first puts the state it updates in one drawn from its value).
   */
  stateKey?: (value: T) => string;
}

/** What a check body receives. */
export interface CheckContext {
  readonly id: string;
  readonly api: Api;
  readonly target: TargetConfig;
  readonly config: Config;
  /** the client of the check's interface */
  readonly client: ApiClient;
  /** the seed of this check's properties: derived from the run seed and the check id */
  readonly seed: number;
  readonly schemas: SchemaRegistry;
  clientFor(api: Api): ApiClient;
  call(operationId: string, o?: CallOptions): Promise<Exchange>;
  /** runs the generic checks (status, content type, schema, no 5xx) on an exchange; failures are collected */
  expectConformant(x: Exchange): void;
  /** stops the check with a failure on a requirement (default: the check's first requirement) */
  fail(message: string, o?: { requirement?: string; exchange?: Exchange }): never;
  expect(condition: unknown, message: string, o?: { requirement?: string; exchange?: Exchange }): void;
  expectStatus(x: Exchange, status: number | number[], o?: { requirement?: string; what?: string }): void;
  /**
   * Runs for a property that costs more than most: `atDefault` runs at the default run.runs, scaled in proportion
   * when a run asks for more (a nightly --runs 500) or fewer, never below 1.
   */
  scaledRuns(atDefault: number): number;
  /** a fast-check property over generated inputs, seeded, bounded, shrunk; its failure carries seed and path */
  property<T>(arb: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, o?: PropertyOptions<T>): Promise<void>;
  skip(reason: string): never;
  unsupported(reason: string): never;
  /**
   * Reports a requirement this check declares as skipped, with the reason, when the check ran but nothing it saw could
   * judge the requirement (a status no response carried). Ignored when the requirement failed or was judged after all.
   */
  notObserved(requirement: string, reason: string): void;
  /**
   * Judges one requirement the check declares, softly: a failure inside `body` is recorded against it and the check
   * goes on to its other requirements (a failure judges one requirement, not the whole check); `t.skip` inside reports
   * the requirement not observed, with the reason. A requirement judged without failure counts as passed even when
   * another requirement of the check failed. Transport and harness errors still stop the check. Returns true when the
   * requirement held. Use it wherever the next step does not depend on this one's outcome.
   */
  judge(requirement: string, body: () => Promise<void> | void): Promise<boolean>;
  /**
   * Records which of the forms SPEC.md and FACTS.md allow the target chose (e.g. "excluded debug fields sent as null"),
   * for the report; changes no verdict. Repeated notes are kept once, at most 20 per check.
   */
  note(text: string): void;
  /** a value from the target's fixtures section, or undefined */
  fixture<T>(name: string): T | undefined;
  /**
   * registers clean-up (e.g. delete a created user) that runs after the check, whatever its verdict; `what` names it
   * in the report when it cannot be done. It is retried (bounded) when it throws or resolves to an answer other than
   * 2xx or 404 (gone already), within one deadline shared by every step (1 s before the check's test times out).
   */
  defer(cleanup: () => Promise<unknown>, what?: string): void;
  /** records, for the footprint section of the report, something an earlier run left behind that this check repaired */
  repaired(what: string): void;
  /** a name no other check or run uses, for users, parties and other created resources */
  uniqueName(prefix: string): string;
}

const KEEP_EXCHANGES = 12;

/** The run's shared in-flight limit's channel, or undefined (a self-test run, which shares none). */
const inFlightChannel = (): string | undefined => inject('conformanceInFlight');

/**
 * Failures of one requirement recorded in full (message and exchange) per check; further ones keep a shortened
 * message without the exchange, and a report lists at most MAX_LISTED_FAILURES of them, then how many more there were:
 * a broken target at nightly depth (--runs 500) fails the same rule on every response, and the report stays bounded.
 */
const MAX_FULL_FAILURES = 5;
const MAX_LISTED_FAILURES = 20;

function trimmed(f: FailureRecord): FailureRecord {
  const { exchange: _exchange, ...rest } = f;
  return { ...rest, message: f.message.length > 300 ? `${f.message.slice(0, 300)}...` : f.message };
}

/** The failures a report lists: at most MAX_LISTED_FAILURES per requirement, then one entry saying how many more. */
export function boundedFailures(failures: FailureRecord[]): FailureRecord[] {
  const seen = new Map<string, number>();
  const out: FailureRecord[] = [];
  for (const f of failures) {
    const n = (seen.get(f.requirement) ?? 0) + 1;
    seen.set(f.requirement, n);
    if (n <= MAX_LISTED_FAILURES) out.push(n <= MAX_FULL_FAILURES ? f : trimmed(f));
  }
  for (const [requirement, n] of seen) {
    if (n > MAX_LISTED_FAILURES) out.push({ requirement, message: `... and ${n - MAX_LISTED_FAILURES} more failures of this requirement in this check, not listed` });
  }
  return out;
}

/**
 * The property run the async context belongs to, one storage for every check of the worker: Node 20 propagates each
 * enabled AsyncLocalStorage on every promise created afterwards, so one storage per check (never disabled) made every
 * promise of the run pay for every check run before it (a tenth of the workers' CPU at the default depth).
 */
const propertyRuns = new AsyncLocalStorage<{ check: Check; failures: FailureRecord[]; effects?: CaseEffects }>();

/**
 * What a property case run at once with others (PropertyOptions.concurrent) would add to its check's evidence: the
 * requirements its judge() blocks saw hold, those the generic checks judged on its responses, those it could not
 * observe. Kept apart until every case ended, then added for the cases a run one after another would have run (up to
 * the first failing one in the sequence): a case past it, started before that failure was known, adds nothing.
 */
interface CaseEffects {
  held: string[];
  judged: string[];
  unobserved: Array<{ requirement: string; reason: string }>;
}

class Check implements CheckContext {
  readonly failures: FailureRecord[] = [];
  readonly properties: PropertyRecord[] = [];
  readonly exchanges: ExchangeRecord[] = [];
  /** requirements the generic checks judged on this check's exchanges */
  readonly judged = new Set<string>();
  /** declared requirements nothing in this check could judge, with why */
  readonly unobserved: Array<{ requirement: string; reason: string }> = [];
  requests = 0;
  /** read-only mode's first refusal in this check, and how many failures were recorded before it */
  refused: { reason: string; failuresBefore: number } | undefined;
  readonly traffic: TrafficCounts = { requests: 0, overloaded: 0, redirected: 0, transportErrors: 0 };
  /** response times per operation, a bounded histogram each (reporting/latency.ts): no exchange is kept for them */
  readonly latency: Record<string, LatencyTally> = {};
  /** the longest chain of requests sent one after another (reporting/chains.ts): no exchange is kept for it */
  readonly chains = newChainTally();
  /** what the check created on the target that lasts (parties, packages) or is not removed yet (users) */
  readonly footprint = newFootprint();
  /** properties share what is left of 80% of the check's time, so the check ends (and cleans up) within its limit */
  private readonly propertyDeadline: number;
  firstRequestAt: string | undefined;
  lastResponseAt: string | undefined;
  /** failures collected inside one property run of this check (of the async context running it), which turn that run into a failing one */
  private get propertyFailures(): FailureRecord[] | undefined {
    const run = propertyRuns.getStore();
    return run?.check === this ? run.failures : undefined;
  }
  /** the effects of the property case run at once with others that the async context belongs to, if any */
  private get caseEffects(): CaseEffects | undefined {
    const run = propertyRuns.getStore();
    return run?.check === this ? run.effects : undefined;
  }
  private readonly clients = new Map<Api, ApiClient>();
  readonly seed: number;
  readonly schemas: SchemaRegistry;

  constructor(
    readonly decl: CheckDeclaration,
    readonly config: Config,
    /** the time its requests waited for their turn under run.maxRequestsPerSecond, which its time limits leave out */
    readonly paced: PacedTime = new PacedTime(),
  ) {
    this.propertyDeadline = performance.now() + config.run.checkTimeoutMs * 0.8;
    this.seed = (config.run.seed + hash32(decl.id)) % 2 ** 31;
    this.schemas = config.internal?.specsDir !== undefined ? schemaRegistry(config.internal.specsDir) : schemaRegistry();
  }

  get id(): string {
    return this.decl.id;
  }
  get api(): Api {
    return this.decl.api;
  }
  get target(): TargetConfig {
    return this.config.targets[this.decl.api]!;
  }
  get client(): ApiClient {
    return this.clientFor(this.decl.api);
  }

  clientFor(api: Api): ApiClient {
    let c = this.clients.get(api);
    if (c !== undefined) return c;
    const target = this.config.targets[api];
    if (target === undefined) throw new NotRun('skipped', `no ${api} target configured`);
    const http = new HttpClient({
      api,
      baseUrl: target.url,
      timeoutMs: this.config.run.timeoutMs,
      maxResponseBytes: this.config.run.maxResponseBytes,
      retries: this.config.run.retries,
      retryMaxWaitMs: this.config.run.retryMaxWaitMs,
      maxJsonDepth: this.config.run.maxJsonDepth,
      maxHeaderBytes: this.config.run.maxHeaderBytes,
      maxInFlight: perWorker(this.config),
      pacedTime: this.paced,
      // a check that holds shared target state keeps the checks waiting for it waiting while its requests wait
      urgent: holdsSharedState(this.decl),
      // run.concurrency as one limit over every worker of the run, where the run shares one
      ...(inFlightChannel() !== undefined ? { inFlight: sharedInFlight(inFlightChannel()!), latencySignal: !this.config.useReference } : {}),
      headers: target.headers,
      // the target's TLS settings and proxy (targets.<api>.tls, targets.<api>.proxy)
      ...(target.tls !== undefined || target.proxy !== undefined ? { transport: { ...(target.tls !== undefined ? { tls: target.tls } : {}), ...(target.proxy !== undefined ? { proxy: target.proxy } : {}) } } : {}),
      ...(this.config.secrets !== undefined ? { secrets: this.config.secrets } : {}),
      // the run's threads keep to it together, in memory the run shares with its limit of requests in flight
      ...(this.config.run.maxRequestsPerSecond !== undefined ? { pace: paceFor(this.config.run.maxRequestsPerSecond, workersFor(this.config), inFlightChannel() !== undefined ? { channel: inFlightChannel()!, memory: async () => (await sharedInFlight(inFlightChannel()!))?.pace } : undefined) } : {}),
      // read-only mode: the first refusal decides the verdict (skipped), also when a check caught it and went on
      ...(this.config.run.readOnly ? { readOnly: this.schemas.readOnlyPolicy(api), onRefused: (e: ReadOnlyRefused) => void (this.refused ??= { reason: e.message, failuresBefore: this.failures.length }) } : {}),
      // what the check asks to create counts from the request on, answered or not (the footprint)
      onRequest: (x) => noteRequest(this.footprint, x),
      onExchange: (x) => {
        this.firstRequestAt ??= x.startedAt;
        this.lastResponseAt = new Date().toISOString();
        this.requests++;
        this.traffic.requests++;
        const status = x.response?.status;
        if (x.ownStallMs !== undefined) this.traffic.ownStalls = (this.traffic.ownStalls ?? 0) + 1;
        if (status === undefined) this.traffic.transportErrors++;
        else if (status === 429 || status === 503) this.traffic.overloaded++;
        else if (status >= 300 && status < 400) this.traffic.redirected++;
        noteFootprint(this.footprint, x);
        noteLatency(this.latency, x);
        noteChain(this.chains, x);
        this.exchanges.push(x);
        if (this.exchanges.length > KEEP_EXCHANGES) this.exchanges.shift();
      },
    });
    c = new ApiClient(api, target, http, tokenProvider(api, target, this.config), this.schemas, (x) => this.expectConformant(x));
    this.clients.set(api, c);
    return c;
  }

  call(operationId: string, o?: CallOptions): Promise<Exchange> {
    return this.client.call(operationId, o);
  }

  private collect(fs: FailureRecord[]): void {
    const list = this.propertyFailures ?? this.failures;
    // past the first few of a requirement, a failure keeps no exchange (memory stays bounded at nightly depth)
    for (const f of fs) list.push(list.length >= MAX_FULL_FAILURES && list.filter((x) => x.requirement === f.requirement).length >= MAX_FULL_FAILURES ? trimmed(f) : f);
  }

  expectConformant(x: Exchange): void {
    const opId = x.operationId;
    if (opId === undefined) return;
    const operation = this.schemas.operation(x.api, opId);
    const { failures, judged } = runGenericChecks({ exchange: x, operation, schemas: this.schemas });
    // a requirement the target switched off, or one outside its version, is not judged by the generic checks either
    const target = this.config.targets[x.api];
    const catalogue = (this.catalogue ??= loadCatalogue(this.config.internal?.catalogueDir, this.config.run.checksDir));
    const judgedHere = (id: string) => {
      const r = catalogue.byId.get(id);
      return target === undefined || r === undefined || notJudgedOn(target, r) === undefined;
    };
    const fx = this.caseEffects;
    for (const r of judged) if (judgedHere(r)) (fx !== undefined ? fx.judged.push(r) : this.judged.add(r));
    this.collect(failures.filter((f) => judgedHere(f.requirement)));
    // run --also-validate-against: the target's own description too, apart from every verdict
    const own = this.config.alsoValidate?.[x.api];
    if (own !== undefined) tallyOwnDescription((this.own ??= { responses: 0, findings: [] }), own, x, operation);
  }

  /** what the target's own API description made of this check's responses (run --also-validate-against) */
  own: OwnDescriptionTally | undefined;
  /** the requirement catalogue, looked up once per check rather than for every exchange */
  private catalogue: ReturnType<typeof loadCatalogue> | undefined;

  fail(message: string, o: { requirement?: string; exchange?: Exchange } = {}): never {
    throw new ConformanceFailure([
      {
        requirement: o.requirement ?? this.decl.requirements[0]!,
        message: redactText(message),
        ...(o.exchange !== undefined ? { exchange: o.exchange.record } : {}),
      },
    ]);
  }

  expect(condition: unknown, message: string, o?: { requirement?: string; exchange?: Exchange }): void {
    if (!condition) this.fail(message, o);
  }

  expectStatus(x: Exchange, status: number | number[], o: { requirement?: string; what?: string } = {}): void {
    const wanted = Array.isArray(status) ? status : [status];
    if (wanted.includes(x.status)) return;
    const excerpt = x.text.length > 300 ? `${x.text.slice(0, 300)}...` : x.text;
    if (saysNothingOfTheRule(x.api, x.status)) {
      throw new TargetOverloaded(
        `${o.what ?? `${x.record.request.method} ${x.operationId ?? x.record.request.url}`}: the target answered ${x.status} (${x.status === 502 || x.status === 504 ? 'a gateway in front of it could not reach it in time' : 'overload or cancellation, which any endpoint may answer'}) where status ${wanted.join(' or ')} was expected: nothing judged${excerpt ? `: ${excerpt}` : ''}`,
      );
    }
    this.fail(
      `${o.what ?? `${x.record.request.method} ${x.operationId ?? x.record.request.url}`}: expected status ${wanted.join(' or ')}, got ${x.status}${excerpt ? `: ${excerpt}` : ''}`,
      { exchange: x, ...(o.requirement !== undefined ? { requirement: o.requirement } : {}) },
    );
  }

  scaledRuns(atDefault: number): number {
    return Math.max(1, Math.round((this.config.run.runs * atDefault) / DEFAULT_RUN.runs));
  }

  async property<T>(arb: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, o: PropertyOptions<T> = {}): Promise<void> {
    const numRuns = o.runs ?? this.config.run.runs;
    const budget = Math.max(1000, Math.floor(this.propertyDeadline + this.paced.ms - performance.now()));
    // the record keeps the place of the property's start, so properties run at once are reported in a stable order
    const named = { ...(o.name !== undefined ? { name: o.name } : {}), ...(o.requirement !== undefined ? { requirement: o.requirement } : {}) };
    const slot = this.properties.push({ ...named, seed: this.seed, numRuns }) - 1;
    let broken: TransportError | ReadOnlyRefused | undefined;
    const property = fc.asyncProperty(arb, async (value) => {
      // once the transport broke, shrinking would only repeat the same error, request after request
      if (broken !== undefined) throw broken;
      const collected: FailureRecord[] = [];
      let thrown: unknown;
      try {
        // a case run at once with others keeps its effects apart (concurrentCases)
        await propertyRuns.run({ check: this, failures: collected, ...(this.caseEffects !== undefined ? { effects: this.caseEffects } : {}) }, () => predicate(value));
      } catch (e) {
        thrown = e;
      }
      // generic-check failures make the run fail too, so fast-check shrinks towards a minimal offending input;
      // the predicate's own failure is kept beside them
      if (thrown instanceof TransportError || thrown instanceof ReadOnlyRefused) broken = thrown;
      if (thrown instanceof ConformanceFailure) throw new ConformanceFailure([...collected, ...thrown.failures]);
      if (collected.length > 0) throw new ConformanceFailure(collected);
      if (thrown !== undefined) throw thrown;
    });
    const params = { seed: this.seed, numRuns, interruptAfterTimeLimit: budget, markInterruptAsFailure: false };
    let details: Pick<fc.RunDetails<[T]>, 'failed' | 'seed' | 'numRuns' | 'counterexamplePath' | 'counterexample' | 'errorInstance'>;
    const most = waitingLanes(this.config);
    const lanes = o.concurrent === true ? most : typeof o.concurrent === 'number' ? Math.min(o.concurrent, most) : 1;
    // under run.maxRequestsPerSecond, cases one after another run here too (in one lane): this budget leaves out the time
    // their requests waited for their turn, fast-check's own time limit (fixed when it starts) cannot
    if ((lanes > 1 || this.config.run.maxRequestsPerSecond !== undefined) && numRuns > 1) {
      const first = await this.concurrentCases(property, numRuns, lanes, performance.now() + budget, o.stateKey);
      if (first === undefined || typeof first === 'number') details = { failed: false, seed: this.seed, numRuns: first ?? numRuns, counterexamplePath: null, counterexample: null, errorInstance: null };
      else {
        // the first failing case alone, then shrunk: what fast-check reports for the same seed one run after another
        const replay = await fc.check(property, { ...params, interruptAfterTimeLimit: Math.max(1000, Math.floor(this.propertyDeadline + this.paced.ms - performance.now())), path: String(first.index) });
        details = replay.failed ? replay : { failed: true, seed: this.seed, numRuns: first.index + 1, counterexamplePath: String(first.index), counterexample: first.value, errorInstance: first.error };
      }
    } else details = await fc.check(property, params);
    // the time budget ran out before any case ended (fast-check then fails with no error, and the cases run at once
    // report none run): nothing was judged, which is neither a pass nor an error without a reason
    if ((details.failed && details.errorInstance === null && (details as { interrupted?: boolean }).interrupted === true) || (!details.failed && details.numRuns === 0)) {
      this.properties[slot] = { ...named, verdict: 'error', seed: this.seed, numRuns: 0, plannedRuns: numRuns };
      throw new Error(`the property${o.name !== undefined ? ` "${o.name}"` : ''} ran out of its time (${budget} ms of the check's run.checkTimeoutMs ${this.config.run.checkTimeoutMs} ms) before any of its ${numRuns} cases ended: nothing judged (a slow target or a machine short of CPU; a larger run.checkTimeoutMs gives it more)`);
    }
    const record: PropertyRecord = { ...named, verdict: 'pass', seed: details.seed, numRuns: details.numRuns };
    // a property that passed with fewer cases than asked ran out of its time budget: the reports say how many it ran
    if (!details.failed && details.numRuns < numRuns) record.plannedRuns = numRuns;
    if (details.failed) {
      record.path = details.counterexamplePath ?? undefined;
      record.counterexample = redactText(fc.stringify(details.counterexample)).slice(0, 2000);
      const err = details.errorInstance;
      record.verdict = propertyVerdict(err, o.requirement !== undefined);
      this.properties[slot] = record;
      if (err instanceof ConformanceFailure) {
        const where = `(fast-check seed ${details.seed}, path "${record.path}", counterexample ${record.counterexample})`;
        throw new ConformanceFailure(err.failures.map((f) => ({ ...f, message: `${f.message} ${where}` })));
      }
      if (err instanceof NotRun || err instanceof ReadOnlyRefused) throw err;
      if (err instanceof TransportError || err instanceof AuthUnavailable) throw err;
      if (o.requirement !== undefined) {
        throw new ConformanceFailure([{ requirement: o.requirement, message: `property failed: ${String(err)} (seed ${details.seed}, path "${record.path}")` }]);
      }
      throw err instanceof Error ? err : new Error(String(err));
    }
    this.properties[slot] = record;
  }

  /**
   * Runs the cases fast-check would generate for the check's seed, `lanes` at once; resolves to the first
   * failing case by its place in the sequence, to the number of cases run when the time budget ended the runs early,
   * or to undefined when all passed.
   */
  private async concurrentCases<T>(property: fc.IAsyncProperty<[T]>, numRuns: number, lanes: number, until: number, stateKey?: (value: T) => string): Promise<{ index: number; value: [T]; error: unknown } | number | undefined> {
    const values = fc.sample(property, { seed: this.seed, numRuns });
    const failures: Array<{ index: number; value: [T]; error: unknown }> = [];
    /** per state key, the end of the last case started with it */
    const tails = new Map<string, Promise<void>>();
    /** per case (its place in the sequence), what it would add to the check's evidence */
    const effects = new Map<number, CaseEffects>();
    let next = 0;
    let ran = 0;
    const pacedFrom = this.paced.ms;
    const lane = async () => {
      // no case is started past the first failure's place nor past the budget (which leaves out the paced time)
      while (next < values.length && performance.now() - (this.paced.ms - pacedFrom) < until && !failures.some((f) => f.index < next)) {
        const index = next++;
        const value = values[index]!;
        const key = stateKey?.(value[0]);
        const before = key !== undefined ? tails.get(key) : undefined;
        let done = () => {};
        if (key !== undefined) tails.set(key, new Promise<void>((resolve) => (done = resolve)));
        try {
          await before;
          // a case of the same key before it failed: this one would not have run one case after another
          if (failures.some((f) => f.index < index)) continue;
          const fx: CaseEffects = { held: [], judged: [], unobserved: [] };
          effects.set(index, fx);
          const outcome = await propertyRuns.run({ check: this, failures: [], effects: fx }, () => property.run(value));
          ran++;
          if (outcome !== null && !fc.PreconditionFailure.isFailure(outcome)) failures.push({ index, value, error: outcome.error });
        } finally {
          done();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(values.length, lanes) }, lane));
    const first = failures.sort((a, b) => a.index - b.index)[0];
    // the evidence of the cases a run one after another would have run: up to the first failing one
    for (const [index, fx] of [...effects].sort((a, b) => a[0] - b[0])) {
      if (first !== undefined && index > first.index) break;
      for (const r of fx.held) this.held.add(r);
      for (const r of fx.judged) this.judged.add(r);
      this.unobserved.push(...fx.unobserved);
    }
    if (first !== undefined) return first;
    return ran < values.length ? ran : undefined;
  }

  skip(reason: string): never {
    throw new NotRun('skipped', reason);
  }

  unsupported(reason: string): never {
    throw new NotRun('unsupported', reason);
  }

  notObserved(requirement: string, reason: string): void {
    if (!this.decl.requirements.includes(requirement)) throw new Error(`check ${this.decl.id} does not declare ${requirement}`);
    (this.caseEffects?.unobserved ?? this.unobserved).push({ requirement, reason });
  }

  readonly notes: string[] = [];
  note(text: string): void {
    const n = redactText(text);
    if (this.notes.length < 20 && !this.notes.includes(n)) this.notes.push(n);
  }

  /** requirements a judge() block judged without failure */
  readonly held = new Set<string>();

  async judge(requirement: string, body: () => Promise<void> | void): Promise<boolean> {
    if (!this.decl.requirements.includes(requirement)) throw new Error(`check ${this.decl.id} does not declare ${requirement}`);
    const own = () => (this.propertyFailures ?? this.failures).filter((f) => f.requirement === requirement).length;
    const before = own();
    try {
      await body();
    } catch (e) {
      if (e instanceof ConformanceFailure) {
        this.collect(e.failures);
        return false;
      }
      if (e instanceof NotRun) {
        this.notObserved(requirement, e.reason);
        return false;
      }
      throw e;
    }
    if (own() > before) return false;
    const fx = this.caseEffects;
    if (fx !== undefined) fx.held.push(requirement);
    else this.held.add(requirement);
    return true;
  }

  fixture<T>(name: string): T | undefined {
    return this.target.fixtures[name] as T | undefined;
  }

  readonly cleanups: Array<{ run: () => Promise<unknown>; what?: string }> = [];
  defer(cleanup: () => Promise<unknown>, what?: string): void {
    this.cleanups.push({ run: cleanup, ...(what !== undefined ? { what } : {}) });
  }

  repaired(what: string): void {
    this.footprint.repaired.push(what);
    this.note(`repaired: ${what}`);
  }

  private names = 0;
  uniqueName(prefix: string): string {
    return `${prefix}-${RUN_TAG}-${(hash32(this.decl.id) % 46656).toString(36)}-${(this.names++).toString(36)}`;
  }

  /**
   * Runs clean-ups in reverse order, each retried up to CLEANUP_ATTEMPTS times with a growing wait when it throws or
   * resolves to an answer other than 2xx or 404 (a target briefly overloaded, a connection reset), all before
   * `deadline` (retriedStep): a step still waiting then is abandoned, later ones are not tried. Once
   * OVERLOADED_STEPS steps in a row ended refused as overloaded (429 or 503 after every retry), the target refuses
   * everything: the later steps are not tried either (against such a target each step took some 3.5 s of retries, and a
   * property whose twenty cases each left a user to delete waited out the check's whole time limit). Their failures
   * never change the verdict; what could not be cleaned up is returned, for the report.
   */
  async cleanUp(deadline: CleanupDeadline = () => undefined): Promise<string[]> {
    const problems: string[] = [];
    let overloaded = 0;
    for (const c of this.cleanups.reverse()) {
      if (overloaded >= OVERLOADED_STEPS) {
        problems.push(`${c.what ?? 'a clean-up step'}: not tried, the target refused the ${OVERLOADED_STEPS} clean-up steps before it as overloaded (429 or 503)`);
        continue;
      }
      // past the deadline, a step is not tried ('not tried, ...')
      const problem = await retriedStep(c.run, deadline);
      overloaded = OVERLOAD_PROBLEM.test(problem) ? overloaded + 1 : 0;
      if (problem !== '') problems.push(`${c.what ?? 'a clean-up step'}: ${problem}`);
    }
    return problems;
  }
}

/** When the clean-up must be done (a Date.now() time) and what to say of a step cut there; undefined: no bound. */
export type CleanupDeadline = () => { at: number; why: string } | undefined;

/** A step's time ran out while it waited for its answer (the request goes on, bounded by its own timeout). */
const OUT_OF_TIME = Symbol('out of time');
async function withinTime<T>(p: Promise<T>, deadline: CleanupDeadline): Promise<T> {
  const d = deadline();
  // no deadline (a timer longer than 2^31 - 1 ms would fire at once)
  if (d === undefined || d.at - Date.now() > 2 ** 31 - 1) return p;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(OUT_OF_TIME), Math.max(0, d.at - Date.now()))))]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the clean-up leaves of the test's time limit, for the report to be written before the test runner gives up. */
const CLEANUP_MARGIN_MS = 1000;

/**
 * Runs a clean-up or repair step up to CLEANUP_ATTEMPTS times with a growing wait while it throws or resolves to an
 * answer other than 2xx or 404, all before `deadline` (the test's time limit, or a stop at once): a step still waiting
 * then is abandoned. '' once it succeeded, else what went wrong.
 */
export async function retriedStep(run: () => Promise<unknown>, deadline: CleanupDeadline = () => undefined): Promise<string> {
  let problem = '';
  let attempts = 0;
  const left = () => {
    const d = deadline();
    return d === undefined ? Number.POSITIVE_INFINITY : d.at - Date.now();
  };
  const ranOut = () => {
    const why = deadline()?.why ?? 'the clean-up time ran out';
    // the time ran out before the step's first attempt (between the caller's check and this one): it was not tried
    return attempts === 0 ? `not tried, ${why}` : `${problem === '' ? 'not done' : problem} (${attempts} attempt${attempts === 1 ? '' : 's'}, then ${why})`;
  };
  for (let attempt = 0; attempt < CLEANUP_ATTEMPTS; attempt++) {
    if (attempt > 0) {
      const wait = CLEANUP_BACKOFF_MS * 2 ** (attempt - 1);
      if (wait >= left()) return ranOut();
      await new Promise((r) => setTimeout(r, wait));
    }
    if (left() <= 0) return ranOut();
    attempts++;
    try {
      const status = (await withinTime(Promise.resolve().then(run), deadline)) as { status?: unknown } | undefined;
      const s = typeof status === 'object' && status !== null && typeof status.status === 'number' ? status.status : undefined;
      problem = s === undefined || (s >= 200 && s < 300) || s === 404 ? '' : `answered ${s}`;
    } catch (e) {
      // read-only mode refused the step's request: nothing was created that it would remove
      if (e instanceof ReadOnlyRefused) return '';
      if (e === OUT_OF_TIME) {
        problem = 'no answer';
        return ranOut();
      }
      problem = redactText((e as Error).message);
    }
    if (problem === '') return '';
  }
  return `${problem} (${attempts} attempts)`;
}

/** why a check did not start: the run was stopped (harness/run/stop-now.ts) */
const NOT_STARTED = 'not run: the run was interrupted before this check started';

/** Clean-up steps in a row refused as overloaded after which the check's later steps are not tried (Check.cleanUp). */
const OVERLOADED_STEPS = 2;
/** a step's problem that says the target refused it as overloaded: its answer, or the check's TargetOverloaded error */
const OVERLOAD_PROBLEM = /answered (429|503)\b/;

/** How often a clean-up step is tried, and the wait before the second try (doubled before each further one). */
const CLEANUP_ATTEMPTS = 3;
const CLEANUP_BACKOFF_MS = 250;

/** distinguishes this run's resources from those of earlier runs against the same target */
const RUN_TAG = `${Date.now().toString(36).slice(-5)}${Math.floor(Math.random() * 1296).toString(36)}`;

const providers = new Map<string, TokenProvider>();
function tokenProvider(api: Api, target: TargetConfig, config: Config): TokenProvider {
  const key = `${api}:${target.url}`;
  let p = providers.get(key);
  if (p === undefined) {
    p = new TokenProvider(target.auth, config.run.timeoutMs, config.run.maxResponseBytes, config.run.maxHeaderBytes, config.run.maxJsonDepth);
    providers.set(key, p);
  }
  return p;
}

/** The verdict of a property whose case failed with `err`, as the check turns that error into its own verdict. */
function propertyVerdict(err: unknown, attributed: boolean): Verdict {
  if (err instanceof ConformanceFailure) return 'fail';
  if (err instanceof NotRun) return err.verdict;
  if (err instanceof ReadOnlyRefused || err instanceof AuthUnavailable) return 'skipped';
  if (err instanceof TransportError) return 'error';
  return attributed ? 'fail' : 'error';
}

/** Why a requirement is not judged on this target (switched off by its configuration, or outside its version range). */
export function notJudgedOn(target: TargetConfig, r: Requirement): string | undefined {
  if (target.disabledRequirements.includes(r.id)) return "disabled by the target's configuration";
  const range = outOfRange(target.version, r.since, r.until);
  return range === undefined ? undefined : `version: ${range}`;
}

const featureOff = (target: TargetConfig, features: readonly string[] | undefined) => (features ?? []).find((f) => target.features[f] === false);

/**
 * Why a declared check does not run against this target, or undefined when it runs: none of its requirements is judged
 * here, or a feature it (or one of its judged requirements) needs is switched off. A check runs whole or not at all,
 * since its body exercises every requirement it names.
 */
export function gate(decl: CheckDeclaration, config: Config, requirements: Requirement[]): string | undefined {
  const target = config.targets[decl.api];
  if (target === undefined) return `no ${decl.api} target configured`;
  const declaredOff = featureOff(target, decl.features);
  if (declaredOff !== undefined) return `feature ${declaredOff} is switched off for this target`;
  const judged = requirements.filter((r) => notJudgedOn(target, r) === undefined);
  if (judged.length === 0) {
    if (requirements.every((r) => target.disabledRequirements.includes(r.id))) return `requirement ${decl.requirements.join(', ')} disabled by the target's configuration`;
    return notJudgedOn(target, requirements.find((r) => !target.disabledRequirements.includes(r.id))!);
  }
  const off = judged.map((r) => featureOff(target, r.features)).find((f) => f !== undefined);
  if (off !== undefined) return `feature ${off} is switched off for this target`;
  // a rule bound to versions is about what a version serves: its check asks the operations whatever the version
  return judged.some((r) => r.since !== undefined || r.until !== undefined) ? undefined : operationsNotServed(decl, target);
}

/**
 * Why none of the operations a check declares is served at the target's version (the API description's x-since and
 * x-until), or undefined when one is or the check declares none: such a check could only meet "no such route".
 */
function operationsNotServed(decl: CheckDeclaration, target: TargetConfig): string | undefined {
  if (decl.operations.length === 0 || target.version === undefined) return undefined;
  const registry = schemaRegistry();
  const reasons: string[] = [];
  for (const id of decl.operations) {
    if (!registry.hasOperation(decl.api, id)) return undefined;
    const op = registry.operation(decl.api, id);
    const range = outOfRange(target.version, op.since, op.until);
    if (range === undefined) return undefined;
    reasons.push(`${id} ${range}`);
  }
  return `version: not served at the target's version (${reasons.join('; ')})`;
}

/** the rules the generic checks judge on every response, which a check declares without judging them itself */
const GENERIC_STATUS_RULE = /^[a-z]+\.(http\.(documented-status|no-server-error|documented-content-type)|errors\.error-body)$/;

function describeTraffic(t: TrafficCounts): string {
  if (t.requests === 0) return 'no request was sent';
  const parts = [
    t.overloaded > 0 ? `${t.overloaded} answered 429 or 503` : '',
    t.redirected > 0 ? `${t.redirected} redirected` : '',
    t.transportErrors > 0 ? `${t.transportErrors} had no answer` : '',
  ].filter(Boolean);
  return `${t.requests} request${t.requests === 1 ? '' : 's'}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
}

/**
 * What an error that ended a check says, never empty: its name and message, or where the message is empty (an
 * AggregateError of a connection tried on several addresses, an Error()) its code and the messages of its causes.
 */
export function whyErrored(e: unknown): string {
  if (!(e instanceof Error)) return e === undefined || e === null || String(e) === '' ? `a value that is no error was thrown (${e === '' ? 'an empty string' : String(e)})` : String(e);
  if (e.message.trim() !== '') return `${e.name}: ${e.message}`;
  const code = (e as { code?: unknown }).code;
  const causes = [...(e instanceof AggregateError ? e.errors : []), (e as { cause?: unknown }).cause].filter((c): c is Error => c instanceof Error && c.message.trim() !== '');
  const details = [typeof code === 'string' ? code : '', ...causes.map((c) => c.message)].filter(Boolean);
  return `${e.name} without a message${details.length > 0 ? `: ${[...new Set(details)].join('; ')}` : ' (the stack names where it came from in the test output)'}`;
}

function verdictOf(check: Check, thrown: unknown): { verdict: Verdict; reason?: string; error?: string } {
  // read-only mode refused a request the check needed: skipped, whatever followed (a check that caught the refusal and
  // went on judged a state it could not make); failures recorded before the first refusal still stand
  const refused = check.refused ?? (thrown instanceof ReadOnlyRefused ? { reason: thrown.message, failuresBefore: check.failures.length } : undefined);
  if (refused !== undefined) {
    if (refused.failuresBefore === 0) {
      check.failures.length = 0;
      return { verdict: 'skipped', reason: refused.reason };
    }
    check.failures.length = refused.failuresBefore;
    return { verdict: 'fail' };
  }
  // a reason may quote what the target sent (which may echo a configured secret): redacted like every message
  if (thrown instanceof NotRun) return check.failures.length > 0 ? { verdict: 'fail' } : { verdict: thrown.verdict, reason: redactText(thrown.reason) };
  if (thrown instanceof AuthUnavailable) return check.failures.length > 0 ? { verdict: 'fail' } : { verdict: 'skipped', reason: redactText(thrown.message) };
  if (thrown instanceof ConformanceFailure) {
    check.failures.push(...thrown.failures);
    return { verdict: 'fail' };
  }
  if (thrown !== undefined) {
    const error = redactText(whyErrored(thrown));
    // a failure seen before the harness broke still stands
    return check.failures.length > 0 ? { verdict: 'fail', error } : { verdict: 'error', error };
  }
  return check.failures.length > 0 ? { verdict: 'fail' } : { verdict: 'pass' };
}

async function label(decl: CheckDeclaration, requirements: Requirement[]): Promise<void> {
  await allure.epic(decl.api);
  // names the check, so the reports can give each Allure result the status of its verdict (reporting/allure-status.ts)
  await allure.label(CHECK_LABEL, decl.id);
  for (const op of decl.operations) await allure.feature(op);
  for (const r of requirements) {
    await allure.story(r.id);
    await allure.label('requirement', r.id);
    await allure.tag(r.level);
  }
  const strongest = requirements.some((r) => r.level === 'MUST') ? 'critical' : requirements.some((r) => r.level === 'SHOULD') ? 'normal' : 'minor';
  await allure.severity(strongest);
  await allure.description(requirements.map((r) => `**${r.id}** (${r.level}): ${r.statement}`).join('\n\n'));
}

/** The configuration a check runs with: the self-test may route its requirements to a server of their own. */
function routed(config: Config, decl: CheckDeclaration): Config {
  const route = config.internal?.routes?.find((r) => r.checks.includes(decl.id));
  return route === undefined ? config : { ...config, targets: route.targets };
}

/** the run.redactNames this thread redacts (registered once per configuration: the check threads of a run) */
let registeredNames: string | undefined;
function secretNamesOf(config: Config): void {
  const names = (config.run as { redactNames?: string[] }).redactNames ?? [];
  const key = JSON.stringify(names);
  if (key === registeredNames) return;
  registeredNames = key;
  registerSecretNames(names);
}

/**
 * Declares a conformance check. Not declared at all when the selection (--requirement, --check, --operation,
 * --exclude-requirement: harness/run/selection.ts) leaves it out, or when
 * it belongs to another shard than the run's (--shard i/n).
 */
export function conformance(decl: CheckDeclaration, body: (t: CheckContext) => Promise<void>): void {
  const config = inject('conformanceConfig');
  secretNamesOf(config);
  const routes = config.internal?.routes;
  if (routes !== undefined ? !routes.some((r) => r.checks.includes(decl.id)) : !checkSelected(decl, config.run)) return;
  if (!inShard(decl.id, config.run.shard)) return;
  // a run loads the suite files through group files (harness/run-groups.ts): the check names its own file
  const source = loadingSuiteFile();
  const meta: CheckResultMeta = { ...decl, ...(source !== undefined ? { file: source } : {}) };
  const shares = decl.shares ?? [];
  const reads = decl.reads ?? [];
  // a check that shares target state is a sequential test (in declaration order within its file) and may first wait,
  // at most run.checkTimeoutMs, for the checks of other files that hold its resources; one that only reads it runs
  // beside the others (readers wait for no reader)
  const order = shares.length > 0 ? { concurrent: false, sequential: true } : {};
  const holds = holdsSharedState(decl);
  const timeout = config.run.checkTimeoutMs * (holds ? 2 : 1) + 5000;
  if (holds && source !== undefined) filesHoldingState.add(source);
  // the test's time limit is applied here, from the moment the check has its slot (vitest's would count the wait)
  test(decl.title, { meta: { conformance: meta }, timeout: 0, ...order }, async (ctx) => {
    const release = holds ? undefined : await (await checkSlots(inject('conformanceConfig'))).acquire(source !== undefined && filesHoldingState.has(source));
    const paced = new PacedTime();
    let clear: (() => void) | undefined;
    try {
      const limit = new Promise<never>((_, reject) => {
        clear = pacedTimer(timeout, paced, () => reject(new Error(`Test timed out in ${timeout}ms.`)), PACED_EXTENSION_FACTOR * config.run.checkTimeoutMs);
      });
      await Promise.race([runCheck(ctx, paced), limit]);
    } finally {
      clear?.();
      release?.();
    }
  });

  async function runCheck(ctx: TestContext, paced: PacedTime): Promise<void> {
    const started = performance.now();
    // the config is read again at run time: the self-test provides a new one for every run of the same files
    const config = routed(inject('conformanceConfig'), decl);
    const m = ctx.task.meta.conformance!;
    const catalogue = loadCatalogue(config.internal?.catalogueDir, config.run.checksDir);
    // a check of the run's checks folder (run.checksDir) judges only that folder's requirements, under its own id
    const own = /^(ledger|scan|validator|registry)\./;
    const fromFolder = config.run.checksDir !== undefined && m.file !== undefined && !m.file.startsWith('suites/');
    if (fromFolder && (own.test(decl.id) || decl.requirements.some((id) => own.test(id)))) {
      throw new Error(`check ${decl.id} of ${m.file} takes an id of the suite's own (ledger., scan., validator., registry.): a check of a checks folder has an id of its own and cites only the requirements of its requirements.yaml`);
    }
    const requirements = decl.requirements.map((id) => {
      const r = catalogue.byId.get(id);
      if (r === undefined) throw new Error(`check ${decl.id} cites ${id}, which is not in specs/requirements/${decl.api}.yaml${config.run.checksDir !== undefined ? ` nor in ${config.run.checksDir}/requirements.yaml` : ''}`);
      return r;
    });
    await label(decl, requirements);
    const stopChannel = inject('conformanceStopChannel');
    const skipReason = stopping(stopChannel) ? NOT_STARTED : gate(decl, config, requirements);
    if (skipReason !== undefined) {
      Object.assign(m, { verdict: 'skipped', reason: skipReason, durationMs: 0 });
      ctx.skip(skipReason);
      return;
    }
    // a check runs when one of its requirements applies; the others it names are not judged on this target
    const target = config.targets[decl.api]!;
    const inapplicable = requirements.flatMap((r) => {
      const reason = notJudgedOn(target, r);
      return reason === undefined ? [] : [{ requirement: r.id, reason }];
    });
    if (inapplicable.length > 0) m.inapplicable = inapplicable;
    // the shared state's locks are released however the set-up, the body or the clean-up end; their wait leaves out the
    // time the run's requests waited for their turn under run.maxRequestsPerSecond, as the holders' limits do
    const paceMemory = config.run.maxRequestsPerSecond !== undefined && inFlightChannel() !== undefined ? (await sharedInFlight(inFlightChannel()!))?.pace : undefined;
    const pacedWait = paceMemory !== undefined ? { ms: runPacedClock(paceMemory), maxMs: PACED_EXTENSION_FACTOR * config.run.checkTimeoutMs } : undefined;
    const { check, thrown, cleanupProblems, footprint } = await withSharedState(shares, target.url, config.run.checkTimeoutMs, async (lockError) => {
      let thrown = lockError;
      const check = new Check(decl, config, paced);
      await allure.parameter('seed', String(check.seed));
      // the body is cut off at the check's time limit, so that its clean-up still runs before the test runner gives up
      // (time its requests waited for their turn under run.maxRequestsPerSecond is not counted: the run's, not the check's)
      let clearLimit: (() => void) | undefined;
      const limit = new Promise<never>((_, reject) => {
        clearLimit = pacedTimer(config.run.checkTimeoutMs, paced, () => reject(new Error(`the check did not finish within ${config.run.checkTimeoutMs} ms (run.checkTimeoutMs)${paced.ms >= 1 ? `, besides the ${Math.round(paced.ms)} ms its requests waited for their turn under run.maxRequestsPerSecond` : ''}`)));
      });
      // the run was stopped while the check waited for its shared resources: it does not start
      if (thrown === undefined && stopping(stopChannel)) thrown = new NotRun('skipped', NOT_STARTED);
      // a stop at once (SIGTERM, a second Ctrl-C) cuts the body off too, and the clean-up runs within STOP_CLEANUP_MS
      const stop = whenStoppedNow(stopChannel, () => new NotRun('skipped', 'not finished: the run was stopped at once (SIGTERM or a second SIGINT) while the check ran'));
      if (thrown === undefined) {
        try {
          await Promise.race([body(check), limit, stop.stopped]);
        } catch (e) {
          // a rejection without a value is an error too, not a pass
          thrown = e ?? new Error('the check was rejected without a reason (undefined)');
        }
      }
      clearLimit?.();
      stop.done();
      // the clean-up, its retries and the HTTP client's own retries of 429 and 503 share what is left of the test's
      // time, or of the STOP_CLEANUP_MS after a stop at once, whichever ends first
      const testEnds = () => Date.now() + (started + timeout + Math.min(paced.ms, PACED_EXTENSION_FACTOR * config.run.checkTimeoutMs) - CLEANUP_MARGIN_MS - performance.now());
      const cleanupProblems = await check.cleanUp(() => {
        const at = stoppedAt(stopChannel);
        const ends = testEnds();
        return at !== undefined && at + STOP_CLEANUP_MS < ends ? { at: at + STOP_CLEANUP_MS, why: `not done within ${STOP_CLEANUP_MS} ms of the run's stop at once` } : { at: ends, why: 'the clean-up time ran out' };
      });
      const ledgerUrl = config.targets.ledger?.url;
      const footprint = reportedFootprint(check.footprint, config.useReference || ledgerUrl === undefined ? undefined : { reportsDir: config.run.reportsDir, ledgerUrl });
      return { check, thrown, cleanupProblems, footprint };
    }, reads, pacedWait);
    let outcome = verdictOf(check, thrown);
    const failed = new Set(check.failures.map((f) => f.requirement));
    // a requirement a judge() block saw hold passes whatever else the check did, unless another step failed it
    for (const r of check.held) if (!failed.has(r)) check.judged.add(r);
    // a generic status rule the check declares passes only on a response it could judge: a run of 429, 503,
    // redirects or transport errors judged none, and the check's own pass says nothing about it
    // (an errored check leaves them in error, not merely unobserved)
    if (outcome.verdict !== 'error') for (const r of decl.requirements) {
      if (GENERIC_STATUS_RULE.test(r) && !failed.has(r) && !check.judged.has(r) && !check.unobserved.some((u) => u.requirement === r)) {
        check.unobserved.push({ requirement: r, reason: `no response this rule could judge (${describeTraffic(check.traffic)})` });
      }
    }
    const unobserved = check.unobserved.filter((u) => !failed.has(u.requirement) && !check.judged.has(u.requirement));
    if (unobserved.length > 0) m.inapplicable = [...(m.inapplicable ?? []), ...unobserved];
    // a check that judged none of its requirements did not pass: it saw nothing to judge
    const notJudged = new Set((m.inapplicable ?? []).map((i) => i.requirement));
    if (outcome.verdict === 'pass' && unobserved.length > 0 && decl.requirements.every((r) => notJudged.has(r))) {
      outcome = { verdict: 'skipped', reason: unobserved.map((u) => `${u.requirement}: ${u.reason}`).join('; ') };
    }
    Object.assign(m, {
      verdict: outcome.verdict,
      ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      ...(check.failures.length > 0 ? { failures: boundedFailures(check.failures) } : {}),
      ...(outcome.verdict === 'fail' ? { blocked: decl.requirements.filter((r) => !failed.has(r) && !check.judged.has(r) && !notJudged.has(r)) } : {}),
      ...(check.properties.length > 0 ? { properties: check.properties } : {}),
      ...(check.notes.length > 0 ? { notes: check.notes } : {}),
      ...(check.own !== undefined ? { ownDescription: check.own } : {}),
      ...(check.judged.size > 0 ? { judged: [...check.judged] } : {}),
      ...(outcome.verdict === 'fail' || outcome.verdict === 'error' ? { exchanges: check.exchanges } : {}),
      ...(cleanupProblems.length > 0 ? { reason: [outcome.reason, `clean-up failed: ${cleanupProblems.join('; ')}`].filter(Boolean).join('; '), notCleanedUp: cleanupProblems } : {}),
      ...(footprint !== undefined ? { footprint } : {}),
      requests: check.requests,
      ...(check.traffic.requests > 0 ? { traffic: check.traffic, latency: check.latency } : {}),
      ...(check.firstRequestAt !== undefined ? { firstRequestAt: check.firstRequestAt, lastResponseAt: check.lastResponseAt } : {}),
      ...(reportedChain(check.chains) !== undefined ? { chain: reportedChain(check.chains) } : {}),
      durationMs: Math.round(performance.now() - started),
    });
    if (outcome.verdict === 'fail' || outcome.verdict === 'error') {
      const attachedBodies = new Set<string>();
      const attachedExchanges = new Set<string>();
      for (const f of check.failures) {
        if (f.exchange === undefined) continue;
        // the same request answered the same way (a generic check failing on every call of an operation): attached once
        const same = `${f.requirement}\n${exchangeKey(f.exchange)}`;
        if (attachedExchanges.has(same)) continue;
        attachedExchanges.add(same);
        await allure.attachment(`${f.requirement} exchange`, JSON.stringify(f.exchange, null, 2), 'application/json');
        // the bytes of a binary request body, once per requirement and body: its curl line sends them from a file
        const bytes = binaryBodyFor(f.exchange);
        const key = `${f.requirement}\n${f.exchange.request.body ?? ''}`;
        if (bytes !== undefined && !attachedBodies.has(key)) {
          attachedBodies.add(key);
          await allure.attachment(bodyAttachmentName(f.requirement), Buffer.from(bytes), 'application/octet-stream');
        }
      }
      if (outcome.verdict === 'error') await allure.attachment('recent exchanges', JSON.stringify(check.exchanges, null, 2), 'application/json');
      const text = check.failures.map((f) => `[${f.requirement}] ${f.message}`).join('\n') || outcome.error || 'failed';
      const err = new Error(text);
      err.name = outcome.verdict === 'fail' ? 'ConformanceFailure' : 'HarnessError';
      err.stack = `${err.name}: ${text}`;
      throw err;
    }
    if (outcome.verdict === 'skipped' || outcome.verdict === 'unsupported') ctx.skip(`${outcome.verdict}: ${outcome.reason ?? ''}`);
  }
}

/**
 * A worker's slots for checks (its share of run.concurrency): a check that holds no shared target state takes one before
 * it starts, and gives it back when it ends. A check that holds shared state takes none: it waits for its lock instead,
 * and the checks waiting for that lock wait for it, so it never queues behind the worker's other checks (vitest's own
 * limit, which these slots replace, served tests first come first served, and the package uploads waited seconds for a
 * slot with nobody holding their lock). A check of a file that has such holders goes before the others: the holders
 * declared after it in its file wait for it.
 *
 * While requests wait for the run's limit of requests in flight, or for their turn under run.maxRequestsPerSecond (in
 * any worker), a worker starts no further check beyond its first: the run is bound by that limit, and another check would only share the same requests per second with the
 * running ones, each taking longer towards run.checkTimeoutMs (a property's cases stop at 80% of it). At nightly depth
 * (--runs 500, 45 000 requests through the benchmark's latency profile) with every slot in use, four properties stopped
 * so with 179 to 298 of their 500 cases. Where the checks mostly wait on answers (a real node's latency, the 20 ms
 * proxy), the limit has room and the slots fill.
 */
class CheckSlots {
  private active = 0;
  private readonly first: Array<() => void> = [];
  private readonly waiting: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;
  /** requests waiting for the run's limit now, in every worker */
  waitingRequests: () => number = () => 0;
  constructor(private limit: number) {}

  setLimit(limit: number): void {
    this.limit = limit;
    this.hand();
  }

  /** starts the waiting checks there is room for, those before the others first */
  private hand(): void {
    while (this.first.length + this.waiting.length > 0 && this.active < this.limit && (this.active === 0 || this.waitingRequests() === 0)) {
      this.active++;
      (this.first.shift() ?? this.waiting.shift())!();
    }
    // checks held back while requests wait look again shortly (requests end without telling the slots)
    if (this.first.length + this.waiting.length > 0 && this.active < this.limit && this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.hand();
      }, SLOT_RECHECK_MS);
    }
  }

  async acquire(first: boolean): Promise<() => void> {
    await new Promise<void>((resolve) => {
      (first ? this.first : this.waiting).push(resolve);
      this.hand();
    });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.hand();
    };
  }
}
/** how often checks held back while requests wait for the run's limit look again */
const SLOT_RECHECK_MS = 25;
let slots: CheckSlots | undefined;
/** This worker's check slots, at its share of the run's (current) run.concurrency, watching the run's limit. */
async function checkSlots(config: Config): Promise<CheckSlots> {
  slots ??= new CheckSlots(perWorker(config));
  const channel = inFlightChannel();
  const gate = channel !== undefined ? await sharedInFlight(channel) : undefined;
  // requests waiting for their turn under run.maxRequestsPerSecond hold further checks back too
  slots.waitingRequests = gate !== undefined ? () => gate.waitingAll + paceWaiting(gate.pace) : () => 0;
  slots.setLimit(perWorker(config));
  return slots;
}
/** Whether a check holds shared target state while it runs (`shares`, or `reads`): others may wait for it. */
const holdsSharedState = (decl: Pick<CheckDeclaration, 'shares' | 'reads'>): boolean => (decl.shares?.length ?? 0) + (decl.reads?.length ?? 0) > 0;

/** The suite files with checks that hold shared target state (filled as the files are collected). */
const filesHoldingState = new Set<string>();
