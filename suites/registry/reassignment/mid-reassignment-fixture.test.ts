/**
 * 409 for an instruction the target's configuration names as mid-reassignment (registry fixtures
 * midReassignmentAllocationInstructionId and midReassignmentTransferInstructionId: unassigned from one synchronizer and
 * not assigned to another for as long as the run lasts). The checks of conflict-during-reassignment.test.ts move an
 * instruction themselves, through the ledger API; this one needs no ledger target, and judges a move that began before
 * the registry's own start as well.
 *
 * The check reads the registry's disclosed contracts (READS_CHOICE_CONTEXTS), so it never runs while a check moves one
 * of them: a 409 then would not be about the instruction.
 */
import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { KIND, READS_CHOICE_CONTEXTS, VALID_WITHDRAW_BODY, disclosedContractsOf, type InstructionKind } from '../../../harness/fixtures/registry.js';
import { expectStatus } from '../../v0-http-checks.js';

const FIXTURE: Record<InstructionKind, string> = {
  allocation: 'midReassignmentAllocationInstructionId',
  transfer: 'midReassignmentTransferInstructionId',
};

/**
 * `disclosed`: the rule when a 200 answer discloses the instruction itself; `own`: the rule otherwise (the request
 * names the instruction; SPEC.md ties the 409 to a disclosed contract, so for the instruction alone it is a SHOULD).
 */
function midReassignmentCheck(kind: InstructionKind, id: string, rules: { disclosed: string; own: string }): void {
  const { operation, label, param } = KIND[kind];
  conformance(
    {
      id,
      title: `answers 409 with an {error} body for the ${label} the configuration names as mid-reassignment`,
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations: [operation],
      requirements: [...new Set([rules.disclosed, rules.own])],
    },
    async (t) => {
      const cid = t.fixture<unknown>(FIXTURE[kind]);
      if (typeof cid !== 'string' || cid === '') return t.skip(`no ${label} mid-reassignment configured (registry fixture ${FIXTURE[kind]}: an instruction unassigned and not yet assigned for as long as the run lasts)`);
      const x = await t.call(operation, { params: { [param]: cid }, json: VALID_WITHDRAW_BODY });
      const discloses = x.status === 200 && disclosedContractsOf(x, false).some((d) => d.contractId === cid);
      const requirement = discloses ? rules.disclosed : rules.own;
      if (rules.disclosed !== rules.own) {
        t.notObserved(discloses ? rules.own : rules.disclosed, discloses ? `the answer discloses the ${label} itself, so it is judged as a disclosed contract's move` : `no answer disclosed the ${label} itself, so it is judged as the instruction's own move`);
      }
      expectStatus(t, x, 409, { requirement, what: `${operation} for the ${label} ${cid}, which the configuration names as mid-reassignment` });
    },
  );
}

describe('registry choice contexts of an instruction configured as mid-reassignment', () => {
  midReassignmentCheck('allocation', 'registry.reassignment.allocation-instruction-configured-mid-reassignment', {
    disclosed: 'registry.get-allocation-instruction-withdraw-context.reassignment-conflict',
    own: 'registry.get-allocation-instruction-withdraw-context.instruction-reassignment-conflict',
  });
  const transferConflict = 'registry.get-transfer-instruction-withdraw-context.reassignment-conflict';
  midReassignmentCheck('transfer', 'registry.reassignment.transfer-instruction-configured-mid-reassignment', { disclosed: transferConflict, own: transferConflict });
});
