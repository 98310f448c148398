/**
 * Planted faults of the ledger user management area (users, annotations, update-user, grant-user-rights, rights,
 * auth and the user setup endpoints). Each breaks exactly one catalogue requirement; the server code switches them
 * with `ctx.faults.has(F.name)`.
 */
import { registerFaults } from '../faults.js';
import type { UserRecord } from '../world.js';

const defs = {
  // users
  idCharRejected: ['ledger-users-id-backtick-rejected', 'ledger.users.id-allowed-characters', 'a user id containing a backtick is rejected with 400 on creation'],
  idTooLongAccepted: ['ledger-users-id-129-accepted', 'ledger.users.id-too-long-rejected', 'user ids of 129 characters are accepted (the limit is off by one)'],
  idEmptyAccepted: ['ledger-users-id-empty-accepted', 'ledger.users.id-empty-rejected', 'creating a user with an empty id answers 200'],
  idBadCharAccepted: ['ledger-users-id-slash-accepted', 'ledger.users.id-invalid-character-rejected', "user ids containing '/' are accepted on creation"],
  idCode: ['ledger-users-id-wrong-code', 'ledger.users.invalid-id-code', 'an invalid user id on creation yields code INVALID_ARGUMENT instead of INVALID_FIELD'],
  defaultIdp: ['ledger-users-default-idp-named', 'ledger.users.default-identity-provider', "users of the default identity provider read back with identityProviderId 'default'"],
  rvEmptyOnRead: ['ledger-users-resource-version-empty-on-read', 'ledger.users.resource-version-non-empty', 'GET /v2/users/{user-id} answers with an empty metadata.resourceVersion'],
  rvKeptOnAnnotations: ['ledger-users-resource-version-kept', 'ledger.users.resource-version-changes', 'an update of annotations only keeps the resourceVersion'],
  rvRecycled: ['ledger-users-resource-version-recycled', 'ledger.users.resource-version-unique', 'updates alternate the resourceVersion between two values'],
  annotationsNotEmpty: ['ledger-users-absent-annotations-rejected', 'ledger.users.annotations-may-be-empty', 'creating a user whose metadata has no annotations map (or no metadata) answers 400'],
  serverUnprefixed: ['ledger-users-server-annotation-unprefixed', 'ledger.users.server-annotations-prefixed', "the server adds an unprefixed annotation 'created-by' to users created with annotations"],
  deleteUnknown: ['ledger-users-delete-unknown-ok', 'ledger.users.unknown-user-not-found', 'deleting an unknown user answers 200'],
  // annotations
  sizeOffByOne: ['ledger-annotations-size-limit-off-by-one', 'ledger.annotations.total-size-limit', 'annotations of 262145 bytes are accepted'],
  sizeAtLimitRejected: ['ledger-annotations-size-at-limit-rejected', 'ledger.annotations.total-size-at-limit-accepted', 'annotations of exactly 262144 bytes are rejected'],
  sizeInChars: ['ledger-annotations-size-in-characters', 'ledger.annotations.size-counted-in-utf8-bytes', 'the annotation size counts UTF-16 characters, not UTF-8 bytes'],
  sizeCountsEmpty: ['ledger-annotations-size-counts-deletions', 'ledger.annotations.size-excludes-empty-values', 'keys sent with an empty value count toward the size limit'],
  prefix254: ['ledger-annotations-prefix-254-accepted', 'ledger.annotations.prefix-max-253', 'key prefixes of 254 characters are accepted'],
  prefixEmpty: ['ledger-annotations-empty-prefix-accepted', 'ledger.annotations.prefix-dns-subdomain', "a key '/name' with an empty prefix is accepted as the unprefixed name"],
  prefixHyphen: ['ledger-annotations-prefix-hyphen-ends-accepted', 'ledger.annotations.prefix-dns-subdomain', 'prefix labels starting or ending with a hyphen, and empty labels, are accepted'],
  prefix253Rejected: ['ledger-annotations-prefix-253-rejected', 'ledger.annotations.prefixed-key-accepted', 'key prefixes of 253 characters are rejected'],
  nameUnderscoreRejected: ['ledger-annotations-name-underscore-rejected', 'ledger.annotations.unprefixed-key-accepted', "annotation names containing '_' are rejected"],
  nameEmptyAccepted: ['ledger-annotations-empty-name-accepted', 'ledger.annotations.name-required', "a key 'prefix/' with an empty name is accepted"],
  name64: ['ledger-annotations-name-64-accepted', 'ledger.annotations.name-max-63', 'annotation names of 64 characters are accepted'],
  namePlus: ['ledger-annotations-name-plus-accepted', 'ledger.annotations.name-characters', "annotation names containing '+' are accepted"],
  nameEnds: ['ledger-annotations-name-end-unchecked', 'ledger.annotations.name-alphanumeric-ends', 'annotation names ending with ., - or _ are accepted'],
  twoSlashes: ['ledger-annotations-two-slashes-accepted', 'ledger.annotations.single-slash', 'keys with more than one slash are accepted (prefix = first part, name = last part)'],
  keyCode: ['ledger-annotations-key-wrong-code', 'ledger.annotations.invalid-key-code', 'an invalid annotation key yields code INVALID_FIELD instead of INVALID_ARGUMENT'],
  emptyOnCreate: ['ledger-annotations-empty-value-on-create-accepted', 'ledger.annotations.empty-value-rejected-on-create', 'an annotation with an empty value is accepted (and stored) on creation'],
  emptyStored: ['ledger-annotations-empty-value-stored', 'ledger.annotations.empty-value-deletes', 'in an update, an empty value is stored instead of deleting the key'],
  deleteMissing: ['ledger-annotations-delete-missing-key-fails', 'ledger.annotations.delete-missing-key-noop', 'in an update, deleting a key the user does not have answers 400'],
  noOverwrite: ['ledger-annotations-update-no-overwrite', 'ledger.annotations.update-upserts', 'in an update, existing keys keep their old value (only new keys are added)'],
  replace: ['ledger-annotations-update-replaces', 'ledger.annotations.update-merges', 'an update replaces the whole annotations map'],
  emptyMapClears: ['ledger-annotations-empty-map-clears', 'ledger.annotations.empty-map-unchanged', 'an empty annotations map under metadata.annotations clears the annotations'],
  // update-user
  updateNoId: ['ledger-update-user-response-without-id', 'ledger.update-user.response-schema', "the update response's user has no id"],
  unknownPath: ['ledger-update-user-unknown-path-ignored', 'ledger.update-user.unknown-path-rejected', 'unknown mask paths are ignored'],
  duplicatePath: ['ledger-update-user-duplicate-path-accepted', 'ledger.update-user.duplicate-path-rejected', 'a mask naming a path twice is accepted'],
  maskCode: ['ledger-update-user-mask-wrong-code', 'ledger.update-user.invalid-mask-code', 'an unknown mask path yields code INVALID_ARGUMENT instead of INVALID_USER_UPDATE_REQUEST'],
  idPathRejected: ['ledger-update-user-id-path-rejected', 'ledger.update-user.identity-paths-accepted', "the mask path 'id' is rejected as unknown"],
  ppaPathRejected: ['ledger-update-user-ppa-path-rejected', 'ledger.update-user.valid-paths-accepted', "the mask path 'primary_party_authentication' is rejected as unknown"],
  selfUnmaskedRefused: ['ledger-update-user-self-unmasked-deactivation-refused', 'ledger.update-user.only-masked-fields-change', "an update of the caller's own user whose body has isDeactivated true is refused as a self-deactivation, also without is_deactivated in the mask"],
  unmaskedChanges: ['ledger-update-user-unmasked-primary-party-applied', 'ledger.update-user.only-masked-fields-change', "the body's non-empty primaryParty is applied even when primary_party is not in the mask"],
  idRenamed: ['ledger-update-user-id-renamed', 'ledger.update-user.id-never-changes', "with 'id' in the mask, the user is stored under the id with '-renamed' appended"],
  idpModified: ['ledger-update-user-idp-modified', 'ledger.update-user.identity-provider-not-modified', 'with identity_provider_id in the mask, the body identityProviderId is stored'],
  ppIgnored: ['ledger-update-user-primary-party-ignored', 'ledger.update-user.primary-party-modifiable', 'the primary_party path is ignored'],
  unsetPpaKept: ['ledger-update-user-unset-ppa-set-true', 'ledger.update-user.unset-ppa-cleared', 'with primary_party_authentication in the mask and the field left out of the body, primaryPartyAuthentication is set true'],
  ppaIgnored: ['ledger-update-user-ppa-ignored', 'ledger.update-user.primary-party-authentication-modifiable', 'the primary_party_authentication path is ignored'],
  deactivatedReadsActive: ['ledger-update-user-deactivated-reads-active', 'ledger.update-user.deactivate', 'a deactivated user reads back with isDeactivated false'],
  reactivatedReadsDeactivated: ['ledger-update-user-reactivated-reads-deactivated', 'ledger.update-user.reactivate', 'a user once deactivated reads back with isDeactivated true after reactivation'],
  staleResponse: ['ledger-update-user-returns-old-user', 'ledger.update-user.returns-updated-user', 'the update response carries the user as it was before the update'],
  notPersisted: ['ledger-update-user-version-not-persisted', 'ledger.update-user.update-persisted', 'the stored resourceVersion differs from the one the update returned'],
  currentRejected: ['ledger-update-user-current-version-rejected', 'ledger.update-user.current-resource-version-accepted', 'an update with the current resourceVersion answers 409'],
  staleAccepted: ['ledger-update-user-stale-version-accepted', 'ledger.update-user.stale-resource-version-fails', 'the resourceVersion is never compared: stale updates succeed'],
  staleWrongStatus: ['ledger-update-user-stale-version-400', 'ledger.update-user.stale-resource-version-conflict', 'a stale resourceVersion answers 400 INVALID_ARGUMENT instead of 409 CONCURRENT_USER_UPDATE_DETECTED'],
  emptyVersionChecked: ['ledger-update-user-empty-version-checked', 'ledger.update-user.empty-resource-version-no-check', 'an empty resourceVersion is compared like any other (409 after another update)'],
  pathIdIgnored: ['ledger-update-user-path-id-ignored', 'ledger.update-user.path-body-id-mismatch-rejected', "a path user id different from the body's is ignored: the body's user is updated"],
  // grant-user-rights
  grantBadShape: ['ledger-grant-user-rights-response-object', 'ledger.grant-user-rights.response-schema', 'newlyGrantedRights is an object instead of a list'],
  grantReportsHeld: ['ledger-grant-user-rights-reports-held', 'ledger.grant-user-rights.newly-granted', 'newlyGrantedRights also lists requested rights the user already held, when some right is new'],
  regrantNotEmpty: ['ledger-grant-user-rights-regrant-lists-all', 'ledger.grant-user-rights.regrant-empty', 'a grant of only held rights lists them all as newly granted'],
  grantNotPersisted: ['ledger-grant-user-rights-execute-as-dropped', 'ledger.grant-user-rights.rights-persisted', 'a granted CanExecuteAs right is reported but not stored'],
  grantBumpsVersion: ['ledger-grant-user-rights-bumps-version', 'ledger.grant-user-rights.resource-version-unchanged', "granting rights changes the user's resourceVersion"],
  grantNeedsRights: ['ledger-grant-user-rights-rights-required', 'ledger.grant-user-rights.rights-optional', 'a grant without rights answers 400'],
  emptyRightAccepted: ['ledger-grant-user-rights-empty-right-ignored', 'ledger.grant-user-rights.empty-right-rejected', 'the Empty right is ignored (200)'],
  noRightsLimit: ['ledger-grant-user-rights-no-limit', 'ledger.grant-user-rights.too-many-rights-rejected', 'maxRightsPerUser is not enforced on grants'],
  limitOffByOne: ['ledger-grant-user-rights-limit-off-by-one', 'ledger.grant-user-rights.rights-limit-reachable', 'a grant that brings the user to exactly maxRightsPerUser rights is refused with TOO_MANY_USER_RIGHTS'],
  grantUnknownServerError: ['ledger-grant-user-rights-unknown-user-server-error', 'ledger.users.unknown-user-not-found', 'granting rights to a user that does not exist answers 500 INTERNAL instead of 404 USER_NOT_FOUND'],
  // rights
  unknownKindIgnored: ['ledger-rights-unknown-kind-ignored', 'ledger.rights.unknown-kind-rejected', 'rights of an unknown kind are ignored'],
  partylessIgnored: ['ledger-rights-partyless-ignored', 'ledger.rights.party-required', 'party rights without value.party are ignored'],
  idpAdminRefused: ['ledger-rights-idp-admin-refused-grant', 'ledger.rights.identity-provider-admin', 'an IdentityProviderAdmin is refused (403) when granting rights'],
  createdAdminRefused: ['ledger-rights-participant-admin-refused-update', 'ledger.rights.participant-admin', 'a ParticipantAdmin other than the seeded admin is refused (403) when updating users'],
  // auth
  noTokenDelete: ['ledger-auth-delete-without-token', 'ledger.auth.missing-token-unauthenticated', 'DELETE requests without a token are served as the participant admin'],
  signatureUnchecked: ['ledger-auth-signature-unchecked', 'ledger.auth.invalid-token-unauthenticated', "a token's signature is not verified"],
  listUsersAsAdmin: ['ledger-auth-list-users-as-admin', 'ledger.auth.token-subject-is-user', "GET /v2/users is served with the admin's rights whatever the token's user"],
  readOthers: ['ledger-auth-read-other-users', 'ledger.auth.missing-right-forbidden', 'any authenticated user may read another user'],
  deactivatedReads: ['ledger-auth-deactivated-may-read', 'ledger.auth.deactivated-user-refused', 'a deactivated user is refused only for non-GET requests'],
  unknownUserServed: ['ledger-auth-unknown-user-served', 'ledger.auth.unknown-user-refused', 'a token naming an unknown user is served as a user without rights'],
  reactivatedRefused: ['ledger-auth-reactivated-still-refused', 'ledger.auth.reactivated-user-accepted', 'a user once deactivated stays refused after reactivation'],
  updateByAnyone: ['ledger-auth-update-user-unchecked', 'ledger.auth.update-user-requires-admin', 'any authenticated user may update users'],
  grantByAnyone: ['ledger-auth-grant-rights-unchecked', 'ledger.auth.grant-rights-requires-admin', 'any authenticated user may grant rights'],
  missingTokenAs400: ['ledger-auth-missing-token-as-400', 'ledger.auth.unauthenticated-401', 'a request without a valid token is refused with 400 INVALID_ARGUMENT instead of 401 (a refusal, but not the status FACTS.md gives)'],
  adminRefusalAs404: ['ledger-auth-admin-refusal-as-404', 'ledger.auth.permission-denied-403', 'user management by a user without admin rights is refused with 404 USER_NOT_FOUND instead of 403 (hiding the user)'],
  deactivatedAs400: ['ledger-auth-deactivated-user-as-400', 'ledger.auth.refused-user-401-or-403', 'a deactivated user is refused with 400 FAILED_PRECONDITION instead of 401 or 403'],
  // setup endpoints
  createNoUser: ['ledger-create-user-response-without-user', 'ledger.create-user.response-schema', 'POST /v2/users answers 200 with an empty object'],
  existing400: ['ledger-create-user-existing-400', 'ledger.create-user.existing-id-conflict', 'creating an existing user answers 400 INVALID_ARGUMENT'],
  createVersionIgnored: ['ledger-create-user-resource-version-ignored', 'ledger.create-user.non-empty-resource-version-rejected', 'a non-empty resourceVersion on creation is ignored'],
  listNoToken: ['ledger-list-users-no-next-page-token', 'ledger.list-users.response-schema', 'GET /v2/users answers without nextPageToken'],
  pageSizeRejected: ['ledger-list-users-large-page-size-rejected', 'ledger.list-users.page-size-capped', 'a pageSize above the maximum answers 400'],
  pageSizeInt32Overflow: ['ledger-list-users-int32-max-page-size-server-error', 'ledger.list-users.page-size-capped', 'a pageSize of 2147483647, the largest int32, answers 500 INTERNAL (an overflow) instead of a capped page'],
  negativePageSize: ['ledger-list-users-negative-page-size-accepted', 'ledger.list-users.negative-page-size-rejected', 'a negative pageSize is treated as 0'],
  badPageToken: ['ledger-list-users-bad-page-token-accepted', 'ledger.list-users.invalid-page-token-rejected', 'an invalid pageToken is treated as the first page'],
  getUserBadShape: ['ledger-get-user-deactivated-as-string', 'ledger.get-user.response-schema', 'GET /v2/users/{user-id} answers isDeactivated as a string'],
  deleteBadShape: ['ledger-delete-user-response-array', 'ledger.delete-user.response-schema', 'DELETE /v2/users/{user-id} answers a JSON array'],
  listRightsBadShape: ['ledger-list-user-rights-unwrapped', 'ledger.list-user-rights.response-schema', 'GET /v2/users/{user-id}/rights answers rights without the kind wrapper'],
  listPageSizeIgnored: ['ledger-list-users-page-size-ignored', 'ledger.list-users.page-size-bounds-page', 'GET /v2/users ignores pageSize: every page holds up to the maximum'],
  listLastPageEmpty: ['ledger-list-users-last-page-empty', 'ledger.list-users.created-user-listed', 'GET /v2/users answers the last page of a walk (the one without a next page) with no users'],
  listTokenRestarts: ['ledger-list-users-page-token-restarts', 'ledger.list-users.created-user-listed', 'GET /v2/users takes every pageToken as the first page: a walk of small pages never ends'],
  createRightsUnlimited: ['ledger-create-user-rights-limit-unchecked', 'ledger.create-user.rights-limit', 'POST /v2/users takes any number of rights: maxRightsPerUser is applied to grants only'],
  createdDeactivated: ['ledger-users-created-deactivated-by-default', 'ledger.users.active-when-deactivation-unset', 'a user created without isDeactivated is created deactivated'],
  idpGrantsParticipantAdmin: ['ledger-rights-idp-admin-grants-participant-admin', 'ledger.rights.identity-provider-admin-grants-no-participant-admin', 'an IdentityProviderAdmin may grant ParticipantAdmin to a user of its identity provider'],
  kindlessServerError: ['ledger-grant-user-rights-kindless-right-server-error', 'ledger.rights.unknown-kind-rejected', 'a right without kind is answered 500 INTERNAL instead of 400'],
  revokeBadShape: ['ledger-revoke-user-rights-renamed-field', 'ledger.revoke-user-rights.response-schema', 'PATCH /v2/users/{user-id}/rights answers revokedRights instead of newlyRevokedRights'],
  nullKindServerError: ['ledger-grant-user-rights-null-kind-server-error', 'ledger.rights.unknown-kind-rejected', 'POST /v2/users/{user-id}/rights answers a right whose kind is null with 500 INTERNAL'],
  revokeReportsHeld: ['ledger-revoke-user-rights-reports-held', 'ledger.revoke-user-rights.response-schema', 'PATCH /v2/users/{user-id}/rights answers every right the user held as newlyRevokedRights, not only the revoked ones'],
} as const;

type Key = keyof typeof defs;
/** Fault names by key, for `ctx.faults.has(F.key)`. */
export const F = Object.fromEntries(Object.entries(defs).map(([k, v]) => [k, v[0]])) as { [K in Key]: (typeof defs)[K][0] };

registerFaults(Object.values(defs).map(([name, requirement, description]) => ({ name, requirement, description })));

/** Users seen deactivated, by the reactivation faults: a user read back or authenticated once deactivated. */
const everDeactivated = new WeakSet<UserRecord>();

/** Remembers the user as deactivated if it is now. */
export function noteDeactivated(u: UserRecord): void {
  if (u.isDeactivated) everDeactivated.add(u);
}

/** True once the user has been seen deactivated (for the reactivation faults). */
export const wasDeactivated = (u: UserRecord) => u.isDeactivated || everDeactivated.has(u);
