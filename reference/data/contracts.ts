/**
 * Seeded scan-side contracts: validator licenses (rendered on demand from their sequence number, so 10 000 cost
 * nothing until read), open and issuing mining rounds, and featured app rights. Their times are relative to the
 * server's start (clock.ts): the rounds open at it, the licences were created and last active before it.
 */
import type { World } from '../world.js';
import { DAY_MS, ROUND_TICK_MS, type DataClock } from './clock.js';
import { contractId, createdEventBlob, decimal, isoMillis, party, partyIdFor } from './seed.js';
import { TEMPLATES } from './templates.js';

/** Contract as scan and the scan proxy show it */
export interface ScanContract {
  template_id: string;
  contract_id: string;
  payload: Record<string, unknown>;
  created_event_blob: string;
  created_at: string;
}

export interface ContractWithState {
  contract: ScanContract;
  domain_id?: string;
}

export function scanContract(seed: string, templateId: string, payload: Record<string, unknown>, createdAtMs: number): ScanContract {
  return {
    template_id: templateId,
    contract_id: contractId(seed),
    payload,
    created_event_blob: createdEventBlob(seed, payload),
    created_at: isoMillis(createdAtMs),
  };
}

/** licence k is created this long before the start's day, plus k minutes (10 000 licences take a week) */
const LICENSES_CREATED_BEFORE_MS = 30 * DAY_MS;

/** rendered licences kept for the next page that lists them (each about 2 KB) */
const LICENSES_KEPT = 2000;

/**
 * Validator licenses: sequence numbers 1..N in creation order (licence k created 30 days before the start's day plus
 * k minutes). Four in five validators were last active in the hour before the start's day, the others an hour after
 * they were licensed (long inactive).
 * The listing is newest first; the page token is the sequence number of the last license returned, and the next
 * page holds the licenses with a smaller one.
 */
export class LicenseStore {
  /** licences rendered so far (never changed once rendered), up to LICENSES_KEPT: a walk reads the same ones again */
  private readonly rendered = new Map<number, ScanContract>();

  constructor(
    readonly size: number,
    private readonly dso: string,
    private readonly sponsors: string[],
    private readonly clock: Pick<DataClock, 'dayMs'>,
  ) {}

  license(seq: number): ScanContract {
    let l = this.rendered.get(seq);
    if (l === undefined) {
      if (this.rendered.size >= LICENSES_KEPT) this.rendered.clear();
      l = this.render(seq);
      this.rendered.set(seq, l);
    }
    return l;
  }

  private render(seq: number): ScanContract {
    const validator = partyIdFor(`validator-${seq}`);
    const createdMs = this.clock.dayMs - LICENSES_CREATED_BEFORE_MS + seq * 60_000;
    const lastActiveMs = seq % 5 === 0 ? createdMs + 3_600_000 : this.clock.dayMs - 60_000 * (1 + (seq % 60));
    const payload = {
      validator,
      sponsor: this.sponsors[seq % this.sponsors.length]!,
      dso: this.dso,
      faucetState: { firstReceivedFor: { number: String(seq) }, lastReceivedFor: { number: String(seq + 10) }, numCouponsMissed: '0' },
      metadata: { version: '0.8.0', contactPoint: `validator-${seq}@example.com`, lastUpdatedAt: isoMillis(createdMs) },
      lastActiveAt: isoMillis(lastActiveMs),
    };
    return scanContract(`validator-license:${seq}`, TEMPLATES.validatorLicense, payload, createdMs);
  }

  /** one page, newest first: licenses with sequence number below `after` (all when undefined) */
  page(after: number | undefined, limit: number): { licenses: ScanContract[]; next?: number } {
    const start = after === undefined ? this.size : Math.min(this.size, after - 1);
    const licenses: ScanContract[] = [];
    let seq = start;
    for (; seq >= 1 && licenses.length < limit; seq--) licenses.push(this.license(seq));
    // seq is now the next candidate: more remain when it is still a valid sequence number
    return seq >= 1 && licenses.length > 0 ? { licenses, next: seq + 1 } : { licenses };
  }
}

