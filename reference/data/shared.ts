/**
 * The seeded data scan and the validator share, built once per server (keyed by its world) so that both interfaces
 * answer from the same entries.
 */
import type { ReferenceContext } from '../types.js';
import type { World } from '../world.js';
import { AnsStore, VALIDATOR_PARTY_NAME } from './ans.js';
import { featuredAppRights, LicenseStore, miningRounds, type RoundsData, type ScanContract } from './contracts.js';
import { dataClock } from './clock.js';
import { party } from './seed.js';
import { DATA_ANS_FAULTS, displaceRegularByDso, hideOtherOwners, hideUnfilteredRegular } from './faults-ans.js';
import { DATA_LICENSE_FAULTS, endListingsAtSingleLicense, pagesOneShort } from './faults-licenses.js';

export interface SharedScanData {
  ans: AnsStore;
  licenses: LicenseStore;
  rounds: RoundsData;
  featuredApps: Map<string, ScanContract>;
  dso: string;
  validatorParty: string;
}

const cache = new WeakMap<World, SharedScanData>();

export function sharedScanData(ctx: ReferenceContext): SharedScanData {
  let d = cache.get(ctx.world);
  if (d === undefined) {
    const world = ctx.world;
    const dso = party(world, 'dso');
    const sponsors = ['sv-1', 'sv-2', 'sv-3', 'sv-4'].map((n) => party(world, n));
    // the server's start: every seeded time is relative to it
    const clock = dataClock(world);
    d = {
      ans: new AnsStore(world, ctx.options.size.ansEntries),
      licenses: new LicenseStore(ctx.options.size.validatorLicenses, dso, sponsors, clock),
      rounds: miningRounds(world, clock),
      featuredApps: featuredAppRights(world, clock),
      dso,
      validatorParty: party(world, VALIDATOR_PARTY_NAME),
    };
    if (ctx.faults.has(DATA_ANS_FAULTS.otherOwnersHidden)) hideOtherOwners(d.ans);
    if (ctx.faults.has(DATA_ANS_FAULTS.unfilteredRegularHidden)) hideUnfilteredRegular(d.ans);
    if (ctx.faults.has(DATA_ANS_FAULTS.dsoDisplacesRegular)) displaceRegularByDso(d.ans);
    if (ctx.faults.has(DATA_LICENSE_FAULTS.singleLicenseEnds)) endListingsAtSingleLicense(d.licenses);
    if (ctx.faults.has(DATA_LICENSE_FAULTS.oneShort)) pagesOneShort(d.licenses);
    cache.set(world, d);
  }
  return d;
}
