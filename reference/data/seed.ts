/**
 * Deterministic building blocks for the seeded data of the scan, validator and registry parts of the reference
 * server: hashes, ids, timestamps and party ids. Nothing here depends on the clock or on Math.random (the seeded data's
 * times are relative to the server's start, which clock.ts keeps).
 */
import { createHash } from 'node:crypto';
import type { World } from '../world.js';

/**
 * Results of the pure helpers below, kept: the seeded scan and registry data are rendered again for every page a
 * check reads, and their hashes and timestamps were a quarter of the reference's own CPU time in the default run.
 * Each map is emptied when it reaches its bound.
 */
function memo<K, V>(bound: number, f: (k: K) => V): (k: K) => V {
  const kept = new Map<K, V>();
  return (k) => {
    let v = kept.get(k);
    if (v === undefined) {
      if (kept.size >= bound) kept.clear();
      v = f(k);
      kept.set(k, v);
    }
    return v;
  };
}

const sha256Hex = memo(20_000, (seed: string) => createHash('sha256').update(seed).digest('hex'));

/** hex sha-256 of a seed string (or of bytes) */
export function hashHex(seed: string | Buffer): string {
  return typeof seed === 'string' ? sha256Hex(seed) : createHash('sha256').update(seed).digest('hex');
}

/** a Canton-style contract id ("00" + 64 hex digits + a suffix), fixed by the seed */
export function contractId(seed: string): string {
  return `00${hashHex(`cid:${seed}`)}ca111220${hashHex(`cid-suffix:${seed}`).slice(0, 56)}`;
}

/** a Daml package id (64 hex digits), fixed by the seed */
export function packageId(seed: string): string {
  return hashHex(`pkg:${seed}`);
}

/** an update id as scan shows it ("1220" + 64 hex digits) */
export function updateId(seed: string): string {
  return `1220${hashHex(`update:${seed}`)}`;
}

/** a created-event blob: base64 of a deterministic byte string */
export function createdEventBlob(seed: string, payload: unknown): string {
  const body = JSON.stringify({ seed, payload });
  return Buffer.from(`\x0a\x20${hashHex(`blob:${seed}`)}${body}`, 'utf8').toString('base64');
}

/** ISO-8601 with exactly six fractional digits (microseconds) and a Z; micros counted from the Unix epoch */
export function isoMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const rest = micros - ms * 1000;
  const iso = new Date(ms).toISOString(); // 2026-01-01T00:00:00.000Z
  return `${iso.slice(0, 23)}${String(rest).padStart(3, '0')}Z`;
}

const toIso = memo(20_000, (ms: number) => new Date(ms).toISOString());

/** ISO-8601 with millisecond precision */
export function isoMillis(ms: number): string {
  return toIso(ms);
}

/**
 * Microseconds since the epoch of an ISO-8601 date-time (fraction of up to 9 digits, Z or an offset), or undefined
 * when the string is not one.
 */
export function parseIsoMicros(s: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i.exec(s);
  if (m === null) return undefined;
  const base = Date.parse(`${m[1]}T${m[2]}${m[4]!.toUpperCase()}`);
  if (!Number.isFinite(base)) return undefined;
  const frac = (m[3] ?? '').padEnd(9, '0');
  return base * 1000 + Math.floor(Number(frac) / 1000);
}

/** a party id "<hint>::1220<64 hex>" */
export function partyIdFor(hint: string, salt = ''): string {
  return `${hint}::1220${hashHex(`party:${salt}${hint}`)}`;
}

/** The party of a seeded name: the world's when the ledger seeded one, else a deterministic one recorded there. */
export function party(world: World, name: string): string {
  let p = world.parties.get(name);
  if (p === undefined) {
    p = partyIdFor(name, world.variant.ids.partySalt);
    world.parties.set(name, p);
  }
  return p;
}

/** Numeric comparison of dotted versions ('0.6.7' < '0.6.8' < '0.10.0'); pre-release suffixes are ignored. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => parseInt(x, 10));
  const pb = b.split(/[.-]/).map((x) => parseInt(x, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length, 3); i++) {
    const x = Number.isFinite(pa[i]) ? pa[i]! : 0;
    const y = Number.isFinite(pb[i]) ? pb[i]! : 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** a Daml decimal as text with ten fractional digits */
export function decimal(n: number): string {
  return n.toFixed(10);
}
