/** name_prefix values for GET /v0/ans-entries: prefixes of names the target has, so listings are not all empty. */
import fc from 'fast-check';

/** a prefix (possibly empty, possibly the whole name) of one of `names`; arbitrary short text when there is none */
export function ansNamePrefix(names: readonly string[]): fc.Arbitrary<string> {
  if (names.length === 0) return fc.string({ maxLength: 4 });
  return fc.constantFrom(...names).chain((n) => fc.nat({ max: n.length }).map((k) => n.slice(0, k)));
}

/** a non-empty prefix of one of `names` (at least one character) */
export function nonEmptyAnsNamePrefix(names: readonly string[]): fc.Arbitrary<string> {
  const usable = names.filter((n) => n.length > 0);
  if (usable.length === 0) return fc.string({ minLength: 1, maxLength: 4 });
  return fc.constantFrom(...usable).chain((n) => fc.integer({ min: 1, max: n.length }).map((k) => n.slice(0, k)));
}
