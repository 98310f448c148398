/** Planted faults of the ledger thin slice (GET /v2/version, PATCH /v2/users/{user-id}). */
import { registerFaults } from '../faults.js';

export const LEDGER_GET_VERSION_VERSION_MISSING = 'ledger-get-version-version-missing';
export const LEDGER_UPDATE_USER_EMPTY_MASK_ACCEPTED = 'ledger-update-user-empty-mask-accepted';
export const LEDGER_GET_VERSION_FEATURES_MISSING = 'ledger-get-version-features-missing';

registerFaults([
  {
    name: LEDGER_GET_VERSION_VERSION_MISSING,
    requirement: 'ledger.get-version.response-schema',
    description: 'GET /v2/version answers 200 without the required version field',
  },
  {
    name: LEDGER_GET_VERSION_FEATURES_MISSING,
    requirement: 'ledger.get-version.response-schema',
    description: 'GET /v2/version answers 200 without features: the limits a suite reads there are not advertised',
  },
  {
    name: LEDGER_UPDATE_USER_EMPTY_MASK_ACCEPTED,
    requirement: 'ledger.update-user.empty-mask-rejected',
    description: 'PATCH /v2/users/{user-id} with an update mask of no paths answers 200 and changes nothing, instead of 400',
  },
]);
