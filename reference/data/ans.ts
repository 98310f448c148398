/**
 * The seeded ANS (name service) entries, shared by scan's /v0/ans-entries, the validator's scan proxy and the
 * validator's /v0/entry/all. Entries are kept as compact columns and rendered on demand so that 100 000 of them are
 * cheap; a name-sorted index answers a prefix query without scanning the whole set.
 *
 * Layout (i = creation order, 0-based, N = size):
 * - i < 4 (when N allows): owned by the validator operator party; entry 2 is expired.
 * - otherwise owned by one of OWNER_STEMS in turn; entries with i % 7 === 5 are expired.
 * - name `<stem>-<i zero-padded to at least 3 digits>.unverified.cns`, e.g. alice-042.unverified.cns.
 * - times relative to the server's start (clock.ts; D is midnight UTC of the start's day): created at D - 100 days
 *   plus i minutes; an active entry expires at D + 90 days plus i minutes, an expired one 30 days after its creation,
 *   before D whatever the size (both judged against the real clock at request time).
 * DSO-provided entries (contract_id and expires_at null, as Splice sends them) follow when a page is not full.
 */
import type { World } from '../world.js';
import { DAY_MS, dataClock } from './clock.js';
import { contractId, decimal, isoMillis, party } from './seed.js';

export const OWNER_STEMS = ['alice', 'bob', 'carol', 'dave', 'eve', 'frank', 'grace', 'heidi', 'ivan', 'judy'] as const;
/** the world party name of the validator operator (the validator user's party) */
export const VALIDATOR_PARTY_NAME = 'validator';
/** the entries owned by the validator party: creation indices (2 is expired) */
export const VALIDATOR_ENTRY_INDICES = [0, 1, 2, 3] as const;
export const VALIDATOR_EXPIRED_INDEX = 2;

const MINUTE_MS = 60_000;
/** creation of entry 0, before the start's day */
const CREATED_BEFORE_MS = 100 * DAY_MS;
/** expiry of an active entry after the start's day (plus its index in minutes) */
const ACTIVE_FOR_MS = 90 * DAY_MS;
/** term of an expired entry: 100 000 entries are created over 70 days, so every expired one expired before the day */
const EXPIRED_TERM_MS = 30 * DAY_MS;

export interface AnsEntry {
  /** null for entries the DSO provides (Splice writes the unset field as null) */
  contract_id?: string | null;
  user: string;
  name: string;
  url: string;
  description: string;
  expires_at: string | null;
}

/** What the validator's /v0/entry/all shows for an entry (AnsEntryResponse). */
export interface AnsEntryResponse {
  contractId: string;
  name: string;
  amount: string;
  unit: string;
  expiresAt: string;
  paymentInterval: string;
  paymentDuration: string;
}

export function isExpiredIndex(i: number): boolean {
  return i === VALIDATOR_EXPIRED_INDEX || (i >= VALIDATOR_ENTRY_INDICES.length && i % 7 === 5);
}

export class AnsStore {
  readonly size: number;
  private readonly names: string[];
  private readonly owners: Uint8Array; // index into ownerParties
  private readonly ownerParties: string[];
  private readonly expiresMs: Float64Array;
  /** creation time of entry 0 */
  private readonly createdMs0: number;
  /** creation indices sorted by name (code-unit order, so a prefix is a contiguous range) */
  private readonly byName: Int32Array;
  readonly dsoEntries: AnsEntry[];
  private readonly validatorParty: string;

  constructor(world: World, size: number) {
    this.size = size;
    const width = Math.max(3, String(Math.max(0, size - 1)).length);
    this.validatorParty = party(world, VALIDATOR_PARTY_NAME);
    this.ownerParties = [this.validatorParty, ...OWNER_STEMS.map((s) => party(world, s))];
    const stems = [VALIDATOR_PARTY_NAME, ...OWNER_STEMS];
    this.names = new Array<string>(size);
    this.owners = new Uint8Array(size);
    this.expiresMs = new Float64Array(size);
    const { dayMs } = dataClock(world);
    this.createdMs0 = dayMs - CREATED_BEFORE_MS;
    const nv = VALIDATOR_ENTRY_INDICES.length;
    for (let i = 0; i < size; i++) {
      const o = i < nv ? 0 : 1 + ((i - nv) % OWNER_STEMS.length);
      this.owners[i] = o;
      this.names[i] = `${stems[o]}-${String(i).padStart(width, '0')}.unverified.cns`;
      this.expiresMs[i] = isExpiredIndex(i) ? this.createdMs0 + i * MINUTE_MS + EXPIRED_TERM_MS : dayMs + ACTIVE_FOR_MS + i * MINUTE_MS;
    }
    const order = Array.from({ length: size }, (_, i) => i);
    const names = this.names;
    order.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
    this.byName = Int32Array.from(order);
    const dso = party(world, 'dso');
    this.dsoEntries = [
      { contract_id: null, user: dso, name: 'dso.cns', url: '', description: '', expires_at: null },
      { contract_id: null, user: party(world, 'sv-1'), name: 'sv-1.sv.cns', url: '', description: '', expires_at: null },
      { contract_id: null, user: party(world, 'sv-2'), name: 'sv-2.sv.cns', url: '', description: '', expires_at: null },
    ];
  }

