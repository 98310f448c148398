/** Planted faults of the validator's scan-proxy reads. */
import { registerFaults, type FaultSet } from '../faults.js';
import type { ListAnsEntriesFaults } from '../data/ans-routes.js';

export const VALIDATOR_PROXY_FAULTS = {
  ansSchema: 'validator-scan-proxy-ans-user-missing',
  ansPageSizeOptional: 'validator-scan-proxy-ans-page-size-optional',
  ansStale: 'validator-scan-proxy-ans-stale-descriptions',
  ansPrefixIgnored: 'validator-scan-proxy-ans-prefix-ignored',
  ansPageSizeExceeded: 'validator-scan-proxy-ans-page-size-exceeded',
  ansExpired: 'validator-scan-proxy-ans-expired-included',
  ansNoContractId: 'validator-scan-proxy-ans-regular-entry-without-contract-id',
  ansNoExpiry: 'validator-scan-proxy-ans-regular-entry-without-expiry',
  ansFtp: 'validator-scan-proxy-ans-url-ftp',
  roundsSchema: 'validator-rounds-issuing-missing',
  openRoundsEmpty: 'validator-scan-proxy-open-rounds-empty',
  issuingRoundsEmpty: 'validator-scan-proxy-issuing-rounds-empty',
  featuredSchema: 'validator-featured-app-right-blob-missing',
  featured404: 'validator-featured-app-unknown-404',
  featuredOther: 'validator-featured-app-right-of-another-provider',
  noAuth: 'validator-scan-proxy-answers-without-token',
} as const;
const F = VALIDATOR_PROXY_FAULTS;

registerFaults([
  { name: F.ansSchema, requirement: 'validator.list-scan-proxy-ans-entries.response-schema', description: 'scan-proxy ANS entries come without user' },
  { name: F.ansPageSizeOptional, requirement: 'validator.list-scan-proxy-ans-entries.page-size-required', description: 'a scan-proxy ANS request without page_size lists 100 entries instead of 400' },
  { name: F.ansStale, requirement: 'validator.list-scan-proxy-ans-entries.agrees-with-scan', description: "the proxy serves stale descriptions that differ from scan's" },
  { name: F.ansPrefixIgnored, requirement: 'validator.list-scan-proxy-ans-entries.name-prefix-match', description: 'the proxy ignores name_prefix' },
  { name: F.ansPageSizeExceeded, requirement: 'validator.list-scan-proxy-ans-entries.at-most-page-size', description: 'the proxy returns page_size + 1 entries' },
  { name: F.ansExpired, requirement: 'validator.list-scan-proxy-ans-entries.non-expired-only', description: 'the proxy lists expired entries' },
  { name: F.ansNoContractId, requirement: 'validator.ans.contract-id-absent-only-dso', description: 'the first user-owned entry of a proxy page lacks its contract_id' },
  { name: F.ansNoExpiry, requirement: 'validator.ans.expires-at-absent-only-dso', description: 'the first user-owned entry of a proxy page has expires_at null' },
  { name: F.ansFtp, requirement: 'validator.ans.url-empty-or-http', description: 'non-empty entry urls of the proxy are ftp:// urls' },
  { name: F.roundsSchema, requirement: 'validator.get-open-and-issuing-mining-rounds.response-schema', description: 'issuing_mining_rounds is left out' },
  { name: F.openRoundsEmpty, requirement: 'validator.get-open-and-issuing-mining-rounds.rounds-listed', description: 'open_mining_rounds is answered empty while the network has open rounds (issuing_mining_rounds kept)' },
  { name: F.issuingRoundsEmpty, requirement: 'validator.get-open-and-issuing-mining-rounds.rounds-listed', description: 'issuing_mining_rounds is answered empty while the network has issuing rounds (open_mining_rounds kept)' },
  { name: F.featuredSchema, requirement: 'validator.get-featured-app-right.response-schema', description: 'a featured app right comes without created_event_blob' },
  { name: F.featuredOther, requirement: 'validator.get-featured-app-right.provider-matches', description: "a featured provider is answered the right of the next featured provider, whose payload names that other provider" },
  { name: F.featured404, requirement: 'validator.get-featured-app-right.absent-not-404', description: 'a provider without a featured app right is answered 404' },
  { name: F.noAuth, requirement: 'validator.scan-proxy.requires-auth', description: 'the scan-proxy routes answer a request without an Authorization header (200 with the data) instead of 401' },
]);

export function proxyAnsFaults(faults: FaultSet): ListAnsEntriesFaults {
  return {
    userMissing: faults.has(F.ansSchema),
    pageSizeOptional: faults.has(F.ansPageSizeOptional),
    staleDescriptions: faults.has(F.ansStale),
    prefixIgnored: faults.has(F.ansPrefixIgnored),
    pageSizeExceeded: faults.has(F.ansPageSizeExceeded),
    expiredIncluded: faults.has(F.ansExpired),
    dropContractId: faults.has(F.ansNoContractId),
    dropExpiry: faults.has(F.ansNoExpiry),
    ftpUrls: faults.has(F.ansFtp),
  };
}
