/**
 * Deterministic fixture data of the ledger: packages and their vetting on two synchronizers by two participants,
 * the participant's parties, and a few transactions at offsets 1..6.
 */
import { sha256hex } from './ids.js';
import { addParty } from './parties.js';
import { storePackage } from './packages.js';
import type { LedgerState, VettedEntry } from './state.js';
import { commitTransaction, type Submission } from './transactions.js';

/** A second participant on both synchronizers: its vetting is visible, its own uploads are not (no names). */
export const OTHER_PARTICIPANT_ID = 'PAR::participant2::1220cc00000000000000000000000000000000000000000000000000000000000002';

/** Packages uploaded to this participant: [name, version]. */
const LOCAL_PACKAGES: [string, string][] = [
  ['reference-iou', '1.0.0'],
  ['reference-iou', '1.1.0'],
  ['daml-stdlib', '2.10.0'],
  ['ghc-stdlib', '2.10.0'],
  ['splice-amulet', '0.1.0'],
  ['splice-amulet', '0.1.1'],
  ['splice-amulet', '0.1.2'],
  ['splice-wallet', '0.1.0'],
  ['splice-wallet', '0.1.1'],
  ['splice-wallet-payments', '0.1.0'],
  ['splice-util', '0.1.0'],
  ['splice-dso-governance', '0.1.0'],
  ['splice-validator-lifecycle', '0.1.0'],
  ['splice-api-featured-app-v1', '1.0.0'],
  ['splice-api-token-holding-v1', '1.0.0'],
  ['splice-api-token-transfer-instruction-v1', '1.0.0'],
  ['splice-api-token-allocation-v1', '1.0.0'],
  ['splice-api-token-allocation-instruction-v1', '1.0.0'],
  ['splice-token-standard-test', '1.0.0'],
];
const FOREIGN_PACKAGE_COUNT = 8;

export const packageIdOf = (name: string, version: string) => sha256hex(`package:${name}:${version}`);
export const foreignPackageId = (n: number) => sha256hex(`foreign-package:${n}`);
export const IOU_TEMPLATE = '#reference-iou:Iou:Iou';

function seedPackages(state: LedgerState): void {
  const [sync0, sync1] = state.world.synchronizers as [string, string];
  const me = state.world.participantId;
  for (const [name, version] of LOCAL_PACKAGES) storePackage(state, { packageId: packageIdOf(name, version), name, version }, []);
  const local = (name: string, version: string) => packageIdOf(name, version);
  const foreign = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => foreignPackageId(from + i));
  const vet = (sync: string, participant: string, serial: number, ids: string[], extra: (id: string) => Partial<VettedEntry> = () => ({})) => {
    const r = state.vettingRecord(sync, participant);
    for (const id of ids) r.packages.set(id, { packageId: id, ...extra(id) });
    r.topologySerial = serial;
  };
  const iou1 = local('reference-iou', '1.0.0');
  // Bounds on a few packages, so that both optional fields occur.
  vet(sync0, me, 3, LOCAL_PACKAGES.map(([n, v]) => local(n, v)), (id) =>
    id === iou1 ? { validFromInclusive: '2025-01-01T00:00:00Z', validUntilExclusive: '2030-01-01T00:00:00Z' } : id.startsWith('0') ? { validFromInclusive: '2025-01-01T00:00:00Z' } : {},
  );
  vet(sync1, me, 1, [iou1, local('reference-iou', '1.1.0'), local('daml-stdlib', '2.10.0'), local('ghc-stdlib', '2.10.0'), local('splice-amulet', '0.1.2')]);
  vet(sync0, OTHER_PARTICIPANT_ID, 2, [...foreign(0, 6), local('reference-iou', '1.1.0'), local('splice-amulet', '0.1.2'), local('daml-stdlib', '2.10.0')]);
  vet(sync1, OTHER_PARTICIPANT_ID, 1, foreign(4, FOREIGN_PACKAGE_COUNT));
}

function seedTransactions(state: LedgerState): void {
  const party = (name: string) => state.world.parties.get(name) as string;
  const [alice, bob, charlie] = [party('alice'), party('bob'), party('charlie')];
  const [sync0, sync1] = state.world.synchronizers as [string, string];
  const iou = (issuer: string, owner: string, amount: string, currency: string) => ({ issuer, owner, amount, currency, observers: [] });
  const submit = (n: number, actAs: string, commands: Submission['commands'], synchronizerId = '') =>
    commitTransaction(state, { commands, commandId: `seed-${n}`, workflowId: 'seed', userId: 'alice_user', actAs: [actAs], readAs: [], synchronizerId });
  const create = (args: Record<string, unknown>) => ({ kind: 'create' as const, templateId: IOU_TEMPLATE, createArguments: args });

  state.pinClock('2025-01-01T00:00:00Z');
  submit(1, alice, [create(iou(alice, alice, '100.0000000000', 'USD'))], sync0);
  submit(2, bob, [create(iou(bob, alice, '50.0000000000', 'EUR'))], sync0);
  const t3 = submit(3, alice, [create(iou(alice, bob, '10.0000000000', 'CHF'))], sync0);
  const archivedId = (t3.nodes[0] as { contract: { contractId: string } }).contract.contractId;
  submit(4, alice, [{ kind: 'exercise', templateId: IOU_TEMPLATE, contractId: archivedId, choice: 'Archive', choiceArgument: {} }]);
  submit(5, alice, [create(iou(alice, charlie, '7.0000000000', 'USD'))], sync1);
  // A transient contract: visible with the ledger-effects shape only.
  submit(6, alice, [{ kind: 'createAndExercise', templateId: IOU_TEMPLATE, createArguments: iou(alice, alice, '1.0000000000', 'USD'), choice: 'Archive', choiceArgument: {} }], sync0);
  state.unpinClock();
}

/** A user who can act as the DSO party (the registry admin, signatory of the registry's contracts), so a check can reassign them. */
export const DSO_USER = 'dso_user';

function seedDsoUser(state: LedgerState): void {
  const dso = state.world.parties.get('dso') as string;
  if (state.world.users.has(DSO_USER)) return;
  state.world.users.set(DSO_USER, {
    id: DSO_USER,
    primaryParty: dso,
    isDeactivated: false,
    identityProviderId: '',
    primaryPartyAuthentication: false,
    annotations: {},
    resourceVersion: state.nextResourceVersion(),
    rights: [
      { kind: 'CanActAs', party: dso },
      { kind: 'CanReadAs', party: dso },
    ],
  });
  state.addUserId(DSO_USER);
}

export function seedLedger(state: LedgerState): void {
  for (const id of state.world.parties.values()) if (id.endsWith(`::${state.world.namespace}`)) addParty(state, id);
  seedDsoUser(state);
  seedPackages(state);
  seedTransactions(state);
}
