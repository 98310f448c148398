/**
 * Generic response checks: small pure functions of an exchange, one registry, used by example, property and
 * model-based tests alike through `expectConformant`. Each failure names the requirement it is evidence against.
 */
import type { Exchange } from '../transport/http.js';
import { redactText } from '../transport/redact.js';
import type { OperationInfo, SchemaRegistry } from './schemas.js';
import type { FailureRecord } from '../types.js';

export interface CheckInput {
  exchange: Exchange;
  operation: OperationInfo;
  schemas: SchemaRegistry;
}

/** What a generic check concluded on one exchange: the requirement it judged and, when broken, why. */
export interface Judgement {
  requirement: string;
  /** set when the exchange breaks the requirement */
  message?: string;
}

export interface GenericCheck {
  name: string;
  description: string;
  /** undefined when the check does not apply to this exchange; a list when it judges several requirements at once */
  run(input: CheckInput): Judgement | readonly Judgement[] | undefined;
}

/** What one check concluded on one exchange, as a list. */
export const judgementsOf = (c: GenericCheck, input: CheckInput): readonly Judgement[] => {
  const j = c.run(input);
  return j === undefined ? [] : Array.isArray(j) ? j : [j as Judgement];
};

/**
 * Statuses any endpoint may answer, whatever it documents (FACTS.md): 429 and 503 (overload, a timeout) on every
 * interface, and the ledger's 499 (gRPC CANCELLED). Overload is not conformance: none of them alone fails a rule. The
 * generic checks leave their status and content type unjudged and judge their body only where it is JSON and the
 * operation documents a JSON schema for the status.
 */
export const ANY_ENDPOINT_STATUSES: Readonly<Record<string, readonly number[]>> = {
  ledger: [429, 499, 503],
  scan: [429, 503],
  validator: [429, 503],
  registry: [429, 503],
};

export const mayAnswerAnywhere = (api: string, status: number): boolean => (ANY_ENDPOINT_STATUSES[api] ?? []).includes(status);

/**
 * Whether a status says nothing of the rule a check expected another status for: one any endpoint may answer
 * (above), or 502 and 504, which a gateway in front of the target answers when the target is unreachable or slow. A
 * check that expected a rejection (401, 404, ...) and got one of them has judged nothing: an error, neither a pass
 * nor a fail of its rule (the generic rules judge a 502 or 504 as any other 5xx when its body is the target's own error
 * form; a gateway's page they do not judge: gatewayPage).
 */
export const saysNothingOfTheRule = (api: string, status: number): boolean => mayAnswerAnywhere(api, status) || status === 502 || status === 504;

/**
 * 401 and 403, which an authenticating proxy or gateway in front of any endpoint may answer: on an operation
 * that does not document them they are allowed, not a documented-status failure. Whether an endpoint's own
 * authentication rules hold is judged by the auth checks, which expect a 2xx for a valid token and a refusal without
 * one; the body of such an answer is not judged (no schema is documented for it).
 */
export const PROXY_AUTH_STATUSES: readonly number[] = [401, 403];

const isJsonMedia = (mediaType: string | undefined) => mediaType === 'application/json' || (mediaType?.endsWith('+json') ?? false);
/** a 401 or 403 whose body is not JSON: an authenticating proxy's page, whose content type and body no rule judges */
const proxyAuthPage = (x: Exchange): boolean => PROXY_AUTH_STATUSES.includes(x.status) && !isJsonMedia(x.mediaType);

/**
 * A 401 or 403 that is not in a form the target answers errors in: neither JSON (its error bodies, judged against the
 * operation's documented 401 or 403 where there is one) nor the text/plain body its HTTP framework answers for a
 * missing or invalid token (FACTS.md). An authenticating gateway's login page (HTML), or an empty refusal: it refuses
 * the caller, not the input, and says nothing of the target, so no rule judges its status, content type or body, and a
 * check that sent the configured credentials and got it ends in error (ApiClient.decides).
 */
export function foreignAuthPage(x: Exchange): boolean {
  return PROXY_AUTH_STATUSES.includes(x.status) && x.mediaType !== 'text/plain' && !isJsonMedia(x.mediaType);
}

/**
 * A Content-Type header that names more than one media type (the header sent twice, joined by a comma): which one the
 * body is in cannot be told, so no rule judges the content type or the body (ApiClient.decides makes reading its JSON
 * an error).
 */
