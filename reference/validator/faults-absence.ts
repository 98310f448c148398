/**
 * Planted faults of the validator that hide what must be there or let in who must not: every listing empty at once,
 * a scan-proxy prefix listing without one of its matching entries, and scan-proxy routes that take any bearer token.
 */
import { registerFaults } from '../faults.js';

export const VALIDATOR_ABSENCE_FAULTS = {
  emptyListings: 'validator-empty-listings',
  prefixDropsMatching: 'validator-scan-proxy-ans-prefix-drops-matching',
  anyToken: 'validator-scan-proxy-accepts-invalid-token',
} as const;
const F = VALIDATOR_ABSENCE_FAULTS;

registerFaults([
  {
    name: F.emptyListings,
    requirement: 'validator.list-owned-ans-entries.owned-entries-listed',
    description: 'every listing is empty at once: GET /v0/entry/all lists no entry, both mining round lists are empty, no provider has a featured app right, and GET /v0/scan-proxy/ans-entries lists nothing',
  },
  { name: F.prefixDropsMatching, requirement: 'validator.list-scan-proxy-ans-entries.matching-listed', description: 'a scan-proxy listing with a non-empty name_prefix leaves out its second matching entry (every entry it lists still matches)' },
  { name: F.anyToken, requirement: 'validator.scan-proxy.invalid-token-rejected', description: 'the scan-proxy routes answer any request that carries an Authorization header, whatever its token (malformed, wrongly signed, unsigned), with 200 and the data' },
]);
