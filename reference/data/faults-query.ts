/**
 * Planted faults of the query decoding shared by the scan, validator and registry routes (reference/data/http.ts):
 * helpers a route calls when its fault is switched on. The faults are declared with the route's other faults.
 */

/**
 * Reads page_size as any number text JavaScript reads (an exponent 1e3, a hexadecimal 0x10) instead of decimal digits
 * only: the query's page_size is replaced by the decimal digits of that number before the listing decodes it.
 */
export function readPageSizeAsAnyNumber(query: unknown): void {
  if (query === null || typeof query !== 'object') return;
  const q = query as Record<string, unknown>;
  const raw = q.page_size;
  if (typeof raw !== 'string' || raw.trim() === '') return;
  const n = Number(raw);
  if (Number.isSafeInteger(n)) q.page_size = String(n);
}
