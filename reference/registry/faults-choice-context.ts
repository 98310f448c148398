/** Planted faults of the registry choice contexts (DisclosedContract fields, debug fields, meta, prefetchability). */
import { registerFaults } from '../faults.js';

export const CC_EMPTY_CREATED_EVENT_BLOB = 'registry-choice-context-empty-created-event-blob';
export const CC_CREATED_EVENT_BLOB_REENCODED = 'registry-choice-context-created-event-blob-reencoded';
export const CC_UNQUALIFIED_TEMPLATE_ID = 'registry-choice-context-unqualified-template-id';
export const CC_UNKNOWN_SYNCHRONIZER_ID = 'registry-choice-context-unknown-synchronizer-id';
export const CC_SYNCHRONIZER_OF_CREATION = 'registry-choice-context-synchronizer-of-creation';
export const CC_DEBUG_FIELDS_KEPT = 'registry-choice-context-debug-fields-kept';
export const CC_DEBUG_EXCLUDED_BY_DEFAULT = 'registry-choice-context-debug-excluded-by-default';
export const CC_DEBUG_CREATED_AT_NOT_DATE_TIME = 'registry-choice-context-debug-created-at-not-date-time';
export const CC_META_REQUIRED = 'registry-choice-context-meta-required';
export const CC_EXCLUDE_DEBUG_FIELDS_REQUIRED = 'registry-choice-context-exclude-debug-fields-required';
export const CC_EMPTY_LISTINGS = 'registry-empty-listings';
export const CC_DEPENDS_ON_CONTRACT_IDS = 'registry-choice-context-depends-on-contract-ids';
export const CC_EXCLUDED_DEBUG_FIELDS_NULL = 'registry-choice-context-excluded-debug-fields-null-not-omitted';
export const CC_SYNCHRONIZER_ID_NULL = 'registry-choice-context-synchronizer-id-null';

/** the synchronizer id the unknown-synchronizer fault reports: one the participant is not connected to */
export const STALE_SYNCHRONIZER_ID = 'retired-domain::1220ee00000000000000000000000000000000000000000000000000000000000001';

registerFaults([
  {
    name: CC_EMPTY_CREATED_EVENT_BLOB,
    requirement: 'registry.choice-context.disclosed-contract-fields',
    description: 'every disclosed contract carries an empty createdEventBlob',
  },
  {
    name: CC_CREATED_EVENT_BLOB_REENCODED,
    requirement: 'registry.choice-context.created-event-blob-unchanged',
    description: 'disclosed contracts carry the created event blob re-encoded as hex instead of the base64 blob the ledger reports (still a non-empty string)',
  },
  {
    name: CC_UNQUALIFIED_TEMPLATE_ID,
    requirement: 'registry.choice-context.template-id-qualified',
    description: 'disclosed contracts carry templateId as module:entity, without the package',
  },
  {
    name: CC_UNKNOWN_SYNCHRONIZER_ID,
    requirement: 'registry.choice-context.synchronizer-current',
    description: 'disclosed contracts name a synchronizer the participant is not connected to (a retired one) as their synchronizerId',
  },
  {
    name: CC_SYNCHRONIZER_OF_CREATION,
    requirement: 'registry.choice-context.synchronizer-current',
    description: 'disclosed contracts name the synchronizer they were created on (a connected one) as their synchronizerId, also after they were reassigned to another',
  },
  {
    name: CC_DEBUG_EXCLUDED_BY_DEFAULT,
    requirement: 'registry.choice-context.debug-default-included',
    description: 'a request without excludeDebugFields is answered as if it were true: no debug fields, which excludeDebugFields false does send',
  },
  {
    name: CC_DEBUG_FIELDS_KEPT,
    requirement: 'registry.choice-context.debug-fields-excluded',
    description: 'excludeDebugFields true is ignored: disclosed contracts keep debugPackageName, debugPayload and debugCreatedAt',
  },
  {
    name: CC_SYNCHRONIZER_ID_NULL,
    requirement: 'registry.choice-context.disclosed-contract-fields',
    description: 'every disclosed contract carries synchronizerId as null (a required field sent as null)',
  },
  {
    name: CC_EXCLUDED_DEBUG_FIELDS_NULL,
    requirement: 'registry.choice-context.debug-fields-absent',
    description:
      'the reference describes itself as a registry that leaves excluded debug fields out (its target configuration keeps the SHOULD enabled) but, like real registries, sends them as null with excludeDebugFields true',
  },
  {
    name: CC_DEBUG_CREATED_AT_NOT_DATE_TIME,
    requirement: 'registry.choice-context.debug-field-types',
    description: 'debugCreatedAt is milliseconds since the epoch as a string, not a date-time (the schema of the 200 body breaks with it)',
  },
  {
    name: CC_META_REQUIRED,
    requirement: 'registry.choice-context.meta-optional',
    description: 'withdraw choice-context requests of a known instruction without meta are answered 400',
  },
  {
    name: CC_EXCLUDE_DEBUG_FIELDS_REQUIRED,
    requirement: 'registry.choice-context.debug-default-included',
    description: 'choice-context requests without excludeDebugFields (default false) are answered 400 on all three endpoints, for both instruction kinds',
  },
  {
    name: CC_EMPTY_LISTINGS,
    requirement: 'registry.choice-context.disclosed-contract-fields',
    description: 'every registry listing is empty: the three choice-context endpoints answer 200 with disclosedContracts [] (and choiceContextData without values), although the registry\'s choice contexts disclose its rules and mining round',
  },
  {
    name: CC_DEPENDS_ON_CONTRACT_IDS,
    requirement: 'registry.choice-context.independent-of-contract-ids',
    description: 'the allocation factory puts the inputHoldingCids of the choice arguments into choiceContextData',
  },
]);

/** The SHOULD that excluded debug fields are left out, which the reference (like real registries) does not keep. */
export const DEBUG_FIELDS_ABSENT = 'registry.choice-context.debug-fields-absent';

/**
 * Requirements the reference's registry knowingly does not keep, for its generated target configuration
 * (`disabledRequirements`, as a vendor records a known SHOULD difference): with excludeDebugFields true it sends the
 * debug fields as null, as real registries do (FACTS.md), where SPEC.md's wording says omitted. The planted fault
 * CC_EXCLUDED_DEBUG_FIELDS_NULL keeps the SHOULD enabled, so that the self-test proves its check fails on the null form.
 */
export function registryKnownDifferences(o: { faults: readonly string[] }): string[] {
  return o.faults.includes(CC_EXCLUDED_DEBUG_FIELDS_NULL) ? [] : [DEBUG_FIELDS_ABSENT];
}
