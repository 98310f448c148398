/** Shapes shared by the harness, the suites and the reports. */

export const APIS = ['ledger', 'scan', 'validator', 'registry'] as const;
export type Api = (typeof APIS)[number];

export type Level = 'MUST' | 'SHOULD' | 'MAY';

/**
 * The five verdicts, never blurred:
 * - pass: the target kept the rule;
 * - fail: the target broke the rule;
 * - error: the harness or the network broke, so nothing is known about the rule;
 * - skipped: not run, with a reason (feature off, version out of range, fixture missing, not selected);
 * - unsupported: an optional behaviour the target does not offer.
 */
export type Verdict = 'pass' | 'fail' | 'error' | 'skipped' | 'unsupported';

/** A requirement's verdict in a report: a check verdict, or untested when no check covers it. */
export type RequirementVerdict = Verdict | 'untested';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** body as text (JSON re-serialised, binary summarised); secrets redacted */
  body?: string;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  /** body text, cut at the recording limit; secrets redacted */
  body: string;
  /** true when `body` was cut for the record */
  bodyTruncated?: boolean;
}

/** One request and its response (or the transport error instead), recorded and redacted at the source. */
export interface ExchangeRecord {
  api: Api;
  operationId?: string;
  request: RecordedRequest;
  response?: RecordedResponse;
  /** transport error: refused, timed out, response too large */
  transportError?: string;
  /** a timeout, or a connection lost before any answer, while the suite's own thread was stalled this many ms: this machine was overloaded (harness/transport/own-stall.ts) */
  ownStallMs?: number;
  startedAt: string;
  durationMs: number;
}

/** A rule the target broke, attributed to one requirement. */
export interface FailureRecord {
  requirement: string;
  message: string;
  /** name of the generic check that found it, when one did */
  check?: string;
  exchange?: ExchangeRecord;
}

/** fast-check details of a property, enough to reproduce it when it failed. */
export interface PropertyRecord {
  /** what the property generates (e.g. "wrong-type mutations of listPackageVetting"), when the check named it */
  name?: string;
  /** the property's own verdict; absent when it did not finish (the check stopped first) */
  verdict?: Verdict;
  /** the requirement its failures are attributed to by default, when the check named one */
  requirement?: string;
  seed: number;
  path?: string;
  numRuns: number;
  /**
   * the cases the property was to run, when it passed having run fewer (numRuns): its time budget, 80% of
   * run.checkTimeoutMs, ran out first
   */
  plannedRuns?: number;
  counterexample?: string;
}

/**
 * Response times of one operation's requests in one check (or summed over checks), as a bounded histogram: no exchange
 * is kept for it (harness/reporting/latency.ts).
 */
export interface LatencyTally {
  /** requests sent, answered or not */
  requests: number;
  /** requests that got no response (transport errors): not in the buckets */
  noResponse: number;
  /** the longest response time, exact (ms) */
  maxMs: number;
  /** bucket index (latency.ts bucketOf) -> answered requests in it; only buckets that hold some */
  buckets: Record<string, number>;
}

/** Static metadata of a check, literal in its declaration. */
export interface CheckDeclaration {
  /** stable check id, unique across the suites */
  id: string;
  /** a statement of fact: "rejects an empty update mask with 400" */
  title: string;
  api: Api;
  operations: string[];
  /** requirement ids from specs/requirements/<api>.yaml that this check gives evidence on */
  requirements: string[];
  /** target feature toggles the check needs (skipped when one is off) */
  features?: string[];
  /**
   * Target state the check changes or needs unchanged while it runs (e.g. 'package-vetting' for a vetting walk and an
   * upload, 'traffic-balance'): checks naming the same resource never run at the same time against one target, and
   * within a file they run in the order they are declared. Checks without it overlap freely (run.concurrency).
   */
  shares?: string[];
  /**
   * Target state the check only reads and needs unchanged while it runs (a vetting walk): it runs beside other checks
   * that read it, never beside one that `shares` it, and overlaps the other checks of its file.
   */
  reads?: string[];
}

