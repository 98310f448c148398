/**
 * What the reference's modules share: the server's options (as given and as resolved), the context every route module
 * receives, and the users and secret the reference knows. Kept apart from index.ts, which assembles the server from
 * the route modules, so that those modules need not import the index that imports them.
 */
import { FAULTS, type FaultSet } from './faults.js';
import { chooseVariant, DEFAULT_VARIANT } from './variant.js';
import type { World } from './world.js';
import type { LedgerVersion } from '../harness/judging/versions.js';

export interface ReferenceOptions {
  /** loopback address to listen on; default 127.0.0.1 */
  host?: string;
  /** 0 picks a free port (default) */
  port?: number;
  /** names of planted faults to switch on (see reference/faults.ts) */
  faults?: string[];
  /** ledger API version the server claims: '3.4', '3.5' or '3.6' (default '3.5'); 3.6 no longer serves transaction-by-offset and GET /v2/package-vetting */
  ledgerVersion?: LedgerVersion;
  /** traffic enforcement on the participant (POST /v2/traffic/accounts exists only with it and 3.5); default true */
  trafficEnforcement?: boolean;
  /** scan and validator version (default '0.8.0'); before '0.6.8' POST /v0/activities still answers */
  scanVersion?: string;
  /** registry version (default '0.6.11'); before '0.6.11' the allocation-instruction endpoints are not served */
  registryVersion?: string;
  /** seeded data set size */
  size?: { ansEntries?: number; validatorLicenses?: number };
  /** transfer legs the allocation factory supports (default 25) */
  transferLegs?: number;
  /** HS256 secret the ledger and validator accept tokens signed with */
  jwtSecret?: string;
  /**
   * a reference variant: from this seed the server makes every choice SPEC.md and FACTS.md leave open
   * (reference/variant.ts); undefined for the default reference
   */
  variant?: number;
}

export interface ResolvedReferenceOptions {
  host: string;
  port: number;
  faults: string[];
  ledgerVersion: LedgerVersion;
  trafficEnforcement: boolean;
  scanVersion: string;
  registryVersion: string;
  size: { ansEntries: number; validatorLicenses: number };
  transferLegs: number;
  jwtSecret: string;
  variant: number | undefined;
}

/** What every route module receives. */
export interface ReferenceContext {
  options: ResolvedReferenceOptions;
  faults: FaultSet;
  world: World;
}

export const REFERENCE_ADMIN_USER = 'participant_admin';
export const REFERENCE_VALIDATOR_USER = 'validator_user';
export const DEFAULT_REFERENCE_SECRET = 'reference-server-hs256-secret';

export function resolveReferenceOptions(o: ReferenceOptions = {}): ResolvedReferenceOptions {
  const faults = o.faults ?? [];
  const unknown = faults.filter((f) => !FAULTS.some((d) => d.name === f));
  if (unknown.length > 0) throw new Error(`unknown fault(s): ${unknown.join(', ')}`);
  if (o.variant !== undefined && !(Number.isSafeInteger(o.variant) && o.variant >= 0)) throw new Error(`reference variant: ${o.variant} is not a non-negative integer`);
  // a variant seeds data sets of its own size, unless the options name one
  const size = o.variant !== undefined ? chooseVariant(o.variant).size : DEFAULT_VARIANT.size;
  return {
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 0,
    faults,
    ledgerVersion: o.ledgerVersion ?? '3.5',
    trafficEnforcement: o.trafficEnforcement ?? true,
    scanVersion: o.scanVersion ?? '0.8.0',
    registryVersion: o.registryVersion ?? '0.6.11',
    size: { ansEntries: o.size?.ansEntries ?? size.ansEntries, validatorLicenses: o.size?.validatorLicenses ?? size.validatorLicenses },
    transferLegs: o.transferLegs ?? 25,
    jwtSecret: o.jwtSecret ?? DEFAULT_REFERENCE_SECRET,
    variant: o.variant,
  };
}
