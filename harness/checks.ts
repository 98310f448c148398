/**
 * Generic response checks: small pure functions of an exchange, one registry, used by example, property and
 * model-based tests alike through `expectConformant`. Each failure names the requirement it is evidence against.
 */
import type { Exchange } from './http.js';
import type { OperationInfo, SchemaRegistry } from './schemas.js';
import type { FailureRecord } from './types.js';

export interface CheckInput {
  exchange: Exchange;
  operation: OperationInfo;
  schemas: SchemaRegistry;
}

export interface GenericCheck {
  name: string;
  description: string;
  run(input: CheckInput): Omit<FailureRecord, 'check' | 'exchange'> | undefined;
}

export const statusDocumented: GenericCheck = {
  name: 'status_documented',
  description: 'the response status is one the operation documents',
  run({ exchange, operation, schemas }) {
    if (schemas.response(operation, exchange.status) !== undefined) return undefined;
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
    const response = schemas.response(operation, exchange.status);
    if (response === undefined) return undefined;
    const documented = Object.keys(response.content);
    if (documented.length === 0) return undefined;
    if (exchange.mediaType === undefined) {
      if (exchange.text.length === 0) return undefined;
      return {
        requirement: `${operation.api}.http.documented-content-type`,
        message: `${operation.operationId} ${exchange.status}: body without a Content-Type header (documented: ${documented.join(', ')})`,
      };
    }
    if (documented.includes(exchange.mediaType) || documented.includes('*/*')) return undefined;
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
    const isJson = exchange.mediaType === 'application/json' || (exchange.mediaType?.endsWith('+json') ?? false);
    if (isJson && exchange.json === undefined) {
      return {
        requirement,
        message: `${operation.operationId} ${exchange.status}: body is not JSON (${exchange.jsonError ?? 'empty body'})`,
      };
    }
    const value = isJson ? exchange.json : exchange.text;
    const errors = schemas.validateBody(operation.api, media, value);
    if (errors.length === 0) return undefined;
    return { requirement, message: `${operation.operationId} ${exchange.status} body does not match the schema: ${errors.join('; ')}` };
  },
};

export const noServerError: GenericCheck = {
  name: 'no_server_error',
  description: 'the target does not answer with a 5xx status',
  run({ exchange, operation }) {
    if (exchange.status < 500) return undefined;
    return {
      requirement: `${operation.api}.http.no-server-error`,
      message: `${operation.operationId} answered ${exchange.status} (server error)`,
    };
  },
};

/** Every generic check, in the order they run. */
export const GENERIC_CHECKS: readonly GenericCheck[] = [noServerError, statusDocumented, contentTypeDocumented, bodyMatchesSchema];

/** Runs every generic check on one exchange; the failures carry the check's name and the exchange's record. */
export function genericFailures(input: CheckInput, checks: readonly GenericCheck[] = GENERIC_CHECKS): FailureRecord[] {
  const out: FailureRecord[] = [];
  for (const c of checks) {
    const f = c.run(input);
    if (f !== undefined) out.push({ ...f, check: c.name, exchange: input.exchange.record });
  }
  return out;
}
