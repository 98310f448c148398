/** Package upload bodies and query values: bodies that are not a DAR, vetAllPackages values that are not booleans. */
import fc from 'fast-check';

/** Bytes that are not a zip archive (never start with the local file header PK\x03\x04). */
export const invalidArchive = (): fc.Arbitrary<Uint8Array> =>
  fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 256 }).filter((b) => !(b[0] === 0x50 && b[1] === 0x4b)),
    fc.string({ minLength: 1, maxLength: 100 }).map((s) => new TextEncoder().encode(`not a dar: ${s}`)),
  );

/** A vetAllPackages query value that is not a boolean. */
export const invalidVetFlag = () => fc.constantFrom('maybe', 'yes', '1x', 'TRUE!', 'null', '{}');
