/** Malformed inputs for robustness probes of the scan and validator endpoints (each is `invalid*`: never valid). */
import fc from 'fast-check';

/** text that is not a decimal integer: words, decimals, hex, blanks, huge digit strings, unicode */
export function invalidIntegerText(): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.constantFrom('', ' ', 'abc', '1.5', '1e3', '0x10', '--1', '+', 'NaN', 'Infinity', 'null', '[]', '１２'),
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.stringMatching(/^[0-9]{25,40}$/),
    )
    .filter((s) => !/^-?\d{1,18}$/.test(s));
}

/**
 * any Unicode scalar value; fast-check's built-in 'binary' unit builds a reverse mapping of every code point on
 * construction (about half a second), which this mapped integer avoids
 */
const anyCodePoint = fc
  .integer({ min: 1, max: 0x10ffff })
  .filter((c) => c < 0xd800 || c > 0xdfff)
  .map((c) => String.fromCodePoint(c));

/** an arbitrary path segment or query value: unicode, percent signs, very long strings */
export function invalidPathOrQueryText(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ minLength: 1, maxLength: 40, unit: anyCodePoint }),
    fc.string({ minLength: 1, maxLength: 20 }).map((s) => `${s}%zz`),
    fc.integer({ min: 200, max: 1200 }).map((n) => 'x'.repeat(n)),
  ).filter((s) => s.trim() !== '' && !s.includes('/'));
}

/** a request body that is not a valid POST /v0/events request */
export function invalidEventsRequestBody(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(null, [], 'text', 42, {}),
    fc.record({ page_size: fc.oneof(fc.string(), fc.double({ noInteger: true, noNaN: true }), fc.integer({ min: 1001 }), fc.integer({ max: 0 })) }),
    fc.record({ page_size: fc.constant(10), after: fc.oneof(fc.constant('later'), fc.record({ after_migration_id: fc.string(), after_record_time: fc.constant('not a time') })) }),
  );
}
