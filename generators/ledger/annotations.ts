/**
 * Annotation keys, values and maps of ObjectMeta (SPEC.md, ObjectMeta and Limits; FACTS.md, users): a key is an
 * optional DNS-subdomain prefix (at most 253 characters, dot-separated labels of letters, digits and hyphens that
 * start and end with a letter or digit) and `/`, then a name (at most 63 characters of letters, digits, `.`, `-`,
 * `_`, alphanumeric at both ends). The total of keys and values is at most 262144 UTF-8 bytes, entries with an empty
 * value not counted.
 */
import fc from 'fast-check';

export const MAX_ANNOTATIONS_BYTES = 262144;
export const MAX_PREFIX = 253;
export const MAX_NAME = 63;

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const alnum = () => fc.constantFrom(...ALNUM);
const labelInner = () => fc.constantFrom(...`${ALNUM}-`);
const nameInner = () => fc.constantFrom(...`${ALNUM}._-`);

/** A string of length >= 1 whose first and last characters come from `ends` and the rest from `inner`. */
function bracketed(ends: fc.Arbitrary<string>, inner: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<string> {
  return fc.oneof(
    ends,
    fc.tuple(ends, fc.string({ unit: inner, maxLength: Math.max(0, maxLength - 2) }), ends).map(([a, m, b]) => `${a}${m}${b}`),
  );
}

/** A DNS label (1 to `maxLength` characters, at most 63). */
export const dnsLabel = (maxLength = 20): fc.Arbitrary<string> => bracketed(alnum(), labelInner(), Math.min(63, maxLength));

/** A DNS subdomain usable as a key prefix, at most `maxLength` (default 253) characters. */
export function annotationPrefix(maxLength = MAX_PREFIX): fc.Arbitrary<string> {
  return fc.array(dnsLabel(20), { minLength: 1, maxLength: 4 }).map((ls) => ls.join('.')).filter((p) => p.length <= maxLength);
}

/** An annotation name, 1 to `maxLength` (default 63) characters. */
export const annotationName = (maxLength = MAX_NAME): fc.Arbitrary<string> => bracketed(alnum(), nameInner(), maxLength);

/** A valid key, with or without a prefix. */
export function annotationKey(): fc.Arbitrary<string> {
  return fc.oneof(annotationName(), fc.tuple(annotationPrefix(), annotationName()).map(([p, n]) => `${p}/${n}`));
}

/** A non-empty value, ASCII or with multi-byte characters. */
export function annotationValue(maxLength = 24): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ minLength: 1, maxLength }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength }),
  );
}

/** A small map of valid keys to non-empty values. */
export function annotations(o: { maxKeys?: number } = {}): fc.Arbitrary<Record<string, string>> {
  return fc.dictionary(annotationKey(), annotationValue(), { maxKeys: o.maxKeys ?? 4, noNullPrototype: true });
}

// --- deterministic builders for the limits ---

/** A valid prefix of exactly `length` characters (labels of up to 63 characters joined by dots). */
export function prefixOfLength(length: number): string {
  const labels: string[] = [];
  let left = length;
  while (left > 0) {
    if (labels.length > 0) left -= 1; // the dot
    const n = Math.min(63, left);
    // a label of 1 character, or ending in a digit, never ends with a hyphen; never leave a 0-length tail
    const take = left - n === 1 ? n - 1 : n;
    labels.push(`${'p'.repeat(Math.max(0, take - 1))}${labels.length % 10}`);
    left -= take;
  }
  return labels.join('.');
}

/** A valid name of exactly `length` characters. */
export const nameOfLength = (length: number): string => (length <= 1 ? 'n'.repeat(length) : `n${'a'.repeat(length - 2)}9`);

/**
 * Annotations of exactly `bytes` UTF-8 bytes (keys plus values). With `multibyte`, values are made of `é` (2 bytes),
 * so their character count is below their byte count.
 */
export function annotationsOfSize(bytes: number, o: { multibyte?: boolean; keyPrefix?: string } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const chunk = 60000;
  let left = bytes;
  let i = 0;
  while (left > 0) {
    const key = `${o.keyPrefix ?? 'k'}${i++}`;
    const room = Math.min(chunk, left - key.length);
    if (room < 1) throw new Error(`annotationsOfSize: ${bytes} bytes cannot be filled exactly`);
    if (o.multibyte === true) {
      const pairs = Math.floor(room / 2);
      out[key] = 'é'.repeat(pairs) + (room % 2 === 1 ? 'a' : '');
    } else {
      out[key] = 'v'.repeat(room);
    }
    left -= key.length + room;
  }
  return out;
}

/** UTF-8 size of annotations as the rule counts it. */
export function annotationsBytes(a: Record<string, string>): number {
  let n = 0;
  for (const [k, v] of Object.entries(a)) if (v !== '') n += Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}

// --- invalid keys, each breaking one rule ---

/** Prefixes that are not DNS subdomains: a label starting or ending with a hyphen, an empty label, a bad character. */
export function invalidPrefix(): fc.Arbitrary<string> {
  const label = dnsLabel(10);
  const bad = fc.constantFrom('_', '*', ' ', 'é', '!', '@');
  return fc.oneof(
    label.map((l) => `-${l}`),
    label.map((l) => `${l}-`),
    fc.tuple(label, label).map(([a, b]) => `${a}..${b}`),
    label.map((l) => `.${l}`),
    label.map((l) => `${l}.`),
    fc.tuple(label, bad, label).map(([a, c, b]) => `${a}${c}${b}`),
  );
}

/** Names with a character outside letters, digits, `.`, `-`, `_` (inside the name). */
export function nameWithBadChar(): fc.Arbitrary<string> {
  return fc.tuple(alnum(), fc.constantFrom(' ', '*', '@', ':', 'é', '+', '~', '#'), alnum()).map(([a, c, b]) => `${a}${c}${b}`);
}

/** Names of allowed characters whose first or last character is `.`, `-` or `_`. */
export function nameWithBadEnd(): fc.Arbitrary<string> {
  const end = fc.constantFrom('.', '-', '_');
  return fc.oneof(
    fc.tuple(end, annotationName(10)).map(([e, n]) => `${e}${n}`),
    fc.tuple(annotationName(10), end).map(([n, e]) => `${n}${e}`),
  );
}

/** Keys with two or more slashes. */
export function keyWithTwoSlashes(): fc.Arbitrary<string> {
  return fc.tuple(annotationPrefix(40), annotationName(10), annotationName(10)).map(([p, a, b]) => `${p}/${a}/${b}`);
}
