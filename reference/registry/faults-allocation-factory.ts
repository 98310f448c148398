/** Planted faults of POST /registry/allocation-instruction/v2/allocation-factory. */
import { registerFaults } from '../faults.js';

export const AF_MISSING_FACTORY_ID = 'registry-allocation-factory-missing-factory-id';
export const AF_MISSING_CHOICE_ARGUMENTS_ACCEPTED = 'registry-allocation-factory-missing-choice-arguments-accepted';
export const AF_AT_MOST_20_LEGS = 'registry-allocation-factory-at-most-20-legs';
export const AF_ADVERTISED_LEGS_UNSUPPORTED = 'registry-allocation-factory-advertised-legs-unsupported';
export const AF_OVERSIZED_CONFLICT = 'registry-allocation-factory-oversized-allocation-conflict';
export const AF_SERVED_DURING_REASSIGNMENT = 'registry-allocation-factory-served-during-reassignment';
export const AF_NULL_BODY_SERVER_ERROR = 'registry-allocation-factory-null-body-server-error';
export const AF_INVALID_ALLOCATION_ACCEPTED = 'registry-allocation-factory-invalid-allocation-accepted';

/** transfer legs the newer registry releases must support (FACTS.md), which the advertised-legs fault claims */
export const NEWER_RELEASE_TRANSFER_LEGS = 100;

registerFaults([
  {
    name: AF_MISSING_FACTORY_ID,
    requirement: 'registry.get-allocation-factory.response-schema',
    description: 'the allocation factory answer leaves out factoryId',
  },
  {
    name: AF_MISSING_CHOICE_ARGUMENTS_ACCEPTED,
    requirement: 'registry.get-allocation-factory.missing-choice-arguments-rejected',
    description: 'a factory request without choiceArguments is answered 200 with the factory and its context',
  },
  {
    name: AF_AT_MOST_20_LEGS,
    requirement: 'registry.get-allocation-factory.at-least-25-transfer-legs',
    description: 'the allocation factory answers 400 for allocations of more than 20 transfer legs',
  },
  {
    name: AF_ADVERTISED_LEGS_UNSUPPORTED,
    requirement: 'registry.get-allocation-factory.configured-transfer-legs',
    description: `the reference describes itself as a newer registry (fixture transferLegs ${NEWER_RELEASE_TRANSFER_LEGS}) but its factory still supports only its configured number of legs (25 by default)`,
  },
  {
    name: AF_OVERSIZED_CONFLICT,
    requirement: 'registry.get-allocation-factory.may-limit-allocation-size',
    description: 'an allocation with more transfer legs than the registry supports is answered 409 (a reassignment conflict) instead of 400',
  },
  {
    name: AF_NULL_BODY_SERVER_ERROR,
    requirement: 'registry.get-allocation-factory.missing-choice-arguments-rejected',
    description: 'a factory request whose body is the JSON null is answered 500 (the handler reads a field of null) instead of a 4xx',
  },
  {
    name: AF_INVALID_ALLOCATION_ACCEPTED,
    requirement: 'registry.get-allocation-factory.invalid-allocation-rejected',
    description: 'choiceArguments without an allocation, or with an allocation whose transferLegs is missing or not a map, are read as an allocation of no legs and answered 200 with the factory and its context',
  },  {
    name: AF_SERVED_DURING_REASSIGNMENT,
    requirement: 'registry.get-allocation-factory.reassignment-conflict',
    description: 'the allocation factory answers 200 while a contract its choice context discloses (the factory) is being reassigned',
  },
]);

/** The transfer-leg count the reference advertises to the suite (registry fixture transferLegs). */
export function advertisedTransferLegs(o: { transferLegs: number; faults: readonly string[] }): number {
  return o.faults.includes(AF_ADVERTISED_LEGS_UNSUPPORTED) ? Math.max(o.transferLegs, NEWER_RELEASE_TRANSFER_LEGS) : o.transferLegs;
}
