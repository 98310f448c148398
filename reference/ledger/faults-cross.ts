/** Planted faults of the cross-cutting ledger rules (HTTP, errors, versioning) and the setup endpoints. */
import { registerFaults } from '../faults.js';
import { CantonError, type GrpcCode } from './errors.js';

export const CF = {
  status: 'ledger-http-connected-synchronizers-status-203',
  contentType: 'ledger-http-ledger-end-as-html',
  serverError: 'ledger-http-bad-page-token-internal-error',
  unknownFields: 'ledger-http-unknown-field-rejected',
  prefix: 'ledger-versioning-ledger-end-under-v1',
  malformed: 'ledger-errors-malformed-json-as-canton-error',
  malformedEmpty: 'ledger-errors-malformed-json-empty-message',
  shape: 'ledger-errors-error-category-as-text',
  s400: 'ledger-errors-invalid-argument-as-409',
  s401: 'ledger-errors-unauthenticated-as-403',
  s403: 'ledger-errors-permission-denied-as-401',
  s404: 'ledger-errors-not-found-as-400',
  s409: 'ledger-errors-already-exists-as-400',
  s429: 'ledger-errors-shed-load-resource-exhausted-as-503',
  s500: 'ledger-errors-shed-load-internal-as-400',
  s501: 'ledger-errors-shed-load-unimplemented-as-404',
  s503: 'ledger-errors-shed-load-unavailable-as-500',
  s504: 'ledger-errors-shed-load-deadline-exceeded-as-500',
  category: 'ledger-errors-not-found-category-8',
  named: 'ledger-errors-missing-field-as-not-found',
  limits: 'ledger-get-version-no-vetting-page-size',
  rightsRange: 'ledger-get-version-max-rights-50',
  allocate: 'ledger-allocate-party-details-missing',
  allocateGuess: 'ledger-allocate-party-synchronizer-guessed',
  syncs: 'ledger-get-connected-synchronizers-id-missing',
  ledgerEnd: 'ledger-get-ledger-end-offset-as-text',
} as const;

/** Makes an error answer under another HTTP status than its gRPC code maps to. */
export function withStatus<E extends CantonError>(e: E, status: number): E {
  Object.defineProperty(e, 'status', { get: () => status });
  return e;
}