export const unreadableContentType = (x: Exchange): boolean => x.mediaType?.includes(',') ?? false;

/**
 * A response that is no answer of the operation: an overload or cancellation status any endpoint may send, or a redirect
 * the operation does not document (a misrouted URL, a gateway). The status rules judge nothing on it: neither a failure
 * nor a pass (no requirement passes on responses that judged nothing).
 */
const answersNothing = (operation: OperationInfo, x: Exchange): boolean =>
  mayAnswerAnywhere(operation.api, x.status) || (x.status >= 300 && x.status < 400 && operation.responses[String(x.status)] === undefined) || routeNotServed(x) || gatewayPage(x) || foreignAuthPage(x);

/**
 * A 502 or 504 without an error body of the target's own (a JsCantonError's code, an {error}): the page of a gateway in
 * front of the target that could not reach it, or not in time. It says nothing of the target: no rule judges
 * its status, content type or body (a check that needed an answer ends in error), so one such page on a clean target
 * fails nothing. A 502 or 504 in the target's own error form is the target's answer, judged as any 5xx.
 */
export function gatewayPage(x: Exchange): boolean {
  if (x.status !== 502 && x.status !== 504) return false;
  const body = isJsonMedia(x.mediaType) ? (x.json as { code?: unknown; error?: unknown } | null | undefined) : undefined;
  return typeof body?.code !== 'string' && typeof body?.error !== 'string';
}

/**
 * A 404 or 405 without an error body of the target's own (a JsCantonError's code, an {error}): the HTTP framework's answer
 * for a path no route serves (an endpoint the target's version does not have, an empty path segment) or, on scan and
 * the validator, for a request without a required query parameter (FACTS.md). It says the route is not served: no
 * verdict on any endpoint's documented status, content type or body.
 */
export function routeNotServed(x: Exchange): boolean {
  if (x.status !== 404 && x.status !== 405) return false;
  const body = isJsonMedia(x.mediaType) ? (x.json as { code?: unknown; error?: unknown } | null | undefined) : undefined;
  return typeof body?.code !== 'string' && typeof body?.error !== 'string';
}

/**
 * Statuses no sentence of SPEC.md or FACTS.md rules out on any endpoint, which say nothing against its documented
 * statuses: 405 (method), 413 (request too large), 415 (media type) and a gateway's 502 and 504. The status rule does
 * not judge them (the no-5xx rule still judges a 502 or 504).
 */
const UNRULED_STATUSES: readonly number[] = [405, 413, 415, 502, 504];

export const statusDocumented: GenericCheck = {
  name: 'status_documented',
  description:
    'the response status is one the operation documents (429, 503 and the ledger 499 excepted: any endpoint may answer them; an undocumented redirect is not judged; an undocumented 401 or 403, which an authenticating proxy may answer, is allowed)',
  run({ exchange, operation, schemas }) {
    if (answersNothing(operation, exchange)) return undefined;
    if (schemas.response(operation, exchange.status) !== undefined) return { requirement: `${operation.api}.http.documented-status` };
    if (PROXY_AUTH_STATUSES.includes(exchange.status) || UNRULED_STATUSES.includes(exchange.status)) return undefined;
    return {
      requirement: `${operation.api}.http.documented-status`,
      message: `${operation.operationId} answered ${exchange.status}, which it does not document (documented: ${Object.keys(operation.responses).join(', ')})`,
    };
  },
};

export const contentTypeDocumented: GenericCheck = {
  name: 'content_type_documented',
  description: 'the response content type is one the operation documents for that status',
  run({ exchange, operation, schemas }) {
    if (mayAnswerAnywhere(operation.api, exchange.status) || proxyAuthPage(exchange) || routeNotServed(exchange) || gatewayPage(exchange) || foreignAuthPage(exchange) || unreadableContentType(exchange)) return undefined;
    const response = schemas.response(operation, exchange.status);
    if (response === undefined) return undefined;
    const documented = Object.keys(response.content);
    if (documented.length === 0) return undefined;
    const requirement = `${operation.api}.http.documented-content-type`;
    if (exchange.mediaType === undefined) {
      if (exchange.text.length === 0) return undefined;
      return {
        requirement: `${operation.api}.http.documented-content-type`,
        message: `${operation.operationId} ${exchange.status}: body without a Content-Type header (documented: ${documented.join(', ')})`,
      };
    }
    if (documented.includes(exchange.mediaType) || documented.includes('*/*')) return { requirement };
    return {
      requirement: `${operation.api}.http.documented-content-type`,
      message: `${operation.operationId} ${exchange.status}: Content-Type ${exchange.mediaType} is not documented (documented: ${documented.join(', ')})`,
    };
  },
};

