/**
 * The seeded fixture data of the scan, validator and registry parts, as a test or suite writer needs it. All of it is
 * deterministic: a server started with the same size options seeds exactly these ids.
 */
import { createWorld } from '../world.js';
import { FaultSet } from '../faults.js';
import { resolveReferenceOptions, type ReferenceContext, type ReferenceOptions } from '../types.js';
import { VALIDATOR_ENTRY_INDICES, VALIDATOR_EXPIRED_INDEX } from './ans.js';
import { FEATURED_PROVIDER_NAMES } from './contracts.js';
import { party } from './seed.js';
import { sharedScanData } from './shared.js';
import { scanFixtureIds } from '../scan/history.js';
import { registryState } from '../registry/routes.js';

export interface ReferenceFixtures {
  scan: { updateIds: ReturnType<typeof scanFixtureIds> };
  validator: {
    user: string;
    party: string;
    /** names of the validator party's non-expired entries, oldest first */
    activeEntryNames: string[];
    expiredEntryName: string | undefined;
    featuredProviders: string[];
    /** a provider without a featured app right */
    unfeaturedProvider: string;
  };
  registry: {
    admin: string;
    instrumentId: { admin: string; id: string };
    factoryId: string;
    allocationInstructionIds: string[];
    transferInstructionIds: string[];
    /** instructions seeded mid-reassignment: their withdraw contexts answer 409 */
    reassigningAllocationInstructionId: string;
    reassigningTransferInstructionId: string;
    /** a valid allocation-factory request body with `legs` transfer legs */
    factoryRequest(legs: number, inputHoldingCids?: string[]): Record<string, unknown>;
  };
}

export function referenceFixtures(o: Pick<ReferenceOptions, 'size'> = {}): ReferenceFixtures {
  const world = createWorld();
  // the server's own defaults, so the two cannot drift apart
  const ctx = { world, faults: new FaultSet(), options: resolveReferenceOptions({ size: o.size ?? {} }) } satisfies ReferenceContext;
  const reg = registryState(ctx);
  // the scan and validator parts build the whole ANS and license stores: only when asked for
  let scanData: ReturnType<typeof sharedScanData> | undefined;
  const data = () => (scanData ??= sharedScanData(ctx));
  return {
    scan: { updateIds: scanFixtureIds() },
    get validator() {
      const d = data();
      const now = Date.now();
      const owned = VALIDATOR_ENTRY_INDICES.filter((i) => i < d.ans.size);
      return {
        user: 'validator_user',
        party: d.validatorParty,
        activeEntryNames: owned.filter((i) => d.ans.isActive(i, now)).map((i) => d.ans.name(i)),
        expiredEntryName: VALIDATOR_EXPIRED_INDEX < d.ans.size ? d.ans.name(VALIDATOR_EXPIRED_INDEX) : undefined,
        featuredProviders: FEATURED_PROVIDER_NAMES.map((n) => party(world, n)),
        unfeaturedProvider: party(world, 'alice'),
      };
    },
    registry: {
      admin: reg.admin,
      instrumentId: reg.instrumentId,
      factoryId: reg.factory,
      allocationInstructionIds: reg.allocationInstructions,
      transferInstructionIds: reg.transferInstructions,
      reassigningAllocationInstructionId: reg.reassigningAllocationInstruction,
      reassigningTransferInstructionId: reg.reassigningTransferInstruction,
      factoryRequest: (legs, inputHoldingCids = []) => allocationFactoryRequest(reg.instrumentId, party(world, 'alice'), party(world, 'bob'), party(world, 'trading-venue'), legs, inputHoldingCids),
    },
  };
}

/**
 * An allocation-factory request as the token standard's allocate choice encodes it: choiceArguments with
 * expectedAdmin, allocation {settlement, transferLegs (a map of leg id to leg)}, requestedAt, inputHoldingCids and
 * extraArgs with empty context and meta.
 */
export function allocationFactoryRequest(
  instrumentId: { admin: string; id: string },
  sender: string,
  receiver: string,
  executor: string,
  legs: number,
  inputHoldingCids: string[] = [],
): Record<string, unknown> {
  const transferLegs: Record<string, unknown> = {};
  for (let k = 0; k < legs; k++) {
    transferLegs[`leg-${k}`] = { sender, receiver, amount: `${k + 1}.0000000000`, instrumentId, meta: { values: {} } };
  }
  return {
    choiceArguments: {
      expectedAdmin: instrumentId.admin,
      allocation: {
        settlement: {
          executor,
          settlementRef: { id: 'settlement-1', cid: null },
          requestedAt: '2026-01-01T00:00:00Z',
          allocateBefore: '2100-01-01T00:00:00Z',
          settleBefore: '2100-01-02T00:00:00Z',
          meta: { values: {} },
        },
        transferLegs,
      },
      requestedAt: '2026-01-01T00:00:00Z',
      inputHoldingCids,
      extraArgs: { context: {}, meta: {} },
    },
    excludeDebugFields: false,
  };
}
