/** Planted faults of the validator's GET /v0/entry/all beyond the thin slice (faults-thin.ts). */
import { registerFaults } from '../faults.js';

export const VALIDATOR_ENTRY_FAULTS = {
  unverified: 'validator-entry-wrong-signature-accepted',
  othersListed: 'validator-entry-lists-other-users-entries',
  oldestOmitted: 'validator-entry-omits-oldest',
  expiredListed: 'validator-entry-lists-expired',
  missingToken403: 'validator-entry-missing-token-403',
  subjectIgnored: 'validator-entry-ignores-token-subject',
  notOnboardedListed: 'validator-entry-not-onboarded-user-listed',
  deactivatedListed: 'validator-entry-deactivated-user-listed',
} as const;
const F = VALIDATOR_ENTRY_FAULTS;

registerFaults([
  { name: F.unverified, requirement: 'validator.list-owned-ans-entries.invalid-token-rejected', description: "a bearer token's signature is not verified: any well-formed JWT names the caller" },
  { name: F.othersListed, requirement: 'validator.list-owned-ans-entries.only-callers-entries', description: "alice's entries are listed along with the caller's" },
  { name: F.oldestOmitted, requirement: 'validator.list-owned-ans-entries.owned-entries-listed', description: "the caller's oldest unexpired entry is left out" },
  { name: F.missingToken403, requirement: 'validator.auth.unauthenticated-401', description: 'GET /v0/entry/all without a bearer token is answered 403 {error} (a refusal, but not the 401 FACTS.md gives)' },
  { name: F.subjectIgnored, requirement: 'validator.list-owned-ans-entries.token-subject-selects-user', description: "every onboarded user's token lists the validator operator's entries, whoever the token's subject is" },
  { name: F.notOnboardedListed, requirement: 'validator.list-owned-ans-entries.not-onboarded-refused', description: 'the token of a user the validator has not onboarded (unknown to the participant, or without a primary party) is answered 200 with an empty listing instead of 404' },
  { name: F.deactivatedListed, requirement: 'validator.list-owned-ans-entries.deactivated-user-refused', description: "a deactivated user's token is answered 200 with the entries of the user's primary party instead of 401" },
  { name: F.expiredListed, requirement: 'validator.list-owned-ans-entries.expired-left-out', description: 'expired entries whose contract is still active are listed' },
]);
