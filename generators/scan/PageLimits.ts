/**
 * Page sizes and limits of scan's listings: GET /v0/ans-entries page_size and GET /v0/admin/validator/licenses limit
 * accept 1 to 1000 (FACTS.md); POST /v0/events page_size the same. Invalid ones lie below 1 or above 1000 (int32).
 */
import fc from 'fast-check';

export const MIN_PAGE = 1;
export const MAX_PAGE = 1000;

/** a valid page size or limit, at most `max` (default 1000) so walks stay bounded */
export function pageLimit(o: { min?: number; max?: number } = {}): fc.Arbitrary<number> {
  return fc.integer({ min: Math.max(MIN_PAGE, o.min ?? MIN_PAGE), max: Math.min(MAX_PAGE, o.max ?? MAX_PAGE) });
}

/** the bounds themselves, 1 and 1000, with values in between */
export function pageLimitWithBounds(): fc.Arbitrary<number> {
  return fc.oneof(fc.constantFrom(MIN_PAGE, MAX_PAGE), pageLimit());
}

/** an integer below 1: 0, negatives down to the int32 minimum */
export function invalidPageLimitBelow(): fc.Arbitrary<number> {
  return fc.oneof(fc.constant(0), fc.constant(-1), fc.integer({ min: -(2 ** 31), max: 0 }));
}

/** an integer above 1000, up to the int32 maximum */
export function invalidPageLimitAbove(): fc.Arbitrary<number> {
  return fc.oneof(fc.constant(MAX_PAGE + 1), fc.integer({ min: MAX_PAGE + 1, max: 2 ** 31 - 1 }));
}
