/**
 * Planted faults of the seeded ANS data itself (reference/data/ans.ts), switched where the shared data are built
 * (shared.ts), so that every interface reading the data sees them.
 */
import { registerFaults } from '../faults.js';
import type { AnsStore } from './ans.js';

export const DATA_ANS_FAULTS = {
  /** AnsStore.ownedBy finds only the validator operator's entries */
  otherOwnersHidden: 'validator-entry-other-users-entries-hidden',
  /** a listing without name_prefix (or with an empty one) lists no regular entry, only DSO-provided ones */
  unfilteredRegularHidden: 'scan-ans-unfiltered-listing-regular-entries-hidden',
  /** a listing without name_prefix leaves out its last regular entry for a DSO-provided one */
  dsoDisplacesRegular: 'scan-ans-dso-entry-displaces-regular-entry',
} as const;

registerFaults([
  {
    name: DATA_ANS_FAULTS.otherOwnersHidden,
    requirement: 'validator.list-owned-ans-entries.owned-entries-listed',
    description: "GET /v0/entry/all lists the validator operator's entries for its token, but nothing for any other onboarded user's token (alice_user's alice-* entries are missing)",
  },
  {
    name: DATA_ANS_FAULTS.unfilteredRegularHidden,
    requirement: 'scan.list-ans-entries.matching-listed',
    description: 'GET /v0/ans-entries (and the scan proxy) without name_prefix, or with an empty one, lists only the DSO-provided entries: every regular entry is left out although each is listed for its own name',
  },
  {
    name: DATA_ANS_FAULTS.dsoDisplacesRegular,
    requirement: 'scan.list-ans-entries.matching-listed',
    description: 'GET /v0/ans-entries (and the scan proxy) without name_prefix lists page_size - 1 regular entries and a DSO-provided one, although page_size regular entries exist (DSO entries may only fill a page with fewer)',
  },
]);

/** ownedBy answering for the validator operator's party only */
export function hideOtherOwners(ans: AnsStore): void {
  const ownedBy = ans.ownedBy.bind(ans);
  ans.ownedBy = (ownerParty: string) => (ownerParty === ans.validatorPartyId ? ownedBy(ownerParty) : []);
}

/** list() without name_prefix answering only the DSO-provided entries */
export function hideUnfilteredRegular(ans: AnsStore): void {
  const list = ans.list.bind(ans);
  ans.list = (prefix, pageSize, nowMs) => (prefix === '' ? list(prefix, pageSize, nowMs).filter((e) => e.contract_id == null) : list(prefix, pageSize, nowMs));
}

/** list() without name_prefix giving the last place of a page full of regular entries to a DSO-provided entry */
export function displaceRegularByDso(ans: AnsStore): void {
  const list = ans.list.bind(ans);
  ans.list = (prefix, pageSize, nowMs) => {
    const out = list(prefix, pageSize, nowMs);
    const d = ans.dsoEntries[0];
    if (prefix !== '' || d === undefined || out.length < pageSize || out.some((e) => e.contract_id == null)) return out;
    return [...out.slice(0, pageSize - 1), { ...d }];
  };
}
