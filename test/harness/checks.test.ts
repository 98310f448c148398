import { describe, expect, it } from 'vitest';
import { LEDGER_GRPC_STATUS, ledgerErrorStatus } from '../../harness/checks.js';
import type { Exchange } from '../../harness/http.js';
import type { OperationInfo, SchemaRegistry } from '../../harness/schemas.js';

const op = (api: string) => ({ api, operationId: 'getLedgerEnd' }) as unknown as OperationInfo;
const exchange = (status: number, json: unknown) => ({ status, json }) as unknown as Exchange;
const judge = (status: number, json: unknown, api = 'ledger') => ledgerErrorStatus.run({ exchange: exchange(status, json), operation: op(api), schemas: undefined as unknown as SchemaRegistry });

describe('the generic status-by-gRPC-code check', () => {
  it('judges every mapped gRPC code against its status, and passes the matching one', () => {
    for (const [code, m] of Object.entries(LEDGER_GRPC_STATUS)) {
      expect(judge(m.status, { code: 'X', grpcCodeValue: Number(code) })).toEqual({ requirement: `ledger.errors.status-${m.status}` });
      const wrong = judge(m.status === 400 ? 409 : 400, { code: 'X', grpcCodeValue: Number(code) });
      expect(wrong?.requirement).toBe(`ledger.errors.status-${m.status}`);
      expect(wrong?.message).toContain(m.name);
    }
  });

  it('leaves alone what it cannot judge: success, no grpcCodeValue, unknown codes, other interfaces', () => {
    expect(judge(200, { grpcCodeValue: 8 })).toBeUndefined();
    expect(judge(429, { code: 'X' })).toBeUndefined();
    expect(judge(400, 'plain text')).toBeUndefined();
    expect(judge(400, { grpcCodeValue: 99 })).toBeUndefined();
    expect(judge(400, { grpcCodeValue: 8 }, 'scan')).toBeUndefined();
  });

  it('maps the codes as FACTS.md lists them', () => {
    const byName = Object.fromEntries(Object.values(LEDGER_GRPC_STATUS).map((m) => [m.name, m.status]));
    expect(byName).toEqual({
      INVALID_ARGUMENT: 400, FAILED_PRECONDITION: 400, OUT_OF_RANGE: 400, UNAUTHENTICATED: 401, PERMISSION_DENIED: 403, NOT_FOUND: 404,
      ABORTED: 409, ALREADY_EXISTS: 409, RESOURCE_EXHAUSTED: 429, INTERNAL: 500, UNKNOWN: 500, DATA_LOSS: 500, UNIMPLEMENTED: 501,
      UNAVAILABLE: 503, DEADLINE_EXCEEDED: 504,
    });
  });
});