/** What a check carries back to the reporter (vitest task meta). */
export interface TrafficCounts {
  /** requests sent */
  requests: number;
  /** answered with 429 or 503: the target refused under load */
  overloaded: number;
  /** answered with a 3xx redirect (never followed) */
  redirected: number;
  /** no answer at all: refused, reset, timed out, over a bound */
  transportErrors: number;
  /**
   * exchanges that timed out, or lost their connection before any answer, while the suite's own thread was starved
   * (harness/transport/own-stall.ts): this machine was overloaded, not the target slow; absent when none did
   */
  ownStalls?: number;
}

export interface CheckResultMeta extends CheckDeclaration {
  file?: string;
  verdict?: Verdict;
  reason?: string;
  failures?: FailureRecord[];
  error?: string;
  /** requirement ids the check did not reach because it stopped at a failure */
  blocked?: string[];
  /** requirement ids the generic checks judged on the check's exchanges (kept unless a failure names them) */
  judged?: string[];
  /** declared requirements that do not apply to this target (version range, switched off): not judged by this check */
  inapplicable?: Array<{ requirement: string; reason: string }>;
  properties?: PropertyRecord[];
  /**
   * what the check saw where SPEC.md and FACTS.md allow several forms (which wrapper, null or absent, text/plain or
   * JSON, 401 or 403): information for the vendor, never a verdict
   */
  notes?: string[];
  /**
   * `run --also-validate-against`: the check's responses judged against the target's own API description; information
   * only, never a verdict
   */
  ownDescription?: { responses: number; findings: OwnDescriptionFinding[] };
  /** the last exchanges of the check, for context on a failure or error */
  exchanges?: ExchangeRecord[];
  requests?: number;
  /**
   * what the check's requests met: answers, overload refusals (429, 503), redirects and transport errors (no answer);
   * present when the check sent a request
   */
  traffic?: TrafficCounts;
  /**
   * response times of the check's requests per operation ("<api> <operationId>"): information only, never a verdict;
   * present when the check sent a request
   */
  latency?: Record<string, LatencyTally>;
  /**
   * what the check left on a ledger target: accepted party allocations and package uploads (a participant deletes
   * neither), the users it created and did not remove, and what it asked to create without learning whether it was
   */
  footprint?: {
    parties: number;
    packageUploads: number;
    packagesAdded?: string[];
    usersLeft: string[];
    /** creations whose answer was lost (or had not come when the check ended): possibly on the target, with their ids */
    possiblyLeft?: Array<{ kind: 'user' | 'party' | 'package'; id: string; why: string }>;
    repaired?: string[];
  };
  /** the clean-up steps that failed after their retries: what is left on the target */
  notCleanedUp?: string[];
  durationMs?: number;
  /** when the check sent its first request (ISO time), for the start-up figure of the benchmark */
  firstRequestAt?: string;
  /** when the check's last response (or transport error) arrived */
  lastResponseAt?: string;
  /**
   * the longest chain of the check's requests that ran one after another, each sent after the previous was answered:
   * their summed response times (ms) and how many (harness/reporting/chains.ts); what no concurrency shortens
   */
  chain?: { ms: number; requests: number };
}

/** Where one response disagrees with the target's own API description (run --also-validate-against). */
export interface OwnDescriptionFinding {
  api: Api;
  /** the suite's method and path of the operation, e.g. "PATCH /v2/users/{user-id}" */
  operation: string;
  operationId?: string;
  status: number;
  /** operation not described; status not described (and no default); content type not described; body invalid */
  kind: 'operation' | 'status' | 'content-type' | 'body';
  /** the body is invalid only by JSON null for properties the document leaves optional without allowing null */
  nullOnly?: boolean;
  message: string;
}

declare module '@vitest/runner' {
  interface TaskMeta {
    conformance?: CheckResultMeta;
  }
}
