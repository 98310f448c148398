/** Planted faults of the validator thin slice (GET /v0/entry/all). */
import { registerFaults } from '../faults.js';

export const VALIDATOR_LIST_OWNED_ANS_ENTRIES_NO_AUTH = 'validator-list-owned-ans-entries-no-auth';
export const VALIDATOR_LIST_OWNED_ANS_ENTRIES_AMOUNT_NUMBER = 'validator-list-owned-ans-entries-amount-number';

registerFaults([
  {
    name: VALIDATOR_LIST_OWNED_ANS_ENTRIES_NO_AUTH,
    requirement: 'validator.list-owned-ans-entries.requires-auth',
    description: "GET /v0/entry/all without a bearer token answers 200 with the validator user's entries instead of 401",
  },
  {
    name: VALIDATOR_LIST_OWNED_ANS_ENTRIES_AMOUNT_NUMBER,
    requirement: 'validator.list-owned-ans-entries.response-schema',
    description: 'GET /v0/entry/all renders each entry amount as a JSON number instead of a string',
  },
]);