  name(i: number): string {
    return this.names[i]!;
  }

  owner(i: number): string {
    return this.ownerParties[this.owners[i]!]!;
  }

  isActive(i: number, nowMs: number): boolean {
    return this.expiresMs[i]! > nowMs;
  }

  contractId(i: number): string {
    return contractId(`ans-entry:${i}`);
  }

  createdAt(i: number): string {
    return isoMillis(this.createdMs0 + i * MINUTE_MS);
  }

  expiresAt(i: number): string {
    return isoMillis(this.expiresMs[i]!);
  }

  entry(i: number): AnsEntry {
    const stem = this.names[i]!.split('-')[0]!;
    return {
      contract_id: this.contractId(i),
      user: this.owner(i),
      name: this.names[i]!,
      url: i % 2 === 0 ? '' : `https://${stem}.example.com/${i}`,
      description: i % 3 === 0 ? '' : `ANS entry ${i} of ${stem}`,
      expires_at: this.expiresAt(i),
    };
  }

  entryResponse(i: number): AnsEntryResponse {
    return {
      contractId: this.contractId(i),
      name: this.names[i]!,
      amount: decimal(1),
      unit: 'USDUnit',
      expiresAt: this.expiresAt(i),
      // 90 days and 1 day, in microseconds (RelTime as the wallet renders it)
      paymentInterval: String(90 * 24 * 3600 * 1_000_000),
      paymentDuration: String(24 * 3600 * 1_000_000),
    };
  }

  /** first position in byName whose name is >= prefix */
  private lowerBound(prefix: string): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.names[this.byName[mid]!]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** first position at or after `from` whose name does not start with prefix */
  private prefixEnd(prefix: string, from: number): number {
    let lo = from;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.names[this.byName[mid]!]!.startsWith(prefix)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Non-expired entries whose name starts with prefix, oldest first, at most pageSize; DSO-provided entries matching
   * the prefix are appended when the page is not full.
   */
  list(prefix: string, pageSize: number, nowMs: number): AnsEntry[] {
    const picked: number[] = [];
    if (prefix === '') {
      for (let i = 0; i < this.size && picked.length < pageSize; i++) if (this.isActive(i, nowMs)) picked.push(i);
    } else {
      const lo = this.lowerBound(prefix);
      const hi = this.prefixEnd(prefix, lo);
      const range = hi - lo;
      // Either collect the matching range and sort it by creation, or walk creation order until the page is full
      // (about pageSize * size / range steps); take the cheaper.
      const walkCost = range === 0 ? 0 : (pageSize * this.size) / range;
      if (range <= walkCost) {
        const idx: number[] = [];
        for (let k = lo; k < hi; k++) {
          const i = this.byName[k]!;
          if (this.isActive(i, nowMs)) idx.push(i);
        }
        idx.sort((a, b) => a - b);
        picked.push(...idx.slice(0, pageSize));
      } else {
        for (let i = 0; i < this.size && picked.length < pageSize; i++) {
          if (this.isActive(i, nowMs) && this.names[i]!.startsWith(prefix)) picked.push(i);
        }
      }
    }
    const out = picked.map((i) => this.entry(i));
    for (const d of this.dsoEntries) {
      if (out.length >= pageSize) break;
      if (d.name.startsWith(prefix)) out.push({ ...d });
    }
    return out;
  }

  /** creation indices of the entries owned by a party (active and expired), oldest first */
  ownedBy(ownerParty: string): number[] {
    const o = this.ownerParties.indexOf(ownerParty);
    if (o < 0) return [];
    if (o === 0) return VALIDATOR_ENTRY_INDICES.filter((i) => i < this.size);
    const out: number[] = [];
    for (let i = 0; i < this.size; i++) if (this.owners[i] === o) out.push(i);
    return out;
  }

  get validatorPartyId(): string {
    return this.validatorParty;
  }
}
