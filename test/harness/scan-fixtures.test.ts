import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../harness/conformance.js';
import { microsecondBefore, pageSizeInRange, scanMaxPageSize, widePage } from '../../harness/fixtures/scan.js';

/** the parts of a check's context scanMaxPageSize reads */
function ctx(api: 'scan' | 'validator', fixtures: { scan?: Record<string, unknown>; validator?: Record<string, unknown> }): CheckContext {
  const target = (f: Record<string, unknown> | undefined) => (f === undefined ? undefined : { url: 'http://127.0.0.1:1', fixtures: f });
  const targets = { scan: target(fixtures.scan), validator: target(fixtures.validator) };
  return { target: targets[api] ?? { url: 'http://127.0.0.1:1', fixtures: {} }, config: { targets } } as unknown as CheckContext;
}

describe('scan fixtures', () => {
  it("reads the scan's maximum page size from the target's fixtures, else the scan target's, else 1000", () => {
    expect(scanMaxPageSize(ctx('scan', { scan: {} }))).toBe(1000);
    expect(scanMaxPageSize(ctx('scan', { scan: { maxPageSize: 500 } }))).toBe(500);
    // the validator's scan-proxy reads the scan target's setting unless its own names one
    expect(scanMaxPageSize(ctx('validator', { scan: { maxPageSize: 250 }, validator: {} }))).toBe(250);
    expect(scanMaxPageSize(ctx('validator', { scan: { maxPageSize: 250 }, validator: { maxPageSize: 300 } }))).toBe(300);
    expect(scanMaxPageSize(ctx('validator', { validator: {} }))).toBe(1000);
    // a value that is no page size is not taken
    expect(scanMaxPageSize(ctx('scan', { scan: { maxPageSize: 0 } }))).toBe(1000);
    // the widest page the checks walk with stays at 1000 for larger maxima
    expect(widePage(ctx('scan', { scan: { maxPageSize: 5000 } }))).toBe(1000);
    expect(widePage(ctx('scan', { scan: { maxPageSize: 250 } }))).toBe(250);
  });

  it('lets a derived out-of-range page size through only where the configured maximum allows it', () => {
    const big = ctx('scan', { scan: { maxPageSize: 2000 } });
    const plain = ctx('scan', { scan: {} });
    expect(pageSizeInRange(big, { kind: 'out-of-range', path: ['page_size'], value: 1500 })).toBe(true);
    expect(pageSizeInRange(big, { kind: 'out-of-range', path: ['limit'], value: '2000' })).toBe(true);
    expect(pageSizeInRange(big, { kind: 'out-of-range', path: ['page_size'], value: 2001 })).toBe(false);
    expect(pageSizeInRange(big, { kind: 'out-of-range', path: ['page_size'], value: 0 })).toBe(false);
    expect(pageSizeInRange(big, { kind: 'non-integer', path: ['page_size'], value: 1500 })).toBe(false);
    expect(pageSizeInRange(plain, { kind: 'out-of-range', path: ['page_size'], value: 1001 })).toBe(false);
  });

  it('gives the record time one microsecond earlier, across second and day boundaries', () => {
    expect(microsecondBefore('2026-11-26T00:00:01.131376Z')).toBe('2026-11-26T00:00:01.131375Z');
    expect(microsecondBefore('2026-11-26T00:00:01.000000Z')).toBe('2026-11-26T00:00:00.999999Z');
    expect(microsecondBefore('2026-11-26T00:00:00Z')).toBe('2026-11-25T23:59:59.999999Z');
    expect(microsecondBefore('2026-11-26T10:00:00.5Z')).toBe('2026-11-26T10:00:00.499999Z');
    expect(microsecondBefore('not a time')).toBeUndefined();
  });
});
