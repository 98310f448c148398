/**
 * The token registry's seeded contracts, kept in the world's contract store (the ledger owns their synchronizer
 * assignment): the instrument's AmuletRules and current OpenMiningRound (disclosed in every choice context), the
 * allocation factory (ExternalPartyAmuletRules), allocation instructions and transfer instructions.
 * One instruction of each kind is seeded mid-reassignment (synchronizerId null), so its endpoints answer 409.
 */
import type { ContractRecord, World } from '../world.js';
import { DAY_MS, ROUND_TICK_MS, dataClock } from '../data/clock.js';
import { roundOpensMs } from '../data/contracts.js';
import { contractId, createdEventBlob, decimal, isoMillis, party } from '../data/seed.js';
import { PACKAGES, TEMPLATES } from '../data/templates.js';

export const REGISTRY_INSTRUMENT_ID = 'Amulet';
/**
 * A second instrument of the same admin with an allocation factory of its own: the factory reassignment check moves
 * that factory, which no other check's choice context discloses, so checks running at the same time never see it
 * mid-move.
 */
export const REASSIGNMENT_INSTRUMENT_ID = 'AmuletReassignmentDrill';
export const ALLOCATION_INSTRUCTION_COUNT = 3;
export const TRANSFER_INSTRUCTION_COUNT = 3;

export interface RegistryState {
  admin: string;
  instrumentId: { admin: string; id: string };
  amuletRules: string;
  openRound: string;
  factory: string;
  /** the allocation factory of the instrument REASSIGNMENT_INSTRUMENT_ID */
  reassignmentFactory: string;
  /** instructions assigned to a synchronizer */
  allocationInstructions: string[];
  transferInstructions: string[];
  /** instructions seeded while being reassigned (synchronizerId null): their endpoints answer 409 */
  reassigningAllocationInstruction: string;
  reassigningTransferInstruction: string;
}

/** the registry's contracts were created this long before the start's day, plus k minutes */
const CREATED_BEFORE_MS = 10 * DAY_MS;
/** deadlines of the seeded instructions, after the start's day */
const DEADLINE_AFTER_MS = 30 * DAY_MS;

function put(world: World, seed: string, templateId: string, packageName: string, args: Record<string, unknown>, signatories: string[], observers: string[], k: number, synchronizerId: string | null): string {
  const cid = contractId(seed);
  const createdAt = isoMillis(dataClock(world).dayMs - CREATED_BEFORE_MS + k * 60_000);
  const rec: ContractRecord = {
    contractId: cid,
    templateId,
    packageName,
    createArgument: args,
    signatories,
    observers,
    createdAt,
    createdEventBlob: createdEventBlob(seed, args),
    synchronizerId,
    reassignmentCounter: synchronizerId === null ? 1 : 0,
  };
  if (!world.contracts.has(cid)) world.contracts.set(cid, rec);
  return cid;
}

export function seedRegistry(world: World): RegistryState {
  const admin = party(world, 'dso');
  const alice = party(world, 'alice');
  const bob = party(world, 'bob');
  const venue = party(world, 'trading-venue');
  const sync = world.synchronizers[0]!;
  const amulet = PACKAGES.amulet.name;
  const instrumentId = { admin, id: REGISTRY_INSTRUMENT_ID };
  // times relative to the server's start (data/clock.ts): the disclosed round is open at it, deadlines lie after it
  const clock = dataClock(world);
  const requestedAt = isoMillis(clock.dayMs - CREATED_BEFORE_MS);
  const deadline = (extraMs: number) => isoMillis(clock.dayMs + DEADLINE_AFTER_MS + extraMs);
  const amuletRules = put(world, 'registry:amulet-rules', TEMPLATES.amuletRules, amulet, { dso: admin, isDevNet: true, configSchedule: { initialValue: {}, futureValues: [] } }, [admin], [], 0, sync);
  // round 100's times as scan lists them (data/contracts.ts): opened a tick before the start's tick, open at the start
  const roundOpens = roundOpensMs(clock, 100);
  const openRound = put(world, 'registry:open-round:100', TEMPLATES.openMiningRound, amulet, { dso: admin, round: { number: '100' }, amuletPrice: decimal(0.005), opensAt: isoMillis(roundOpens), targetClosesAt: isoMillis(roundOpens + 2 * ROUND_TICK_MS) }, [admin], [], 1, sync);
  const factory = put(world, 'registry:allocation-factory', TEMPLATES.externalPartyAmuletRules, amulet, { dso: admin }, [admin], [], 2, sync);
  const reassignmentFactory = put(world, `registry:allocation-factory:${REASSIGNMENT_INSTRUMENT_ID}`, TEMPLATES.externalPartyAmuletRules, amulet, { dso: admin, instrumentId: REASSIGNMENT_INSTRUMENT_ID }, [admin], [], 3, sync);
  const transferLeg = (k: number) => ({
    sender: alice,
    receiver: bob,
    amount: decimal(10 + k),
    instrumentId,
    meta: { values: {} },
  });
  const allocationInstructions: string[] = [];
  for (let k = 0; k <= ALLOCATION_INSTRUCTION_COUNT; k++) {
    const reassigning = k === ALLOCATION_INSTRUCTION_COUNT;
    allocationInstructions.push(
      put(
        world,
        `registry:allocation-instruction:${k}`,
        TEMPLATES.allocationInstruction,
        PACKAGES.tokenStandard.name,
        {
          admin,
          sender: alice,
          allocation: {
            settlement: { executor: venue, settlementRef: { id: `settlement-${k}`, cid: null }, requestedAt, allocateBefore: deadline(0), settleBefore: deadline(DAY_MS), meta: { values: {} } },
            transferLegs: { [`leg-${k}`]: transferLeg(k) },
          },
          lockedAmulet: contractId(`registry:locked-amulet:alloc:${k}`),
        },
        [admin, alice],
        [venue],
        10 + k,
        reassigning ? null : sync,
      ),
    );
  }
  const transferInstructions: string[] = [];
  for (let k = 0; k <= TRANSFER_INSTRUCTION_COUNT; k++) {
    const reassigning = k === TRANSFER_INSTRUCTION_COUNT;
    transferInstructions.push(
      put(
        world,
        `registry:transfer-instruction:${k}`,
        TEMPLATES.transferInstruction,
        amulet,
        {
          lockedAmulet: contractId(`registry:locked-amulet:transfer:${k}`),
          transfer: { ...transferLeg(k), requestedAt, executeBefore: deadline(0), inputHoldingCids: [] },
        },
        [admin, alice],
        [bob],
        20 + k,
        reassigning ? null : sync,
      ),
    );
  }
  return {
    admin,
    instrumentId,
    amuletRules,
    openRound,
    factory,
    reassignmentFactory,
    allocationInstructions: allocationInstructions.slice(0, ALLOCATION_INSTRUCTION_COUNT),
    transferInstructions: transferInstructions.slice(0, TRANSFER_INSTRUCTION_COUNT),
    reassigningAllocationInstruction: allocationInstructions[ALLOCATION_INSTRUCTION_COUNT]!,
    reassigningTransferInstruction: transferInstructions[TRANSFER_INSTRUCTION_COUNT]!,
  };
}
