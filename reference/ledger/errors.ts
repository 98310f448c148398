/**
 * The two error shapes of the JSON Ledger API (FACTS.md, "Ledger API: errors"): a request the HTTP layer cannot decode
 * gets 400 text/plain; everything the participant itself rejects gets a JsCantonError whose HTTP status follows the
 * gRPC code.
 */
import { randomBytes } from 'node:crypto';

/** gRPC status codes by name, with the numeric value JsCantonError.grpcCodeValue carries. */
export const GRPC = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCode = keyof typeof GRPC;

const HTTP_STATUS: Record<GrpcCode, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** errorCategory values of FACTS.md, by the gRPC code they come with. */
const CATEGORY: Record<GrpcCode, number> = {
  UNAVAILABLE: 1,
  ABORTED: 2,
  DEADLINE_EXCEEDED: 3,
  INTERNAL: 4,
  UNAUTHENTICATED: 6,
  PERMISSION_DENIED: 7,
  INVALID_ARGUMENT: 8,
  FAILED_PRECONDITION: 9,
  ALREADY_EXISTS: 10,
  NOT_FOUND: 11,
  OUT_OF_RANGE: 12,
  RESOURCE_EXHAUSTED: 1,
  UNIMPLEMENTED: 8,
};

/** A request the HTTP layer could not decode: answered with 400 and a text/plain message naming the failure. */
export class MalformedRequest extends Error {}

/** A rejection by the participant: answered with a JsCantonError. */
export class CantonError extends Error {
  constructor(
    readonly code: string,
    readonly grpc: GrpcCode,
    cause: string,
    readonly context: Record<string, string> = {},
    readonly resources: [string, string][] = [],
  ) {
    super(cause);
  }
  get status(): number {
    return HTTP_STATUS[this.grpc];
  }
  body(correlationId: string): JsCantonError {
    const category = CATEGORY[this.grpc];
    const traceId = randomBytes(16).toString('hex');
    return {
      code: this.code,
      cause: this.message,
      correlationId,
      traceId,
      context: { participant: 'participant1', tid: traceId, category: String(category), ...this.context },
      ...(this.resources.length > 0 ? { resources: this.resources } : {}),
      errorCategory: category,
      grpcCodeValue: GRPC[this.grpc],
      definiteAnswer: false,
    };
  }
}

export interface JsCantonError {
  code: string;
  cause: string;
  correlationId?: string;
  traceId?: string;
  context: Record<string, string>;
  resources?: [string, string][];
  errorCategory: number;
  grpcCodeValue?: number;
  retryInfo?: string;
  definiteAnswer?: boolean;
}

// Constructors for the errors the ledger raises, named after their code ids.
export const err = {
  invalidArgument: (cause: string, ctx?: Record<string, string>) =>
    new CantonError('INVALID_ARGUMENT', 'INVALID_ARGUMENT', `The submitted request has invalid arguments: ${cause}`, ctx),
  invalidField: (field: string, cause: string) =>
    new CantonError('INVALID_FIELD', 'INVALID_ARGUMENT', `The submitted command has a field with invalid value: Invalid field ${field}: ${cause}`, { field_name: field }),
  missingField: (field: string) =>
    new CantonError('MISSING_FIELD', 'INVALID_ARGUMENT', `The submitted command is missing a mandatory field: ${field}`, { field_name: field }),
  failedPrecondition: (code: string, cause: string, ctx?: Record<string, string>) =>
    new CantonError(code, 'FAILED_PRECONDITION', cause, ctx),
  notFound: (code: string, cause: string, resources: [string, string][] = []) =>
    new CantonError(code, 'NOT_FOUND', cause, {}, resources),
  alreadyExists: (code: string, cause: string, resources: [string, string][] = []) =>
    new CantonError(code, 'ALREADY_EXISTS', cause, {}, resources),
  unauthenticated: (cause: string) => new CantonError('UNAUTHENTICATED', 'UNAUTHENTICATED', cause),
  permissionDenied: (cause: string) =>
    new CantonError('PERMISSION_DENIED', 'PERMISSION_DENIED', `The provided authorization token is not sufficient to authorize the intended command: ${cause}`),
};
