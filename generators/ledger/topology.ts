/**
 * External party topology requests: real public keys of every listed key spec, in the listed formats their data
 * fits, party hints, and invalid variants (empty key data, unknown enum values, bad thresholds).
 */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';

export type KeySpec = 'SIGNING_KEY_SPEC_EC_CURVE25519' | 'SIGNING_KEY_SPEC_EC_P256' | 'SIGNING_KEY_SPEC_EC_P384' | 'SIGNING_KEY_SPEC_EC_SECP256K1';
export type KeyFormat = 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO' | 'CRYPTO_KEY_FORMAT_RAW';

export interface SigningPublicKey {
  format: string;
  keyData: string;
  keySpec: string;
}

const keys = new Map<KeySpec, Buffer>();
/** One key pair per spec per process (key generation is the slow part); DER SubjectPublicKeyInfo bytes. */
function spki(spec: KeySpec): Buffer {
  let k = keys.get(spec);
  if (k === undefined) {
    const pair =
      spec === 'SIGNING_KEY_SPEC_EC_CURVE25519'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('ec', { namedCurve: { SIGNING_KEY_SPEC_EC_P256: 'prime256v1', SIGNING_KEY_SPEC_EC_P384: 'secp384r1', SIGNING_KEY_SPEC_EC_SECP256K1: 'secp256k1' }[spec] });
    k = pair.publicKey.export({ type: 'spki', format: 'der' });
    keys.set(spec, k);
  }
  return k;
}

/** A valid Ed25519 key as DER X.509 SubjectPublicKeyInfo (the combination every participant accepts). */
export const ed25519DerKey = (): SigningPublicKey => ({
  format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
  keyData: spki('SIGNING_KEY_SPEC_EC_CURVE25519').toString('base64'),
  keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
});

/** A key whose data fits a listed format and keySpec: SPKI for every spec, raw 32 bytes for Ed25519. */
export const listedKey = (): fc.Arbitrary<SigningPublicKey> =>
  fc.oneof(
    fc.constantFrom<KeySpec>('SIGNING_KEY_SPEC_EC_CURVE25519', 'SIGNING_KEY_SPEC_EC_P256', 'SIGNING_KEY_SPEC_EC_P384', 'SIGNING_KEY_SPEC_EC_SECP256K1').map((spec) => ({
      format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
      keyData: spki(spec).toString('base64'),
      keySpec: spec,
    })),
    fc.constant(null).map(() => ({
      format: 'CRYPTO_KEY_FORMAT_RAW',
      keyData: spki('SIGNING_KEY_SPEC_EC_CURVE25519').subarray(-32).toString('base64'),
      keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
    })),
  );

/** Every combination listedKey draws from, once each: a check sends them all, whatever the draws. */
export const everyListedKey = (): SigningPublicKey[] => [
  ...(['SIGNING_KEY_SPEC_EC_CURVE25519', 'SIGNING_KEY_SPEC_EC_P256', 'SIGNING_KEY_SPEC_EC_P384', 'SIGNING_KEY_SPEC_EC_SECP256K1'] as const).map((spec) => ({
    format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
    keyData: spki(spec).toString('base64'),
    keySpec: spec,
  })),
  { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: spki('SIGNING_KEY_SPEC_EC_CURVE25519').subarray(-32).toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' },
];

/** A party hint: what may precede `::` in a party id. */
export const partyHint = () => fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,30}$/);

/** A key whose format or keySpec is not one of the listed values. */
export const invalidKeyEnum = (): fc.Arbitrary<SigningPublicKey> =>
  fc.tuple(fc.constantFrom('CRYPTO_KEY_FORMAT_PEM', 'CRYPTO_KEY_FORMAT_JWK', 'DER'), fc.boolean()).map(([bad, inFormat]) => ({
    ...ed25519DerKey(),
    ...(inFormat ? { format: bad } : { keySpec: bad.replace('CRYPTO_KEY_FORMAT', 'SIGNING_KEY_SPEC') }),
  }));

/** An empty keyData. */
export const invalidEmptyKeyData = (): fc.Arbitrary<SigningPublicKey> => fc.constant({ ...ed25519DerKey(), keyData: '' });

/** A negative confirmationThreshold. */
export const invalidNegativeThreshold = () => fc.integer({ min: -1000, max: -1 });

/** A participant UID of the form `name::fingerprint` (not necessarily known to the synchronizer). */
export const participantUid = () => fc.stringMatching(/^[a-z][a-z0-9]{2,12}$/).map((n) => `${n}::1220${'ab'.repeat(32)}`);
