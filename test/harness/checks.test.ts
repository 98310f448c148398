import { describe, expect, it } from 'vitest';
import { ANY_ENDPOINT_STATUSES, LEDGER_GRPC_STATUS, ledgerErrorStatus, runGenericChecks, type Judgement } from '../../harness/judging/checks.js';
import type { Exchange } from '../../harness/transport/http.js';
import { SchemaRegistry, type OperationInfo } from '../../harness/judging/schemas.js';
import type { Api } from '../../harness/types.js';

const op = (api: string) => ({ api, operationId: 'getLedgerEnd' }) as unknown as OperationInfo;
const exchange = (status: number, json: unknown) => ({ status, json }) as unknown as Exchange;
const judge = (status: number, json: unknown, api = 'ledger') => ledgerErrorStatus.run({ exchange: exchange(status, json), operation: op(api), schemas: undefined as unknown as SchemaRegistry }) as Judgement | undefined;

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

describe('statuses any endpoint may answer (429, 503, the ledger 499)', () => {
  const schemas = new SchemaRegistry();
  const run = (api: Api, operationId: string, status: number, mediaType: string | undefined, body: unknown) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const exchange = { status, mediaType, text, json: typeof body === 'string' ? undefined : body, record: {} } as unknown as Exchange;
    return runGenericChecks({ exchange, operation: schemas.operation(api, operationId), schemas });
  };

  it('none of them alone fails a rule, whatever its body (a gateway page, text, nothing)', () => {
    for (const [api, op] of [['ledger', 'getLedgerEnd'], ['scan', 'listAnsEntries'], ['validator', 'getOpenAndIssuingMiningRounds'], ['registry', 'getAllocationFactory']] as const) {
      for (const status of ANY_ENDPOINT_STATUSES[api]!) {
        for (const [mt, body] of [['text/html', '<html>busy</html>'], ['text/plain', 'Too many requests'], [undefined, '']] as const) {
          expect(run(api, op, status, mt, body).failures, `${api} ${status} ${mt}`).toEqual([]);
        }
      }
    }
  });

  it('nor does one of them, or an undocumented redirect, judge the status rules: no pass on an answer that judged nothing', () => {
    for (const [api, op] of [['ledger', 'getLedgerEnd'], ['scan', 'listAnsEntries'], ['validator', 'getOpenAndIssuingMiningRounds'], ['registry', 'getAllocationFactory']] as const) {
      for (const status of [...ANY_ENDPOINT_STATUSES[api]!, 301, 302, 307, 308]) {
        for (const [mt, body] of [['text/html', '<html>busy</html>'], ['application/json', { error: 'slow down' }], [undefined, '']] as const) {
          const { judged, failures } = run(api, op, status, mt, body);
          expect(judged.filter((r) => r.endsWith('.http.no-server-error') || r.endsWith('.http.documented-status') || r.endsWith('.http.documented-content-type')), `${api} ${status} ${mt}`).toEqual([]);
          expect(failures.filter((f) => f.requirement.includes('.http.')), `${api} ${status} ${mt}`).toEqual([]);
        }
      }
    }
    expect(run('scan', 'listAnsEntries', 200, 'application/json', { entries: [] }).judged).toContain('scan.http.no-server-error');
  });

  it('a JSON body of one of them is judged against the schema the operation documents for it, when there is one', () => {
    const bad = run('scan', 'listAnsEntries', 503, 'application/json', { message: 'busy' });
    expect(bad.failures.map((f) => f.requirement)).toEqual(['scan.errors.error-body']);
    expect(run('scan', 'listAnsEntries', 429, 'application/json', { error: 'slow down' }).failures).toEqual([]);
    expect(run('ledger', 'getLedgerEnd', 499, 'application/json', { whatever: 1 }).failures).toEqual([]);
  });

  it('an undocumented 401 or 403 (an authenticating proxy in front of the endpoint) is allowed, not a documented-status failure', () => {
    const cases = [['scan', 'listAnsEntries', 401], ['scan', 'listAnsEntries', 403], ['registry', 'getAllocationFactory', 401], ['registry', 'getAllocationFactory', 403], ['validator', 'getOpenAndIssuingMiningRounds', 403]] as const;
    for (const [api, op, status] of cases) {
      const { failures, judged } = run(api, op, status, 'text/html', '<html>sign in</html>');
      expect(failures, `${api} ${status}`).toEqual([]);
      expect(judged, `${api} ${status}`).not.toContain(`${api}.http.documented-status`);
    }
    // a proxy's non-JSON 401 or 403 on an operation that documents a JSON one: its content type and body are not judged
    for (const status of [401, 403]) expect(run('ledger', 'getLedgerEnd', status, 'text/html', '<html>sign in</html>').failures, `ledger ${status}`).toEqual([]);
    // a documented 401 is judged as before, its body included
    expect(run('validator', 'listScanProxyAnsEntries', 401, 'application/json', { message: 'x' }).failures.map((f) => f.requirement)).toEqual(['validator.errors.error-body']);
  });

  it('other undocumented statuses and 5xx still fail', () => {
    expect(run('scan', 'listAnsEntries', 418, 'application/json', { error: 'x' }).failures.map((f) => f.requirement)).toContain('scan.http.documented-status');
    expect(run('scan', 'listAnsEntries', 502, 'application/json', { error: 'x' }).failures.map((f) => f.requirement)).toContain('scan.http.no-server-error');
  });

  it('a Splice 400 or 401 from the HTTP framework may be text/plain; {error} JSON is still judged', () => {
    expect(run('scan', 'listAnsEntries', 400, 'text/plain', 'Invalid value for: query parameter page_size').failures).toEqual([]);
    expect(run('validator', 'getOpenAndIssuingMiningRounds', 401, 'text/plain', 'Invalid value for: header Authorization').failures).toEqual([]);
    expect(run('validator', 'listScanProxyAnsEntries', 401, 'application/json', { error: 'no token' }).failures).toEqual([]);
    expect(run('registry', 'getAllocationFactory', 400, 'application/json', { message: 'x' }).failures.map((f) => f.requirement)).toEqual(['registry.errors.error-body']);
  });

  it('a 404 or 405 without an error body of the target is a route not served: no verdict on status, content type or body (FACTS.md)', () => {
    // the framework's answer to a request without a required query parameter, or to a path no route serves
    for (const [api, op] of [['scan', 'listAnsEntries'], ['validator', 'listScanProxyAnsEntries'], ['ledger', 'getUser']] as const) {
      for (const status of [404, 405]) {
        const r = run(api, op, status, 'text/plain', "Request is missing required query parameter 'page_size'");
        expect(r.failures, `${api} ${status}`).toEqual([]);
        expect(r.judged.filter((j) => /documented|error-body|canton-error/.test(j)), `${api} ${status}`).toEqual([]);
      }
    }
    // an endpoint's own 404 is judged: an {error} whose error is no string breaks the error body
    expect(run('scan', 'getEventById', 404, 'application/json', { error: 5 }).failures.map((f) => f.requirement)).toEqual(['scan.errors.error-body']);
  });

  it("a 502 or 504 gateway page (no error body of the target's own) is judged by no rule; one in the target's error form is", () => {
    const page = { 502: '<html><body><h1>502 Bad Gateway</h1>nginx</body></html>', 504: '<html><body><h1>504 Gateway Time-out</h1></body></html>' };
    for (const status of [502, 504] as const) {
      // the ledger documents a JSON 504 for getUser: a gateway's HTML page breaks neither its content type nor no-5xx
      for (const [api, operation] of [['ledger', 'getUser'], ['scan', 'listAnsEntries']] as const) {
        for (const [type, body] of [['text/html', page[status]], ['application/json', { message: 'upstream timed out' }]] as const) {
          const r = run(api, operation, status, type, body);
          expect(r.failures, `${api} ${status} ${type}`).toEqual([]);
          expect(r.judged, `${api} ${status} ${type}`).toEqual([]);
        }
      }
      expect(run('ledger', 'getUser', status, 'application/json', { code: 'REQUEST_TIME_OUT', cause: 'x', context: {}, errorCategory: 3 }).failures.map((f) => f.requirement)).toContain('ledger.http.no-server-error');
    }
  });

  it('405, 413, 415, 502 and 504 say nothing against the documented statuses', () => {
    for (const status of [405, 413, 415, 502, 504]) {
      expect(run('scan', 'listAnsEntries', status, 'application/json', { error: 'x' }).failures.map((f) => f.requirement), String(status)).not.toContain('scan.http.documented-status');
    }
  });

  it('an overload answer that keeps the error form passes no error-body rule', () => {
    for (const status of [429, 503]) {
      const r = run('scan', 'getEventById', status, 'application/json', { error: 'busy' });
      expect(r.failures).toEqual([]);
      expect(r.judged).not.toContain('scan.errors.error-body');
    }
  });

  it('a ledger JsCantonError with its optional fields null is a valid error body', () => {
    const body = { code: 'INVALID_ARGUMENT', cause: 'c', context: {}, errorCategory: 8, resources: [], grpcCodeValue: 3, correlationId: null, traceId: null, retryInfo: null, definiteAnswer: null };
    expect(run('ledger', 'getTransactionByOffset', 400, 'application/json', body).failures).toEqual([]);
    expect(run('ledger', 'getTransactionByOffset', 400, 'text/plain', 'Invalid value for: body').failures).toEqual([]);
  });
});