const r = (name: string, requirement: string, description: string) => ({ name, requirement, description });
registerFaults([
  r(CF.status, 'ledger.http.documented-status', 'GET /v2/state/connected-synchronizers answers 203'),
  r(CF.contentType, 'ledger.http.documented-content-type', 'GET /v2/state/ledger-end answers with Content-Type text/html'),
  r(CF.serverError, 'ledger.http.no-server-error', 'a package-vetting page token the server did not issue fails with 500'),
  r(CF.unknownFields, 'ledger.http.unknown-request-fields-ignored', 'POST /v2/package-vetting/list rejects a body with a field it does not define'),
  r(CF.prefix, 'ledger.versioning.path-prefix', 'the ledger end is served under /v1 instead of /v2'),
  r(CF.malformed, 'ledger.errors.malformed-request-text-plain', 'POST /v2/package-vetting/list answers malformed JSON with a JsCantonError'),
  r(CF.malformedEmpty, 'ledger.errors.malformed-request-text-plain', 'POST /v2/package-vetting/list answers malformed JSON with 400 text/plain and an empty body, no message naming the failure'),
  r(CF.shape, 'ledger.errors.canton-error-shape', 'the errorCategory of a transaction-by-offset error is a text'),
  r(CF.s400, 'ledger.errors.status-400', 'an INVALID_ARGUMENT error of package vetting is answered 409'),
  r(CF.s401, 'ledger.errors.status-401', 'a traffic account update without a token (UNAUTHENTICATED) is answered 403'),
  r(CF.s403, 'ledger.errors.status-403', 'a traffic account update without the admin right (PERMISSION_DENIED) is answered 401'),
  r(CF.s404, 'ledger.errors.status-404', 'UPDATE_NOT_FOUND (NOT_FOUND) is answered 400'),
  r(CF.s409, 'ledger.errors.status-409', 'DUPLICATE_COMMAND (ALREADY_EXISTS) is answered 400'),
  r(CF.s429, 'ledger.errors.status-429', 'under a burst of reads the participant sheds load with RESOURCE_EXHAUSTED, answered 503'),
  r(CF.s500, 'ledger.errors.status-500', 'under a burst of reads some fail with INTERNAL, answered 400'),
  r(CF.s501, 'ledger.errors.status-501', 'under a burst of reads some are refused with UNIMPLEMENTED, answered 404'),
  r(CF.s503, 'ledger.errors.status-503', 'under a burst of reads the participant sheds load with UNAVAILABLE, answered 500'),
  r(CF.s504, 'ledger.errors.status-504', 'under a burst of reads some time out with DEADLINE_EXCEEDED, answered 500'),
  r(CF.category, 'ledger.errors.error-category-matches-status', 'UPDATE_NOT_FOUND carries errorCategory 8 with status 404'),
  r(CF.named, 'ledger.errors.named-code-status', 'MISSING_FIELD for an unspecified transaction shape comes as NOT_FOUND with 404'),
  r(CF.limits, 'ledger.get-version.advertises-limits', 'GET /v2/version advertises no maxVettedPackagesPageSize'),
  r(CF.rightsRange, 'ledger.get-version.max-rights-per-user-range', 'GET /v2/version advertises maxRightsPerUser 50'),
  r(CF.allocate, 'ledger.allocate-party.response-schema', 'POST /v2/parties answers without partyDetails'),
  r(CF.allocateGuess, 'ledger.allocate-party.synchronizer-required', 'an allocation naming no synchronizerId on a participant connected to several synchronizers is accepted, the party allocated on the first'),
  r(CF.syncs, 'ledger.get-connected-synchronizers.response-schema', 'connected synchronizers lack their synchronizerId'),
  r(CF.ledgerEnd, 'ledger.get-ledger-end.response-schema', 'the ledger end offset is a text'),
]);

/** The load-shedding faults: the error each answers under a burst, and the wrong status it is answered with. */
export const SHED_LOAD: ReadonlyArray<{ fault: string; code: string; grpc: GrpcCode; status: number }> = [
  { fault: CF.s429, code: 'PARTICIPANT_BACKPRESSURE', grpc: 'RESOURCE_EXHAUSTED', status: 503 },
  { fault: CF.s500, code: 'INTERNAL', grpc: 'INTERNAL', status: 400 },
  { fault: CF.s501, code: 'UNIMPLEMENTED', grpc: 'UNIMPLEMENTED', status: 404 },
  { fault: CF.s503, code: 'SERVICE_NOT_RUNNING', grpc: 'UNAVAILABLE', status: 500 },
  { fault: CF.s504, code: 'REQUEST_TIME_OUT', grpc: 'DEADLINE_EXCEEDED', status: 500 },
];

const BURST_REQUESTS = 10;
const BURST_WINDOW_MS = 250;

/**
 * For one route: undefined unless a load-shedding fault is planted (faults are fixed per server, so a clean server does
 * no work per request); otherwise a function giving the error to answer a request that arrives in a burst (past the
 * BURST_REQUESTS-th within BURST_WINDOW_MS), or undefined.
 */
export function loadShedder(has: (fault: string) => boolean): (() => CantonError | undefined) | undefined {
  const f = SHED_LOAD.find((s) => has(s.fault));
  if (f === undefined) return undefined;
  const recent: number[] = [];
  return () => {
    const now = performance.now();
    while (recent.length > 0 && now - recent[0]! > BURST_WINDOW_MS) recent.shift();
    recent.push(now);
    return recent.length > BURST_REQUESTS ? withStatus(new CantonError(f.code, f.grpc, `The participant is overloaded: ${f.grpc}`), f.status) : undefined;
  };
}
