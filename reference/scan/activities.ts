/**
 * The historical activity listing of scans before 0.6.8 (POST /v0/activities): transfers (plain and creating a
 * transfer instruction), mints, taps and aborted transfer instructions. Event ids increase monotonically
 * (`#<18-digit offset>:0`); the listing is newest first and begin_after_id continues below the given id. Amounts and
 * owners are named as real scans name them (FACTS.md): `amulet_owner`, `amulet_amount`, `input_amulet_amount` where
 * SPEC.md writes `coin_*`, and a tap's activity_type is `devnet_tap` (its payload under `tap`).
 */
import type { World } from '../world.js';
import { DAY_MS, dataClock } from '../data/clock.js';
import { contractId, decimal, isoMicros, party } from '../data/seed.js';

export const ACTIVITY_COUNT = 40;

export type ActivityItem = Record<string, unknown> & { event_id: string };

export function seedActivities(world: World): ActivityItem[] {
  const alice = party(world, 'alice');
  const bob = party(world, 'bob');
  const carol = party(world, 'carol');
  const domain = world.synchronizers[0]!;
  const out: ActivityItem[] = [];
  // the days before the server's start (data/clock.ts)
  const fromMs = dataClock(world).dayMs - 3 * DAY_MS;
  for (let k = 0; k < ACTIVITY_COUNT; k++) {
    const offset = String(1000 + k * 3).padStart(18, '0');
    const base = {
      event_id: `#${offset}:0`,
      offset,
      date: isoMicros((fromMs + k * 90_000) * 1000 + 250_000 + k),
      domain_id: domain,
      round: 90 + Math.floor(k / 4),
    };
    const kind = k % 5;
    if (kind === 0 || kind === 3) {
      const amount = 5 + k;
      const transfer: Record<string, unknown> = {
        sender: {
          party: alice,
          input_amulet_amount: decimal(1000 - k),
          input_app_reward_amount: decimal(0),
          input_validator_reward_amount: decimal(k % 2 === 0 ? 1.5 : 0),
          input_sv_reward_amount: decimal(0),
          input_validator_faucet_amount: decimal(0),
          sender_change_fee: decimal(0.03),
          sender_change_amount: decimal(1000 - k - amount - 0.1),
          sender_fee: decimal(0.07),
          holding_fees: decimal(0.0019),
        },
        receivers: [{ party: k % 2 === 0 ? bob : carol, amount: decimal(amount), receiver_fee: decimal(0) }],
        balance_changes: [
          { party: alice, change_to_initial_amount_as_of_round_zero: decimal(-amount - 0.1), change_to_holding_fees_rate: decimal(0) },
          { party: k % 2 === 0 ? bob : carol, change_to_initial_amount_as_of_round_zero: decimal(amount), change_to_holding_fees_rate: decimal(0.0000190259) },
        ],
        description: kind === 3 ? `transfer instruction ${k}` : '',
      };
      if (kind === 3) {
        transfer.transferInstructionReceiver = bob;
        transfer.transferInstructionAmount = decimal(amount);
        transfer.transferInstructionCid = contractId(`activity-transfer-instruction:${k}`);
        transfer.transfer_kind = 'create_transfer_instruction';
      }
      out.push({ activity_type: 'transfer', ...base, transfer });
    } else if (kind === 1) {
      out.push({ activity_type: 'mint', ...base, mint: { amulet_owner: alice, amulet_amount: decimal(100 + k) } });
    } else if (kind === 2) {
      out.push({ activity_type: 'devnet_tap', ...base, tap: { amulet_owner: bob, amulet_amount: decimal(50 + k) } });
    } else {
      out.push({
        activity_type: 'abort_transfer_instruction',
        ...base,
        abort_transfer_instruction: { abort_kind: 'withdraw', transfer_instruction_cid: contractId(`activity-transfer-instruction:${k - 1}`) },
      });
    }
  }
  return out.reverse(); // newest first
}

/** newest first; with beginAfterId, only the activities whose event id sorts below it */
export function listActivities(all: ActivityItem[], beginAfterId: string | undefined, pageSize: number): ActivityItem[] {
  const out: ActivityItem[] = [];
  for (const a of all) {
    if (out.length >= pageSize) break;
    if (beginAfterId !== undefined && !(a.event_id < beginAfterId)) continue;
    out.push(structuredClone(a));
  }
  return out;
}