export interface RoundsData {
  open: ContractWithState[];
  issuing: ContractWithState[];
}

/** when round r opens: round 101 at the start's tick, one tick per round */
export function roundOpensMs(clock: Pick<DataClock, 'tickMs'>, r: number): number {
  return clock.tickMs + (r - 101) * ROUND_TICK_MS;
}

/**
 * Rounds 100..102 open, 98..99 issuing, as a DSO ticking every ROUND_TICK_MS would have them at the start: round r
 * opens at roundOpensMs(r) and targets to close two ticks later, so rounds 100 and 101 are open at the start (100
 * until the next tick, 101 until the one after) and 102 opens at the next tick; the issuing rounds closed before.
 */
export function miningRounds(world: World, clock: Pick<DataClock, 'tickMs'>): RoundsData {
  const dso = party(world, 'dso');
  const domain = world.synchronizers[0]!;
  const open: ContractWithState[] = [];
  const issuing: ContractWithState[] = [];
  const tick = ROUND_TICK_MS;
  for (let r = 100; r <= 102; r++) {
    const opensMs = roundOpensMs(clock, r);
    open.push({
      contract: scanContract(
        `open-mining-round:${r}`,
        TEMPLATES.openMiningRound,
        {
          dso,
          round: { number: String(r) },
          amuletPrice: decimal(0.005),
          opensAt: isoMillis(opensMs),
          targetClosesAt: isoMillis(opensMs + 2 * tick),
          issuingFor: { microseconds: String((r - 100) * tick * 1000) },
          transferConfigUsd: {
            createFee: { fee: decimal(0.03) },
            holdingFee: { rate: decimal(0.0000190259) },
            transferFee: { initialRate: decimal(0.01), steps: [] },
            lockHolderFee: { fee: decimal(0.005) },
            extraFeaturedAppRewardAmount: decimal(1),
            maxNumInputs: '100',
            maxNumOutputs: '100',
            maxNumLockHolders: '50',
          },
          issuanceConfig: {
            amuletToIssuePerYear: decimal(40e9),
            validatorRewardPercentage: decimal(0.05),
            appRewardPercentage: decimal(0.15),
            validatorRewardCap: decimal(0.2),
            featuredAppRewardCap: decimal(100),
            unfeaturedAppRewardCap: decimal(0.6),
          },
          tickDuration: { microseconds: String(tick * 1000) },
        },
        opensMs - tick,
      ),
      domain_id: domain,
    });
  }
  for (let r = 98; r <= 99; r++) {
    const opensMs = roundOpensMs(clock, r);
    issuing.push({
      contract: scanContract(
        `issuing-mining-round:${r}`,
        TEMPLATES.issuingMiningRound,
        {
          dso,
          round: { number: String(r) },
          issuancePerValidatorRewardCoupon: decimal(0.2),
          issuancePerFeaturedAppRewardCoupon: decimal(100),
          issuancePerUnfeaturedAppRewardCoupon: decimal(0.6),
          issuancePerSvRewardCoupon: decimal(570.776),
          opensAt: isoMillis(opensMs),
          targetClosesAt: isoMillis(opensMs + 2 * tick),
          optIssuancePerValidatorFaucetCoupon: decimal(570.776),
        },
        opensMs - tick,
      ),
      domain_id: domain,
    });
  }
  return { open, issuing };
}

/** world party names of the providers that hold a featured app right */
export const FEATURED_PROVIDER_NAMES = ['featured-app-1', 'featured-app-2'] as const;

export function featuredAppRights(world: World, clock: Pick<DataClock, 'dayMs'>): Map<string, ScanContract> {
  const dso = party(world, 'dso');
  const out = new Map<string, ScanContract>();
  FEATURED_PROVIDER_NAMES.forEach((name, k) => {
    const provider = party(world, name);
    out.set(provider, scanContract(`featured-app-right:${name}`, TEMPLATES.featuredAppRight, { dso, provider }, clock.dayMs - 60 * DAY_MS + k * 60_000));
  });
  return out;
}
