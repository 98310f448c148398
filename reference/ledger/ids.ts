/** Syntax of the identifiers the ledger validates, and the deterministic hashes it derives ids from. */
import { hashHex } from '../data/seed.js';

/** 1 to 128 characters of ASCII alphanumerics and @^$.!`-#+'~_|:() (FACTS.md, users). */
const USER_ID = /^[a-zA-Z0-9@^$.!`\-#+'~_|:()]{1,128}$/;
export const isUserId = (s: string) => USER_ID.test(s);

/** A ledger party string (Daml-LF party id syntax). */
const PARTY = /^[a-zA-Z0-9:\-_ ]{1,255}$/;
export const isParty = (s: string) => PARTY.test(s);

/** A party id of the topology form `hint::namespace`, as traffic accounts use. */
export const isPartyId = (s: string) => isUid(s);

/** A unique identifier `identifier::namespace-fingerprint` (synchronizer, participant UID). */
const UID = /^[a-zA-Z0-9_.\-]{1,185}::[a-zA-Z0-9]{1,185}$/;
export const isUid = (s: string) => UID.test(s);

/** A participant id: `PAR::` + UID. */
export const isParticipantId = (s: string) => s.startsWith('PAR::') && isUid(s.slice(5));

/** A party hint: what may precede `::` in a party id. */
const HINT = /^[a-zA-Z0-9_.\-]{1,185}$/;
export const isPartyHint = (s: string) => HINT.test(s);

/** A Daml-LF package id (hex digest) or package name. */
const PACKAGE_ID = /^[a-zA-Z0-9\-_ ]{1,64}$/;
export const isPackageId = (s: string) => PACKAGE_ID.test(s);

export const sha256hex = hashHex;
/** A Canton fingerprint: multihash prefix 1220 (sha-256, 32 bytes) and the hex digest. */
export const fingerprint = (data: string | Buffer) => `1220${sha256hex(data)}`;

/**
 * Daml package versions compare as lists of numbers, a shorter list sorting first when it is a prefix of the other
 * ('1.0' < '1.0.0' < '1.1'). Product versions (a scan's '0.6.8') compare differently: data/seed.ts compareVersions.
 */
export function comparePackageVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? -1) - (y[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}
