/**
 * State shared between the interfaces of the reference server. The ledger owns contracts and their synchronizer
 * assignment; the registry reads it (409 while a contract is being reassigned); scan and the validator share the
 * ANS entries and parties.
 */
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

export interface World {
  participantId: string;
  synchronizers: string[];
  contracts: Map<string, ContractRecord>;
  /** party id by name for the seeded parties (alice, bob, dso, ...) */
  parties: Map<string, string>;
}

export function createWorld(): World {
  return {
    participantId: 'PAR::participant1::1220aa00000000000000000000000000000000000000000000000000000000000001',
    synchronizers: [
      'global-domain::1220bb00000000000000000000000000000000000000000000000000000000000001',
      'private-domain::1220bb00000000000000000000000000000000000000000000000000000000000002',
    ],
    contracts: new Map(),
    parties: new Map(),
  };
}
