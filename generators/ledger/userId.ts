/**
 * Ledger user ids (SPEC.md, User; FACTS.md, users): 1 to 128 characters of ASCII letters, digits and
 * @^$.!`-#+'~_|:(). Valid ids cover the whole alphabet and every length; invalid ones shrink to a minimal offender
 * (a single bad character, 129 times the same character, the empty id).
 */
import fc from 'fast-check';

export const USER_ID_SPECIALS = "@^$.!`-#+'~_|:()";
export const USER_ID_ALPHABET = `abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789${USER_ID_SPECIALS}`;
export const USER_ID_MAX = 128;
const isAllowed = (c: string) => USER_ID_ALPHABET.includes(c);

/** One character of the allowed set. */
export const userIdChar = (): fc.Arbitrary<string> => fc.constantFrom(...USER_ID_ALPHABET);

export interface UserIdConstraints {
  minLength?: number;
  maxLength?: number;
  /**
   * Leave out the ids "." and "..": valid, but as a URL path segment (GET /v2/users/..) they are dot segments that
   * URL resolution removes, so no request can name such a user in its path (percent-encoding a dot does not help:
   * %2E is a dot segment too).
   */
  pathSafe?: boolean;
}

/** True for the user ids that are URL dot segments. */
export const isDotSegment = (id: string): boolean => id === '.' || id === '..';

/** A valid user id; lengths spread over 1..128, with the long end (near 128) drawn on purpose. */
export function userId(c: UserIdConstraints = {}): fc.Arbitrary<string> {
  const min = Math.max(1, c.minLength ?? 1);
  const max = Math.min(USER_ID_MAX, c.maxLength ?? USER_ID_MAX);
  const any = fc.string({ unit: userIdChar(), minLength: min, maxLength: max, size: 'max' });
  const long = fc.string({ unit: userIdChar(), minLength: Math.max(min, max - 8), maxLength: max });
  const ids = fc.oneof({ arbitrary: any, weight: 3 }, { arbitrary: long, weight: 1 });
  return c.pathSafe === true ? ids.filter((id) => !isDotSegment(id)) : ids;
}

/** Characters outside the allowed set: printable ASCII punctuation, space, and a few non-ASCII letters. */
export const FORBIDDEN_USER_ID_CHARS = [
  ' ', '/', '\\', '%', '?', '&', '=', '*', ',', ';', '<', '>', '"', '[', ']', '{', '}', '\t', 'é', 'ß', 'Ω', '中', '😀',
];
export const forbiddenUserIdChar = (): fc.Arbitrary<string> => fc.constantFrom(...FORBIDDEN_USER_ID_CHARS);

/** A user id of allowed length with exactly one character outside the set; shrinks to that character alone. */
export function userIdWithInvalidChar(): fc.Arbitrary<string> {
  const part = fc.string({ unit: userIdChar(), maxLength: 60 });
  return fc.tuple(part, forbiddenUserIdChar(), part).map(([a, bad, b]) => `${a}${bad}${b}`);
}

/** A user id of allowed characters but 129 to 300 characters long; shrinks to 129 characters. */
export function tooLongUserId(): fc.Arbitrary<string> {
  return fc.string({ unit: userIdChar(), minLength: USER_ID_MAX + 1, maxLength: 300 });
}

export type InvalidUserIdKind = 'character' | 'too-long' | 'empty';

/** An invalid user id: one bad character, too long, or empty. */
export function invalidUserId(kinds: InvalidUserIdKind[] = ['character', 'too-long', 'empty']): fc.Arbitrary<string> {
  const arbs: fc.Arbitrary<string>[] = [];
  if (kinds.includes('empty')) arbs.push(fc.constant(''));
  if (kinds.includes('character')) arbs.push(userIdWithInvalidChar());
  if (kinds.includes('too-long')) arbs.push(tooLongUserId());
  return fc.oneof(...arbs);
}

/** True when `s` is a valid user id by the rule above (for contract tests and models). */
export function isValidUserId(s: string): boolean {
  const chars = [...s];
  return chars.length >= 1 && chars.length <= USER_ID_MAX && chars.every(isAllowed);
}
