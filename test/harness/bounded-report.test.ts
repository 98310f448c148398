/** Bounded reports at nightly depth: a requirement failed on every response keeps a bounded record. */
import { describe, expect, it } from 'vitest';
import { boundedFailures } from '../../harness/conformance.js';
import type { ExchangeRecord, FailureRecord } from '../../harness/types.js';

const exchange: ExchangeRecord = { api: 'scan', request: { method: 'GET', url: 'http://127.0.0.1/x', headers: {} }, response: { status: 200, headers: {}, body: 'x'.repeat(8192) }, startedAt: '', durationMs: 1 };

describe('failures of a check in a report', () => {
  it('lists the first five of a requirement in full, then fifteen without their exchange, then how many more', () => {
    const many: FailureRecord[] = Array.from({ length: 500 }, (_, i) => ({ requirement: 'a', message: `${i} ${'y'.repeat(1000)}`, exchange }));
    const out = boundedFailures([...many, { requirement: 'b', message: 'once', exchange }]);
    const a = out.filter((f) => f.requirement === 'a');
    expect(a).toHaveLength(21);
    expect(a.slice(0, 5).every((f) => f.exchange !== undefined && f.message.length > 1000)).toBe(true);
    expect(a.slice(5, 20).every((f) => f.exchange === undefined && f.message.length <= 303)).toBe(true);
    expect(a[20]!.message).toContain('480 more');
    expect(out.filter((f) => f.requirement === 'b')).toEqual([{ requirement: 'b', message: 'once', exchange }]);
  });
});