export const bodyMatchesSchema: GenericCheck = {
  name: 'body_matches_schema',
  description: 'the response body is valid against the schema of its operation, status and content type',
  run({ exchange, operation, schemas }) {
    const response = schemas.response(operation, exchange.status);
    const media = response?.content[exchange.mediaType ?? ''];
    if (response === undefined || media === undefined || media.pointer === undefined) return undefined;
    const requirement = media.requirement ?? response.requirement ?? `${operation.api}.http.documented-status`;
    const isJson = isJsonMedia(exchange.mediaType);
    // an overload status from a gateway may carry any body: only a JSON one is judged, against its documented schema
    if (gatewayPage(exchange) || foreignAuthPage(exchange)) return undefined;
    if ((mayAnswerAnywhere(operation.api, exchange.status) || proxyAuthPage(exchange) || routeNotServed(exchange)) && (!isJson || exchange.json === undefined)) return undefined;
    if (isJson && exchange.json === undefined) {
      return {
        requirement,
        message: `${operation.operationId} ${exchange.status}: body is not JSON (${exchange.jsonError ?? 'empty body'})`,
      };
    }
    const value = isJson ? exchange.json : exchange.text;
    const errors = schemas.validateBody(operation.api, media, value);
    // an overload answer that keeps the form is no evidence for the rule: a target answering 429 or 503 to everything
    // would otherwise pass an error-body rule it breaks wherever it answers itself
    if (errors.length === 0) return mayAnswerAnywhere(operation.api, exchange.status) ? undefined : { requirement };
    return { requirement, message: `${operation.operationId} ${exchange.status} body does not match the schema: ${errors.join('; ')}` };
  },
};

/**
 * The constraints only FACTS.md gives a response body (fields real servers always send, types and shapes SPEC.md
 * leaves "not shown"), each judged under its own SHOULD requirement, named in the document by `x-facts-required` and
 * `x-facts-schema` (schemas.ts): a body missing such a field keeps the operation's MUST response-schema rule and breaks
 * only the SHOULD. Judged on a body that meets its MUST schema, for each requirement with a value the constraint applies
 * to in the body.
 */
export const bodyKeepsFacts: GenericCheck = {
  name: 'body_keeps_facts',
  description: 'the response body carries the fields and forms FACTS.md says real servers always send (each a SHOULD of its own)',
  run({ exchange, operation, schemas }) {
    const response = schemas.response(operation, exchange.status);
    const media = response?.content[exchange.mediaType ?? ''];
    if (response === undefined || media === undefined || media.pointer === undefined || !isJsonMedia(exchange.mediaType) || exchange.json === undefined) return undefined;
    if (gatewayPage(exchange) || foreignAuthPage(exchange) || mayAnswerAnywhere(operation.api, exchange.status)) return undefined;
    const judged = schemas.validateFacts(operation.api, media, exchange.json);
    if (judged.length === 0) return undefined;
    return judged.map(({ requirement, errors }) =>
      errors.length === 0 ? { requirement } : { requirement, message: `${operation.operationId} ${exchange.status} body lacks what FACTS.md says real servers send: ${errors.join('; ')}` },
    );
  },
};

export const noServerError: GenericCheck = {
  name: 'no_server_error',
  description: 'the target does not answer with a 5xx status (503, which any endpoint may answer under load, excepted)',
  run({ exchange, operation }) {
    // 429, 503, 499 and undocumented redirects answer nothing of the operation: they neither break nor keep the rule
    if (answersNothing(operation, exchange)) return undefined;
    if (exchange.status < 500) return { requirement: `${operation.api}.http.no-server-error` };
    return {
      requirement: `${operation.api}.http.no-server-error`,
      message: `${operation.operationId} answered ${exchange.status} (server error)`,
    };
  },
};

/**
 * The HTTP status each gRPC code of a ledger error maps to (FACTS.md, Ledger API: errors), with the requirement that
 * states it. Keyed by the numeric code a JsCantonError carries in grpcCodeValue.
 */
