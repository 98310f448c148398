/**
 * Page sizes and limits of scan's listings: GET /v0/ans-entries page_size and GET /v0/admin/validator/licenses limit
 * accept 1 to the scan's maximum page size (FACTS.md: an operator's setting, default 1000); POST /v0/events page_size
 * the same. Invalid ones lie below 1 or above that maximum (int32). `max` is the target's maximum where a generator
 * takes one.
 */
import fc from 'fast-check';

export const MIN_PAGE = 1;
export const MAX_PAGE = 1000;

/** a valid page size or limit, at most `max` (default 1000) so walks stay bounded */
export function pageLimit(o: { min?: number; max?: number } = {}): fc.Arbitrary<number> {
  return fc.integer({ min: Math.max(MIN_PAGE, o.min ?? MIN_PAGE), max: Math.min(MAX_PAGE, o.max ?? MAX_PAGE) });
}

/** the bounds themselves, 1 and the maximum, with values in between */
export function pageLimitWithBounds(max = MAX_PAGE): fc.Arbitrary<number> {
  return fc.oneof(fc.constantFrom(MIN_PAGE, max), fc.integer({ min: MIN_PAGE, max }));
}

/** The bounds every page-size check sends besides its random draws: 1 and the maximum (valid), 0 and maximum + 1. */
export function pageLimitBounds(max = MAX_PAGE): { valid: number[]; invalidBelow: number[]; invalidAbove: number[] } {
  return { valid: [MIN_PAGE, max], invalidBelow: [MIN_PAGE - 1, -(2 ** 31)], invalidAbove: max < INT32_MAX ? [max + 1, INT32_MAX] : [] };
}

export const INT32_MAX = 2 ** 31 - 1;
export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;

/** an integer below 1: 0, negatives down to the int32 minimum */
export function invalidPageLimitBelow(): fc.Arbitrary<number> {
  return fc.oneof(fc.constant(0), fc.constant(-1), fc.integer({ min: -(2 ** 31), max: 0 }));
}

/** an integer above the maximum (default 1000), up to the int32 maximum */
export function invalidPageLimitAbove(max = MAX_PAGE): fc.Arbitrary<number> {
  return fc.oneof(fc.constant(max + 1), fc.integer({ min: max + 1, max: INT32_MAX }));
}
