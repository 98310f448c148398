/**
 * Planted faults: each breaks exactly one catalogue requirement, so the self-test can prove the check for that
 * requirement fails. A fault is switched on per server instance (`startReference({ faults: [...] })`).
 */
import type { LedgerVersion } from '../harness/judging/versions.js';
export interface FaultDefinition {
  /** kebab-case name, used on the command line (`--fault NAME`) */
  name: string;
  /** the catalogue requirement id this fault breaks */
  requirement: string;
  /** what the server does wrong when the fault is on */
  description: string;
  /**
   * the verdict its checks give: 'fail' (default) breaks the requirement; 'unsupported' switches off an optional
   * behaviour, so the requirement's checks report unsupported instead (e.g. a registry without an instruction kind)
   */
  verdict?: 'fail' | 'unsupported';
  /**
   * reference settings the self-test runs this fault under, when the requirement's version range and features do not
   * imply them (e.g. `{ trafficEnforcement: false }` for a rule about a participant without enforcement)
   */
  reference?: { ledgerVersion?: LedgerVersion; scanVersion?: string; registryVersion?: string; trafficEnforcement?: boolean; transferLegs?: number };
}

/** The registry of every planted fault. Each API module adds its own list here. */
export const FAULTS: FaultDefinition[] = [];

export function registerFaults(defs: FaultDefinition[]): void {
  for (const d of defs) {
    if (FAULTS.some((f) => f.name === d.name)) throw new Error(`duplicate fault name ${d.name}`);
    FAULTS.push(d);
  }
}

export class FaultSet {
  private readonly on: ReadonlySet<string>;
  constructor(names: Iterable<string> = []) {
    this.on = new Set(names);
  }
  /** true when the named fault is switched on for this server */
  has(name: string): boolean {
    return this.on.has(name);
  }
  names(): string[] {
    return [...this.on];
  }
}
