/**
 * What reproduces a failure (harness/reporting/reproduce.ts): the rerun command carries the run's settings that change
 * what the requirement's checks send, a binary body's curl line sends a file, failures on one exchange are told once,
 * and errors are counted by cause with their URLs cut to the target's origin.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../harness/reporting/model.js';
import { curlLine, errorCauses, groupFailures, rerunCommand } from '../../harness/reporting/reproduce.js';
import { renderSummary } from '../../harness/reporting/summary.js';
import type { ExchangeRecord } from '../../harness/types.js';

const report = (o: Partial<RunReport>): RunReport => ({ seed: 42, runs: 25, config: { sources: [] }, targets: {}, checks: [], ...o }) as unknown as RunReport;
const requirement = { id: 'scan.list-ans-entries.name-prefix-match', api: 'scan' };

describe('the rerun command', () => {
  it('gives the seed, the requirement, its interface, and the embedded reference\'s faults, variant and ledger version', () => {
    const r = report({ seed: 7, runs: 100, targets: { ledger: { url: 'http://127.0.0.1:1', reference: true } }, reference: { faults: ['a', 'b'], ledgerVersion: '3.6', scanVersion: '0.8.0', variant: { seed: 5, choices: {} } } });
    expect(rerunCommand(r, { id: 'ledger.x', api: 'ledger' })).toBe('canton-conformance run --seed 7 --requirement ledger.x --only ledger --runs 100 --fault a --fault b --reference-variant 5 --ledger-version 3.6');
  });

  it("gives the embedded reference's scan version to scan and validator requirements, its registry version to registry ones", () => {
    const r = report({ targets: { scan: { url: 'http://127.0.0.1:1', reference: true }, validator: { url: 'http://127.0.0.1:1', reference: true }, registry: { url: 'http://127.0.0.1:1', reference: true } }, reference: { faults: [], ledgerVersion: '3.5', scanVersion: '0.6.7', registryVersion: '0.6.10' } });
    expect(rerunCommand(r, { id: 'scan.x', api: 'scan' })).toBe('canton-conformance run --seed 42 --requirement scan.x --only scan --scan-version 0.6.7');
    expect(rerunCommand(r, { id: 'validator.x', api: 'validator' })).toBe('canton-conformance run --seed 42 --requirement validator.x --only validator --scan-version 0.6.7');
    expect(rerunCommand(r, { id: 'registry.x', api: 'registry' })).toBe('canton-conformance run --seed 42 --requirement registry.x --only registry --registry-version 0.6.10');
    const defaults = report({ targets: r.targets, reference: { faults: [], ledgerVersion: '3.5', scanVersion: '0.8.0', registryVersion: '0.6.11' } });
    expect(rerunCommand(defaults, { id: 'registry.x', api: 'registry' })).toBe('canton-conformance run --seed 42 --requirement registry.x --only registry');
  });

  it("gives the configuration file the run read, else a vendor target's URL, and read-only mode", () => {
    const file = report({ config: { sources: ['file conf/my target.yaml', 'flags'], run: { readOnly: true } }, targets: { scan: { url: 'https://scan.example/api/scan', reference: false } } });
    expect(rerunCommand(file, requirement)).toBe("canton-conformance run --seed 42 --requirement scan.list-ans-entries.name-prefix-match --only scan --config 'conf/my target.yaml' --read-only");
    const flags = report({ config: { sources: ['flags'] }, targets: { scan: { url: 'https://scan.example/api/scan', reference: false } } });
    expect(rerunCommand(flags, requirement)).toBe('canton-conformance run --seed 42 --requirement scan.list-ans-entries.name-prefix-match --only scan --scan-url https://scan.example/api/scan');
  });
});

const exchange = (body: string | undefined, status = 200): ExchangeRecord => ({
  api: 'ledger',
  request: { method: 'POST', url: 'http://127.0.0.1:7575/v2/packages', headers: { 'content-type': 'application/octet-stream', authorization: 'Bearer <redacted>' }, ...(body !== undefined ? { body } : {}) },
  response: { status, headers: {}, body: '{}' },
  startedAt: '2026-01-01T00:00:00Z',
  durationMs: 1,
});

describe('a curl line', () => {
  it('sends a binary body from a file, never the recorder\'s description of it', () => {
    const x = exchange('<5 bytes of binary data, sha256 0123456789abcdef0123456789abcdef>');
    expect(curlLine(x, 'bodies/b.bin')).toBe(`curl -sS -X POST 'http://127.0.0.1:7575/v2/packages' -H 'content-type: application/octet-stream' -H "Authorization: Bearer \${LEDGER_TOKEN}" --data-binary @bodies/b.bin`);
    expect(curlLine(x)).toMatch(/--data-binary @request-body-0123456789abcdef\.bin$/);
    expect(curlLine(exchange('{"a":1}'))).toMatch(/--data-raw '\{"a":1\}'$/);
  });
});

describe('failures told once', () => {
  it('groups the same message on the same exchange, and a failure kept without its exchange with its message', () => {
    const f = (checkId: string, message: string, x?: ExchangeRecord) => ({ requirement: 'r', message, checkId, checkTitle: checkId, ...(x !== undefined ? { exchange: x } : {}) });
    const groups = groupFailures([f('a', 'm', exchange('1')), f('b', 'm', exchange('1')), f('a', 'm'), f('c', 'm', exchange('2')), f('a', 'other')]);
    expect(groups.map((g) => [g.failure.checkId, g.count, g.checks])).toEqual([
      ['a', 3, ['a', 'b']],
      ['c', 1, ['c']],
      ['a', 1, ['a']],
    ]);
  });
});

describe('the causes of errors', () => {
  it('counts checks by cause, commonest first, with each URL cut to its origin and the target named', () => {
    const errored = (api: string, error: string) => ({ id: `${api}.${error.length}.${Math.random()}`, api, verdict: 'error', error });
    const r = report({
      targets: { ledger: { url: 'http://127.0.0.1:9', reference: false }, scan: { url: 'http://127.0.0.1:8/api/scan', reference: false } },
      checks: [
        errored('ledger', 'TransportError: connection refused by http://127.0.0.1:9/v2/users: is the target running?'),
        errored('ledger', 'TransportError: connection refused by http://127.0.0.1:9/v2/version: is the target running?'),
        errored('scan', 'TransportError: http://127.0.0.1:8/api/scan/v0/dso timed out after 5000 ms'),
        { id: 'passed', api: 'ledger', verdict: 'pass' },
      ] as unknown as RunReport['checks'],
    });
    expect(errorCauses(r)).toEqual([
      { cause: 'connection refused by ledger at http://127.0.0.1:9: is the target running?', checks: 2 },
      { cause: 'http://127.0.0.1:8 timed out after 5000 ms', checks: 1 },
    ]);
  });

  it("open summary.md's errors section", () => {
    const checks = [1, 2, 3].map((i) => ({ id: `ledger.c${i}`, api: 'ledger', requirements: [`ledger.r${i}`], verdict: 'error', error: `TransportError: connection refused by http://127.0.0.1:9/v2/p${i}: is the target running?` }));
    const md = renderSummary(report({
      outcome: 'INCOMPLETE: ...', exitCode: 3, runId: 'r', startedAt: '2026-01-01T00:00:00Z', durationMs: 1000, suite: { name: 'canton-conformance', version: '0' },
      selection: { apis: ['ledger'], requirements: [] }, counts: {}, checkCounts: { pass: 0, fail: 0, error: 3, skipped: 0, unsupported: 0 }, requirements: [], runErrors: [], notes: [],
      targets: { ledger: { url: 'http://127.0.0.1:9', reference: false } },
      checks: checks as unknown as RunReport['checks'],
    }));
    const errors = md.split('\n## Errors (3)\n')[1] ?? '';
    expect(errors).toMatch(/^\nThe harness or the network broke[^\n]*\n\nCauses, commonest first:\n\n- 3 checks: connection refused by ledger at http:\/\/127\.0\.0\.1:9: is the target running\?\n\nEvery check in error:\n\n- `ledger\.c1`/);
  });
});
