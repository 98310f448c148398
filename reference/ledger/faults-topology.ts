/** Planted faults of POST /v2/parties/external/generate-topology. */
import { registerFaults } from '../faults.js';

export const TF = {
  schema: 'ledger-generate-topology-fingerprint-missing',
  hint: 'ledger-generate-topology-party-id-ignores-hint',
  txsEmpty: 'ledger-generate-topology-no-transactions',
  hashEmpty: 'ledger-generate-topology-empty-multi-hash',
  derRejected: 'ledger-generate-topology-der-x509-rejected',
  secp256k1Rejected: 'ledger-generate-topology-secp256k1-rejected',
  p384Rejected: 'ledger-generate-topology-p384-rejected',
  unknownAccepted: 'ledger-generate-topology-unknown-key-format-accepted',
  emptyKey: 'ledger-generate-topology-empty-key-data-accepted',
  emptyHint: 'ledger-generate-topology-empty-hint-accepted',
  negative: 'ledger-generate-topology-negative-threshold-accepted',
  zeroRejected: 'ledger-generate-topology-zero-threshold-rejected',
  above: 'ledger-generate-topology-threshold-above-confirmers-accepted',
  unknownSync: 'ledger-generate-topology-unknown-synchronizer-accepted',
  duplicates: 'ledger-generate-topology-duplicate-participants-accepted',
  observeDefault: 'ledger-generate-topology-observation-only-by-default',
  observeIgnored: 'ledger-generate-topology-observation-only-ignored',
  zeroKept: 'ledger-generate-topology-default-threshold-kept-as-zero',
  unspecifiedAccepted: 'ledger-generate-topology-unspecified-key-format-accepted',
  observerCounted: 'ledger-generate-topology-observing-participant-counted-as-confirmer',
} as const;

const r = (name: string, requirement: string, description: string) => ({ name, requirement, description });
const p = 'ledger.generate-external-party-topology';
registerFaults([
  r(TF.observeDefault, `${p}.observation-only-default`, 'without localParticipantObservationOnly the local participant only observes'),
  r(TF.observeIgnored, `${p}.observation-only-applied`, 'localParticipantObservationOnly true is accepted and ignored: the local participant still confirms'),
  r(TF.schema, `${p}.response-schema`, 'the response lacks publicKeyFingerprint'),
  r(TF.hint, `${p}.party-id-from-hint`, 'the partyId is built from a generated name instead of the partyHint'),
  r(TF.txsEmpty, `${p}.topology-transactions-non-empty`, 'topologyTransactions is an empty list'),
  r(TF.hashEmpty, `${p}.multi-hash-non-empty`, 'multiHash is the empty string'),
  r(TF.derRejected, `${p}.ed25519-der-accepted`, 'a DER X.509 SubjectPublicKeyInfo key is rejected with 400'),
  r(TF.secp256k1Rejected, `${p}.listed-key-values-accepted`, 'a SIGNING_KEY_SPEC_EC_SECP256K1 key is rejected with 400'),
  r(TF.p384Rejected, `${p}.listed-key-values-accepted`, 'a SIGNING_KEY_SPEC_EC_P384 key (whose SubjectPublicKeyInfo is base64 without padding) is rejected with 400'),
  r(TF.unknownAccepted, `${p}.unknown-key-value-rejected`, 'a key format that is not listed is accepted'),
  r(TF.emptyKey, `${p}.empty-key-data-rejected`, 'an empty keyData is accepted'),
  r(TF.emptyHint, `${p}.empty-party-hint-rejected`, 'an empty partyHint is accepted (a hint is made up)'),
  r(TF.negative, `${p}.negative-threshold-rejected`, 'a negative confirmationThreshold is treated as 0'),
  r(TF.zeroRejected, `${p}.zero-threshold-defaults`, 'a confirmationThreshold of 0 is rejected with 400'),
  r(TF.unspecifiedAccepted, `${p}.unknown-key-value-rejected`, 'a CRYPTO_KEY_FORMAT_UNSPECIFIED key format is accepted (read as DER X.509 SubjectPublicKeyInfo)'),
  r(TF.observerCounted, `${p}.zero-threshold-defaults`, 'a local participant that only observes still counts as a confirmer for the default threshold'),
  r(TF.zeroKept, `${p}.zero-threshold-defaults`, 'a confirmationThreshold of 0 or none is written into the mapping as 0 instead of as all the confirmers'),
  r(TF.above, `${p}.threshold-above-confirmers-rejected`, 'a confirmationThreshold above the confirmers is capped instead of rejected'),
  r(TF.unknownSync, `${p}.unknown-synchronizer-rejected`, 'an unknown synchronizer is accepted'),
  r(TF.duplicates, `${p}.duplicate-participants-rejected`, 'a participant uid named twice is silently deduplicated'),
]);
