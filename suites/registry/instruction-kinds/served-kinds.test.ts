/**
 * Which instruction kinds a registry serves: the documented paths answer a valid request (200, or 400 for a kind the
 * registry does not support, FACTS.md). That permission is folded into the response-schema rules of the three
 * endpoints: their checks report such a 400 to a valid request as unsupported (validWithdraw, validFactory).
 */
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/http.js';
import { KIND, factoryChoiceArguments, instructionIds, isObj } from '../../../harness/fixtures/registry.js';
import { factoryRequest, hasTransferLegs } from '../../../generators/registry/GetFactoryRequest.js';
import { expectStatus } from '../../v0-http-checks.js';

/** One valid request per configured endpoint: [label, requirement its path belongs to, exchange]. */
async function probe(t: CheckContext): Promise<Array<[string, string, Exchange]>> {
  const out: Array<[string, string, Exchange]> = [];
  const transfer = instructionIds(t, 'transfer')[0];
  if (transfer !== undefined) {
    out.push(['transfer-instruction withdraw (/registry/transfer-instruction/v1)', 'registry.versioning.path-versions', await t.call(KIND.transfer.operation, { params: { [KIND.transfer.param]: transfer }, json: {} })]);
  }
  const allocation = instructionIds(t, 'allocation')[0];
  if (allocation !== undefined) {
    out.push(['allocation-instruction withdraw (/registry/allocation-instruction/v2)', 'registry.versioning.allocation-endpoints-added', await t.call(KIND.allocation.operation, { params: { [KIND.allocation.param]: allocation }, json: {} })]);
  }
  const args = t.fixture<unknown>('allocationFactoryChoiceArguments');
  if (isObj(args) && hasTransferLegs(args)) {
    out.push(['allocation factory (/registry/allocation-instruction/v2)', 'registry.versioning.allocation-endpoints-added', await t.call('getAllocationFactory', { json: factoryRequest(factoryChoiceArguments(t), 1) })]);
  }
  if (out.length === 0) t.skip('no instruction ids or factory choice arguments configured (registry fixtures)');
  return out;
}

describe('registry instruction kinds', () => {
  conformance(
    {
      id: 'registry.versioning.served-paths',
      title: 'serves transfer instructions under /v1 and allocation instructions under /v2: a valid request is answered 200, or 400 for an unsupported kind',
      api: 'registry',
      operations: ['getTransferInstructionWithdrawContext', 'getAllocationInstructionWithdrawContext', 'getAllocationFactory'],
      requirements: ['registry.versioning.path-versions', 'registry.versioning.allocation-endpoints-added'],
    },
    async (t) => {
      // each path's requirement in its own block: a missing allocation endpoint does not hide the transfer one
      for (const [label, requirement, x] of await probe(t)) await t.judge(requirement, () => expectStatus(t, x, [200, 400], { requirement, what: `a valid ${label} request` }));
    },
  );
});
