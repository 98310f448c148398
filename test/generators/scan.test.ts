import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { DAML_VALUE_ENCODINGS, damlValueEncoding, invalidDamlValueEncoding } from '../../generators/scan/DamlValueEncoding.js';
import { invalidPageLimitAbove, invalidPageLimitBelow, pageLimit, pageLimitBounds, pageLimitWithBounds } from '../../generators/scan/PageLimits.js';
import { ansNamePrefix, nonEmptyAnsNamePrefix } from '../../generators/scan/AnsNamePrefix.js';
import { invalidEventsRequestBody, invalidIntegerText, invalidPathOrQueryText } from '../../generators/scan/Malformed.js';

const names = ['alice-004.unverified.cns', 'bob-005.unverified.cns', 'dso.cns'];

describe('generators/scan', () => {
  it('generates valid encodings, page sizes and limits that match the schemas', () => {
    const s = schemaRegistry();
    for (const e of fc.sample(damlValueEncoding(), { seed: 1, numRuns: 20 })) expect(s.validateComponent('scan', 'DamlValueEncoding', e)).toEqual([]);
    for (const n of fc.sample(pageLimitWithBounds(), { seed: 1, numRuns: 50 })) {
      expect(s.validateComponent('scan', 'EventHistoryRequest', { page_size: n })).toEqual([]);
      expect(n >= 1 && n <= 1000).toBe(true);
    }
    for (const n of fc.sample(pageLimit({ min: 3, max: 40 }), { seed: 2, numRuns: 50 })) expect(n >= 3 && n <= 40).toBe(true);
  });

  it('generates prefixes of the given names', () => {
    for (const p of fc.sample(ansNamePrefix(names), { seed: 1, numRuns: 50 })) expect(names.some((n) => n.startsWith(p))).toBe(true);
    for (const p of fc.sample(nonEmptyAnsNamePrefix(names), { seed: 1, numRuns: 50 })) expect(p.length > 0 && names.some((n) => n.startsWith(p))).toBe(true);
  });

  it('generates invalid values that the schemas or the rules reject', () => {
    const s = schemaRegistry();
    for (const e of fc.sample(invalidDamlValueEncoding(), { seed: 1, numRuns: 50 })) {
      expect((DAML_VALUE_ENCODINGS as readonly string[]).includes(e)).toBe(false);
      expect(s.validateComponent('scan', 'DamlValueEncoding', e)).not.toEqual([]);
    }
    for (const n of fc.sample(invalidPageLimitBelow(), { seed: 1, numRuns: 50 })) expect(n < 1 && Number.isInteger(n)).toBe(true);
    for (const n of fc.sample(invalidPageLimitAbove(), { seed: 1, numRuns: 50 })) {
      expect(n > 1000 && n < 2 ** 31).toBe(true);
      expect(s.validateComponent('scan', 'EventHistoryRequest', { page_size: n })).not.toEqual([]);
    }
    for (const v of fc.sample(invalidIntegerText(), { seed: 1, numRuns: 50 })) expect(/^-?\d{1,18}$/.test(v)).toBe(false);
    for (const v of fc.sample(invalidPathOrQueryText(), { seed: 1, numRuns: 50 })) expect(v.includes('/')).toBe(false);
    for (const b of fc.sample(invalidEventsRequestBody(), { seed: 1, numRuns: 50 })) expect(s.validateComponent('scan', 'EventHistoryRequest', b)).not.toEqual([]);
  });

  it("follows the scan's configured maximum page size, and names the bounds every check sends", () => {
    for (const n of fc.sample(pageLimitWithBounds(500), { seed: 3, numRuns: 200 })) expect(n >= 1 && n <= 500).toBe(true);
    expect(fc.sample(pageLimitWithBounds(500), { seed: 3, numRuns: 200 })).toContain(500);
    for (const n of fc.sample(invalidPageLimitAbove(500), { seed: 3, numRuns: 100 })) expect(n > 500 && n < 2 ** 31).toBe(true);
    expect(fc.sample(invalidPageLimitAbove(2000), { seed: 3, numRuns: 100 }).every((n) => n > 2000)).toBe(true);
    expect(pageLimitBounds(500)).toEqual({ valid: [1, 500], invalidBelow: [0, -(2 ** 31)], invalidAbove: [501, 2 ** 31 - 1] });
    expect(pageLimitBounds()).toEqual({ valid: [1, 1000], invalidBelow: [0, -(2 ** 31)], invalidAbove: [1001, 2 ** 31 - 1] });
    // a maximum at the int32 limit leaves nothing above it that is still an int32
    expect(pageLimitBounds(2 ** 31 - 1).invalidAbove).toEqual([]);
  });

  it('gives the same values for the same seed', () => {
    for (const arb of [damlValueEncoding(), invalidDamlValueEncoding(), pageLimitWithBounds(), invalidPageLimitBelow(), ansNamePrefix(names), invalidIntegerText()] as fc.Arbitrary<unknown>[]) {
      expect(fc.sample(arb, { seed: 9, numRuns: 10 })).toEqual(fc.sample(arb, { seed: 9, numRuns: 10 }));
    }
  });
});
