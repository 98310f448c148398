/**
 * Planted faults of the seeded ANS data itself (reference/data/ans.ts), switched where the shared data are built
 * (shared.ts), so that every interface reading the data sees them.
 */
import { registerFaults } from '../faults.js';
import type { AnsStore } from './ans.js';

export const DATA_ANS_FAULTS = {
  /** AnsStore.ownedBy finds only the validator operator's entries */
  otherOwnersHidden: 'validator-entry-other-users-entries-hidden',
} as const;

registerFaults([
  {
    name: DATA_ANS_FAULTS.otherOwnersHidden,
    requirement: 'validator.list-owned-ans-entries.owned-entries-listed',
    description: "GET /v0/entry/all lists the validator operator's entries for its token, but nothing for any other onboarded user's token (alice_user's alice-* entries are missing)",
  },
]);

/** ownedBy answering for the validator operator's party only */
export function hideOtherOwners(ans: AnsStore): void {
  const ownedBy = ans.ownedBy.bind(ans);
  ans.ownedBy = (ownerParty: string) => (ownerParty === ans.validatorPartyId ? ownedBy(ownerParty) : []);
}
