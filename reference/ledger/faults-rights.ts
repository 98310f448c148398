/** Planted faults of what party rights (CanActAs, CanExecuteAs, CanReadAs, CanReadAsAnyParty) authorize. */
import { registerFaults } from '../faults.js';

export const PF = {
  actAsNeedsReadAs: 'ledger-rights-can-act-as-needs-read-as',
  executeAsReads: 'ledger-rights-can-execute-as-reads',
  readAsIgnored: 'ledger-rights-can-read-as-ignored',
  anyPartyIgnored: 'ledger-rights-can-read-as-any-party-ignored',
  idpAdminAnyProvider: 'ledger-rights-idp-admin-any-provider',
  anyPartyUnchecked: 'ledger-rights-filters-for-any-party-unchecked',
  actAsAnyParty: 'ledger-rights-can-act-as-any-party',
} as const;

const r = (name: string, requirement: string, description: string) => ({ name, requirement, description });
registerFaults([
  r(PF.actAsNeedsReadAs, 'ledger.rights.can-act-as-submits', 'a submission is refused with 403 unless the caller also holds CanReadAs for the submitting party: CanActAs alone does not suffice'),
  r(PF.executeAsReads, 'ledger.rights.can-execute-as-grants-no-reads', 'CanExecuteAs for a party lets the user read as that party'),
  r(PF.readAsIgnored, 'ledger.rights.can-read-as-reads', 'CanReadAs is ignored: reading as a party needs CanActAs for it (or CanReadAsAnyParty)'),
  r(PF.idpAdminAnyProvider, 'ledger.rights.identity-provider-admin-other-provider', 'an IdentityProviderAdmin administers the users of every identity provider, not only of its own'),
  r(PF.anyPartyIgnored, 'ledger.rights.can-read-as-any-party', 'CanReadAsAnyParty does not let the user read as a named party'),
  r(PF.actAsAnyParty, 'ledger.auth.act-as-tree-submission', 'a CanActAs right for one party authorizes acting as every party'),
  r(PF.anyPartyUnchecked, 'ledger.rights.any-party-read-needs-right', 'filtersForAnyParty is served to any user, CanReadAsAnyParty or not: it shows every party\'s events'),
]);