export const LEDGER_GRPC_STATUS: Readonly<Record<number, { name: string; status: number; requirement: string }>> = Object.fromEntries(
  (
    [
      [3, 'INVALID_ARGUMENT', 400],
      [9, 'FAILED_PRECONDITION', 400],
      [11, 'OUT_OF_RANGE', 400],
      [16, 'UNAUTHENTICATED', 401],
      [7, 'PERMISSION_DENIED', 403],
      [5, 'NOT_FOUND', 404],
      [10, 'ABORTED', 409],
      [6, 'ALREADY_EXISTS', 409],
      [8, 'RESOURCE_EXHAUSTED', 429],
      [13, 'INTERNAL', 500],
      [2, 'UNKNOWN', 500],
      [15, 'DATA_LOSS', 500],
      [12, 'UNIMPLEMENTED', 501],
      [14, 'UNAVAILABLE', 503],
      [4, 'DEADLINE_EXCEEDED', 504],
    ] as const
  ).map(([code, name, status]) => [code, { name, status, requirement: `ledger.errors.status-${status}` }]),
);

/**
 * A ledger error that names its gRPC code (grpcCodeValue) is answered with the status that code maps to. Runs on every
 * ledger response of the run, so a status the suite cannot provoke (429, 5xx) is judged whenever a target answers it.
 */
export const ledgerErrorStatus: GenericCheck = {
  name: 'ledger_error_status',
  description: "a ledger error's HTTP status is the one its gRPC code (grpcCodeValue) maps to",
  run({ exchange, operation }) {
    if (operation.api !== 'ledger' || exchange.status < 400) return undefined;
    const code = (exchange.json as { grpcCodeValue?: unknown } | null | undefined)?.grpcCodeValue;
    const m = typeof code === 'number' ? LEDGER_GRPC_STATUS[code] : undefined;
    if (m === undefined) return undefined;
    if (exchange.status === m.status) return { requirement: m.requirement };
    return { requirement: m.requirement, message: `${operation.operationId}: gRPC code ${code} (${m.name}) answered ${exchange.status}, not ${m.status}` };
  },
};

/** Every generic check, in the order they run. */
export const GENERIC_CHECKS: readonly GenericCheck[] = [noServerError, statusDocumented, contentTypeDocumented, bodyMatchesSchema, bodyKeepsFacts, ledgerErrorStatus];

/**
 * Runs every generic check on one exchange. Returns the failures (with the check's name and the exchange's record)
 * and every requirement the checks judged, so a requirement judged on many exchanges and never broken counts as kept.
 */
export function runGenericChecks(input: CheckInput, checks: readonly GenericCheck[] = GENERIC_CHECKS): { failures: FailureRecord[]; judged: string[] } {
  const failures: FailureRecord[] = [];
  const judged: string[] = [];
  for (const c of checks) {
    for (const j of judgementsOf(c, input)) {
      judged.push(j.requirement);
      // a message may quote the body (a schema error shows the offending value): redacted like the recorded exchange
      if (j.message !== undefined) failures.push({ requirement: j.requirement, message: redactText(j.message), check: c.name, exchange: input.exchange.record });
    }
  }
  return { failures, judged };
}

/**
 * Which requirements the generic checks judge, from the OpenAPI documents: the http requirements of each interface,
 * every requirement a response names (x-requirement) or its schema's FACTS.md constraints name, and the ledger's status-by-gRPC-code rules, each with the checks
 * that judge it.
 */
export function genericCoverage(schemas: SchemaRegistry): Map<string, GenericCheck[]> {
  const out = new Map<string, GenericCheck[]>();
  const add = (id: string, c: GenericCheck) => out.set(id, [...(out.get(id) ?? []).filter((x) => x !== c), c]);
  for (const op of schemas.operations()) {
    add(`${op.api}.http.documented-status`, statusDocumented);
    add(`${op.api}.http.no-server-error`, noServerError);
    if (op.api === 'ledger') for (const m of Object.values(LEDGER_GRPC_STATUS)) add(m.requirement, ledgerErrorStatus);
    for (const r of Object.values(op.responses)) {
      if (Object.keys(r.content).length > 0) add(`${op.api}.http.documented-content-type`, contentTypeDocumented);
      for (const m of Object.values(r.content)) {
        const id = m.requirement ?? r.requirement;
        if (id !== undefined && m.pointer !== undefined) add(id, bodyMatchesSchema);
        if (m.pointer !== undefined) for (const f of schemas.factsRequirements(op.api, m.pointer)) add(f, bodyKeepsFacts);
      }
    }
  }
  return out;
}
