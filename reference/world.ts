/**
 * State shared between the interfaces of the reference server. The ledger owns contracts and their synchronizer
 * assignment; the registry reads it (409 while a contract is being reassigned); scan and the validator share the
 * ANS entries and parties. Ledger users live here too, so the validator can resolve a token's user to its party.
 */
import { DEFAULT_NAMESPACE, DEFAULT_VARIANT, variantResourceVersion, type Variant } from './variant.js';
export interface ContractRecord {
  contractId: string;
  templateId: string;
  packageName: string;
  createArgument: Record<string, unknown>;
  signatories: string[];
  observers: string[];
  createdAt: string;
  createdEventBlob: string;
  /** synchronizer the contract is assigned to; null while unassigned (a reassignment is in flight) */
  synchronizerId: string | null;
  /** 0 at creation, +1 per unassign */
  reassignmentCounter: number;
}

/** A user right; `party` only for the party-scoped kinds. */
export type Right =
  | { kind: 'CanActAs' | 'CanExecuteAs' | 'CanReadAs'; party: string }
  | { kind: 'CanExecuteAsAnyParty' | 'CanReadAsAnyParty' | 'IdentityProviderAdmin' | 'ParticipantAdmin' };

export interface UserRecord {
  id: string;
  /** '' when unset */
  primaryParty: string;
  isDeactivated: boolean;
  /** '' is the default identity provider */
  identityProviderId: string;
  primaryPartyAuthentication: boolean;
  annotations: Record<string, string>;
  resourceVersion: string;
  rights: Right[];
}

export interface World {
  /** the choices the specification leaves open, as this server makes them (reference/variant.ts) */
  variant: Variant;
  /** namespace of the participant: parties allocated on it end in `::` + this */
  namespace: string;
  participantId: string;
  synchronizers: string[];
  contracts: Map<string, ContractRecord>;
  /** party id by name for the seeded parties (alice, bob, dso, ...) */
  parties: Map<string, string>;
  /** ledger API users by id */
  users: Map<string, UserRecord>;
}

/** Namespace of the default reference's participant (a variant has its own: World.namespace). */
export const PARTICIPANT_NAMESPACE = DEFAULT_NAMESPACE;

export function createWorld(variant: Variant = DEFAULT_VARIANT): World {
  const namespace = variant.ids.namespace;
  const party = (hint: string) => `${hint}::${namespace}`;
  const parties = new Map<string, string>([
    ['alice', party('alice')],
    ['bob', party('bob')],
    ['charlie', party('charlie')],
    ['validator', party('validator_operator')],
    ['dso', variant.seed === undefined ? 'DSO::1220dd00000000000000000000000000000000000000000000000000000000000001' : `DSO::1220${namespace.slice(4, 60)}dd${namespace.slice(62)}`],
  ]);
  const user = (id: string, rights: Right[], primaryParty = ''): UserRecord => ({
    id,
    primaryParty,
    isDeactivated: false,
    identityProviderId: '',
    primaryPartyAuthentication: false,
    annotations: {},
    resourceVersion: variantResourceVersion(variant, 1),
    rights,
  });
  const actor = (p: string): Right[] => [
    { kind: 'CanActAs', party: p },
    { kind: 'CanReadAs', party: p },
  ];
  const alice = parties.get('alice') as string;
  const bob = parties.get('bob') as string;
  const validator = parties.get('validator') as string;
  const users = new Map<string, UserRecord>(
    [
      // ids as in reference/index.ts (REFERENCE_ADMIN_USER, REFERENCE_VALIDATOR_USER); not imported to avoid a cycle
      user('participant_admin', [{ kind: 'ParticipantAdmin' }]),
      user('validator_user', actor(validator), validator),
      user('alice_user', actor(alice), alice),
      user('bob_user', actor(bob), bob),
      // users the validator has not onboarded: one without a primary party, and one deactivated (the validator's run
      // sends their tokens to GET /v0/entry/all, which must list nothing for them)
      user('unonboarded_user', actor(parties.get('charlie') as string)),
      { ...user('deactivated_user', actor(bob), bob), isDeactivated: true },
    ].map((u) => [u.id, u]),
  );
  return {
    variant,
    namespace,
    participantId: `PAR::participant1::${namespace}`,
    synchronizers: [...variant.ids.synchronizers],
    contracts: new Map(),
    parties,
    users,
  };
}
