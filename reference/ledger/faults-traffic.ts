/** Planted faults of traffic accounts (POST /v2/traffic/accounts, GET /v2/traffic/accounts/{account-id}). */
import { registerFaults } from '../faults.js';

export const XF = {
  schema: 'ledger-update-traffic-account-balance-as-text',
  delta: 'ledger-update-traffic-account-positive-delta-off-by-one',
  echo: 'ledger-update-traffic-account-account-id-altered',
  unset: 'ledger-update-traffic-account-unset-delta-adds-one',
  negative: 'ledger-update-traffic-account-negative-balance-rejected',
  duplicate: 'ledger-update-traffic-account-duplicate-dedup-id-applied',
  fresh: 'ledger-update-traffic-account-deduplicated-by-content',
  required: 'ledger-update-traffic-account-dedup-id-optional',
  emptyDedup: 'ledger-update-traffic-account-empty-dedup-id-accepted',
  party: 'ledger-update-traffic-account-party-id-rejected',
  enforcement: 'ledger-update-traffic-account-served-without-enforcement',
  getSchema: 'ledger-get-traffic-account-balance-missing',
  freshZero: 'ledger-get-traffic-account-fresh-not-found',
  reflects: 'ledger-get-traffic-account-stale-balance',
  adminOnly: 'ledger-update-traffic-account-any-user',
  added: 'ledger-update-traffic-account-not-served',
  early: 'ledger-update-traffic-account-served-before-3-5',
  getWrapped: 'ledger-get-traffic-account-wrapped',
  unwrapped: 'ledger-update-traffic-account-unwrapped',
  int32: 'ledger-update-traffic-account-delta-cut-to-int32',
} as const;

const r = (name: string, requirement: string, description: string) => ({ name, requirement, description });
const u = 'ledger.update-traffic-account';
registerFaults([
  r(XF.schema, `${u}.response-schema`, 'the balance is sent as a text that is not an integer'),
  r(XF.delta, `${u}.applies-delta`, 'a positive balanceDelta is applied as one less'),
  r(XF.echo, `${u}.echoes-account`, 'the response accountId differs from the requested one'),
  r(XF.unset, `${u}.unset-delta-unchanged`, 'an update without balanceDelta adds 1'),
  r(XF.negative, `${u}.may-go-negative`, 'an update that takes the balance below zero is rejected with 400'),
  r(XF.duplicate, `${u}.duplicate-dedup-id-ignored`, 'a reused deduplicationId applies its delta again'),
  r(XF.fresh, `${u}.fresh-dedup-id-applies`, 'a request with the same delta as the previous one is ignored despite a fresh deduplicationId'),
  r(XF.required, `${u}.dedup-id-required`, 'a request without deduplicationId is applied'),
  r(XF.emptyDedup, `${u}.dedup-id-required`, 'a request whose deduplicationId is the empty string (what a missing one decodes to) is applied'),
  r(XF.party, `${u}.account-id-is-party`, 'a party id allocated on this participant is refused as accountId with 400'),
  // the rule is about participants without traffic enforcement: the self-test runs this fault on such a reference
  { ...r(XF.enforcement, `${u}.requires-enforcement`, 'the traffic routes are served without traffic enforcement'), reference: { trafficEnforcement: false } },
  r(XF.getSchema, 'ledger.get-traffic-account.response-schema', 'GET /v2/traffic/accounts/{account-id} answers without the balance'),
  r(XF.int32, `${u}.applies-delta`, 'a balanceDelta beyond the int32 range is cut to its low 32 bits (an int64 field read as int32)'),
  r(XF.unwrapped, `${u}.response-schema`, 'POST /v2/traffic/accounts answers the account without the response wrapper, as the read does'),
  r(XF.getWrapped, 'ledger.get-traffic-account.response-schema', 'GET /v2/traffic/accounts/{account-id} wraps the account in response, as the update does'),
  r(XF.freshZero, 'ledger.get-traffic-account.fresh-balance-zero', 'an account never updated is answered 404'),
  r(XF.reflects, 'ledger.get-traffic-account.reflects-update', 'the read returns the balance before the last update'),
  r(XF.adminOnly, 'ledger.auth.traffic-admin-only', 'any authenticated user may update a traffic account'),
  r(XF.added, 'ledger.versioning.traffic-accounts-added', 'POST /v2/traffic/accounts answers 404 on 3.5 with traffic enforcement'),
  r(XF.early, 'ledger.versioning.traffic-accounts-absent-before', 'a 3.4 participant with traffic enforcement serves POST /v2/traffic/accounts'),
]);
