/**
 * In-memory state of the participant beyond what World shares with the other interfaces: the update log, package
 * store and vetting topology, pending reassignments, traffic accounts, allocated parties, command deduplication.
 */
import type { ContractRecord, World } from '../world.js';
import { isoMicros } from '../data/seed.js';
import { variantResourceVersion } from '../variant.js';

/** A package known to (uploaded to) this participant: only these have a name and version in vetting listings. */
export interface PackageInfo {
  packageId: string;
  name: string;
  version: string;
}

export interface VettedEntry {
  packageId: string;
  validFromInclusive?: string;
  validUntilExclusive?: string;
}

export interface VettingRecord {
  synchronizerId: string;
  participantId: string;
  packages: Map<string, VettedEntry>;
  topologySerial: number;
}

/** Contract data as of an event (the live ContractRecord changes with reassignments). */
export type ContractSnapshot = Omit<ContractRecord, 'synchronizerId' | 'reassignmentCounter'>;

export interface CreateNode {
  kind: 'create';
  nodeId: number;
  contract: ContractSnapshot;
}
export interface ExerciseNode {
  kind: 'exercise';
  nodeId: number;
  contract: ContractSnapshot;
  choice: string;
  choiceArgument: unknown;
  actingParties: string[];
  consuming: boolean;
  exerciseResult: unknown;
  lastDescendantNodeId: number;
}
export type TxNode = CreateNode | ExerciseNode;

interface UpdateBase {
  offset: number;
  updateId: string;
  commandId: string;
  workflowId: string;
  /** parties the submission acted as: only their readers see the command id */
  submitters: string[];
  recordTime: string;
  synchronizerId: string;
  traceparent: string;
}
export interface TransactionUpdate extends UpdateBase {
  kind: 'transaction';
  effectiveAt: string;
  nodes: TxNode[];
}
interface ReassignmentEventBase {
  nodeId: number;
  reassignmentId: string;
  contract: ContractSnapshot;
  source: string;
  target: string;
  submitter: string;
  reassignmentCounter: number;
}
export interface UnassignEvent extends ReassignmentEventBase {
  kind: 'unassign';
  assignmentExclusivity: string;
}
export interface AssignEvent extends ReassignmentEventBase {
  kind: 'assign';
}
export interface ReassignmentUpdate extends UpdateBase {
  kind: 'reassignment';
  events: (UnassignEvent | AssignEvent)[];
}
export type LedgerUpdate = TransactionUpdate | ReassignmentUpdate;

/** An unassignment waiting for its assignment. */
export interface PendingReassignment {
  reassignmentId: string;
  contractId: string;
  source: string;
  target: string;
  reassignmentCounter: number;
  completed: boolean;
}

export interface PartyDetails {
  party: string;
  identityProviderId: string;
  annotations: Record<string, string>;
  resourceVersion: string;
}

export interface TrafficAccount {
  balance: bigint;
  /** deduplication ids already applied to this account */
  processed: Set<string>;
  /** balance before the last applied update, and that update's delta (planted faults use them) */
  previous?: bigint;
  lastDelta?: number | undefined;
}

export class LedgerState {
  private version = 1;
  private lastMicros = 0;
  private pinned = false;
  /** user ids in ascending order, for O(page) listing */
  readonly userIds: string[];
  readonly identityProviders = new Set(['', 'reference-idp']);
  readonly localPackages = new Map<string, PackageInfo>();
  /** page tokens already requested (only a planted fault looks at them: real tokens are stateless) */
  readonly usedPageTokens = new Set<string>();
  /** vetting records by `synchronizerId\u0000participantId` */
  readonly vetting = new Map<string, VettingRecord>();
  readonly updates: LedgerUpdate[] = [];
  /** pending unassignments by reassignmentId (one unassignment may move several contracts) */
  readonly reassignments = new Map<string, PendingReassignment[]>();
  readonly traffic = new Map<string, TrafficAccount>();
  readonly parties = new Map<string, PartyDetails>();
  /** change ids (user, parties, command id) of accepted submissions */
  readonly changeIds = new Set<string>();
  private sortedVettingKeys: string[] | undefined;
  private counter = 0;

  constructor(readonly world: World) {
    this.userIds = [...world.users.keys()].sort();
  }

  nextResourceVersion(): string {
    this.version += 1;
    return variantResourceVersion(this.world.variant, this.version);
  }
  /** a fresh number for ids that only need to be unique */
  nextSeq(): number {
    return ++this.counter;
  }

  /** Strictly increasing record times in microsecond ISO-8601, never behind the wall clock (unless pinned). */
  nextTime(): string {
    const micros = this.pinned ? this.lastMicros + 1_000_000 : Math.max(Date.now() * 1000, this.lastMicros + 1);
    this.lastMicros = micros;
    return microsIso(micros);
  }
  /** Pin the clock so that seeded updates get deterministic times, one second apart from `iso` on. */
  pinClock(iso: string): void {
    this.pinned = true;
    this.lastMicros = Date.parse(iso) * 1000 - 1_000_000;
  }
  unpinClock(): void {
    this.pinned = false;
  }

  addUserId(id: string): void {
    this.userIds.splice(lowerBound(this.userIds, id), 0, id);
  }
  removeUserId(id: string): void {
    const i = lowerBound(this.userIds, id);
    if (this.userIds[i] === id) this.userIds.splice(i, 1);
  }

  get ledgerEnd(): number {
    return this.updates.length === 0 ? 0 : this.offsetOf(this.updates.length);
  }
  /** The offset of the n-th update (1, 2, 3, ... as built; a variant's offsets may start high and leave gaps). */
  private offsetOf(n: number): number {
    const o = this.world.variant.offsets;
    return o.start + (n - 1) * o.step;
  }
  /** Append an update at the next offset. */
  append<U extends LedgerUpdate>(make: (offset: number) => U): U {
    const u = make(this.offsetOf(this.updates.length + 1));
    this.updates.push(u);
    return u;
  }
  update(offset: number): LedgerUpdate | undefined {
    const o = this.world.variant.offsets;
    if (!Number.isSafeInteger(offset) || offset < o.start || (offset - o.start) % o.step !== 0) return undefined;
    return this.updates[(offset - o.start) / o.step];
  }

  vettingRecord(synchronizerId: string, participantId: string): VettingRecord {
    const key = `${synchronizerId}\u0000${participantId}`;
    let r = this.vetting.get(key);
    if (r === undefined) {
      r = { synchronizerId, participantId, packages: new Map(), topologySerial: 0 };
      this.vetting.set(key, r);
      this.sortedVettingKeys = undefined;
    }
    return r;
  }
  /** Vetting records sorted by synchronizerId, then participantId. */
  vettingInOrder(): VettingRecord[] {
    this.sortedVettingKeys ??= [...this.vetting.keys()].sort(compareStrings);
    return this.sortedVettingKeys.map((k) => this.vetting.get(k) as VettingRecord);
  }
}

/** Code-point order, as the participant compares ids. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Index of the first element >= key in a sorted array. */
export function lowerBound(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** ISO-8601 with six fractional digits, as the ledger shows times (the same format as the scan data's) */
export const microsIso = isoMicros;
