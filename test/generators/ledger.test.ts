import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { isAnnotationKey, annotationsSize } from '../../reference/ledger/annotations.js';
import { USER_ID_ALPHABET, invalidUserId, isDotSegment, isValidUserId, tooLongUserId, userId, userIdWithInvalidChar } from '../../generators/ledger/userId.js';
import {
  MAX_ANNOTATIONS_BYTES, annotationKey, annotations, annotationsBytes, annotationsOfSize, invalidPrefix, keyWithTwoSlashes, nameOfLength, nameWithBadChar, nameWithBadEnd, prefixOfLength,
} from '../../generators/ledger/annotations.js';

const sample = <T>(a: fc.Arbitrary<T>, seed = 7) => fc.sample(a, { numRuns: 200, seed });

describe('ledger user id generators', () => {
  it('userId() values are valid ids that pass the User schema, over the whole length range', () => {
    const ids = sample(userId());
    for (const id of ids) {
      expect(isValidUserId(id), id).toBe(true);
      expect(schemaRegistry().validateComponent('ledger', 'User', { id })).toEqual([]);
    }
    expect(Math.max(...ids.map((s) => s.length))).toBeGreaterThanOrEqual(120);
    expect(new Set(ids.join('')).size).toBeGreaterThan(USER_ID_ALPHABET.length / 2);
  });
  it('userId({ pathSafe: true }) leaves out the dot-segment ids "." and ".." and only those', () => {
    const short = fc.sample(userId({ maxLength: 2, pathSafe: true }), { numRuns: 2000, seed: 3 });
    for (const id of short) expect(isDotSegment(id), id).toBe(false);
    expect(short.some((id) => id.includes('.'))).toBe(true);
    expect(fc.sample(userId({ maxLength: 2 }), { numRuns: 2000, seed: 3 }).some(isDotSegment)).toBe(true);
  });
  it('invalid generators give only invalid ids', () => {
    for (const id of [...sample(invalidUserId()), ...sample(userIdWithInvalidChar()), ...sample(tooLongUserId())]) expect(isValidUserId(id), id).toBe(false);
  });
  it('the same seed gives the same values', () => {
    expect(sample(userId(), 3)).toEqual(sample(userId(), 3));
    expect(sample(invalidUserId(), 3)).toEqual(sample(invalidUserId(), 3));
  });
  it('shrinks an offending id to a minimal one', () => {
    const bad = fc.check(fc.property(userIdWithInvalidChar(), (id) => isValidUserId(id)), { seed: 1 });
    expect((bad.counterexample?.[0] as string).length).toBeLessThanOrEqual(2);
    const long = fc.check(fc.property(tooLongUserId(), (id) => isValidUserId(id)), { seed: 1 });
    expect((long.counterexample?.[0] as string).length).toBe(129);
  });
});

describe('ledger annotation generators', () => {
  it('valid keys pass the key rule and maps pass the User schema', () => {
    for (const k of sample(annotationKey())) expect(isAnnotationKey(k), k).toBe(true);
    for (const a of sample(annotations())) {
      expect(schemaRegistry().validateComponent('ledger', 'User', { id: 'u', metadata: { resourceVersion: '', annotations: a } })).toEqual([]);
      for (const v of Object.values(a)) expect(v).not.toBe('');
    }
  });
  it('invalid key generators break the key rule', () => {
    for (const p of sample(invalidPrefix())) expect(isAnnotationKey(`${p}/n`), p).toBe(false);
    for (const k of [...sample(nameWithBadChar()), ...sample(nameWithBadEnd()), ...sample(keyWithTwoSlashes())]) expect(isAnnotationKey(k), k).toBe(false);
  });
  it('builders hit the limits exactly', () => {
    for (let n = 1; n <= 254; n++) {
      expect(prefixOfLength(n)).toHaveLength(n);
      expect(isAnnotationKey(`${prefixOfLength(n)}/a`)).toBe(n <= 253);
    }
    expect(isAnnotationKey(nameOfLength(63))).toBe(true);
    expect(isAnnotationKey(nameOfLength(64))).toBe(false);
    for (const multibyte of [false, true]) {
      for (const n of [MAX_ANNOTATIONS_BYTES, MAX_ANNOTATIONS_BYTES + 1]) {
        const a = annotationsOfSize(n, { multibyte });
        expect(annotationsBytes(a)).toBe(n);
        expect(annotationsSize(a)).toBe(n);
      }
    }
  });
  it('the same seed gives the same values', () => {
    expect(sample(annotations(), 5)).toEqual(sample(annotations(), 5));
  });
});
