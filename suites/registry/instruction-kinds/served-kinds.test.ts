/**
 * Which instruction kinds a registry serves: the documented paths answer a valid request 200. A registry that does not
 * support a kind may answer 400 for it (FACTS.md), which only its configuration can say (features.allocationInstructions
 * or features.transferInstructions false): a 400 is then no failure here, and the checks of that kind report unsupported
 * (validWithdraw, validFactory). Without that setting a 400 to a valid request is a failure.
 */
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { READS_CHOICE_CONTEXTS, KIND, KIND_FEATURE, factoryChoiceArguments, instructionIds, isObj } from '../../../harness/fixtures/registry.js';
import { factoryRequest, hasTransferLegs } from '../../../generators/registry/GetFactoryRequest.js';
import { expectStatus, notBusy } from '../../v0-http-checks.js';
import { schemaRegistry } from '../../../harness/judging/schemas.js';
import { outOfRange } from '../../../harness/judging/versions.js';

const ADDED = 'registry.versioning.allocation-endpoints-added';

/** The statuses a valid request of a kind may get: 200, and 400 where the configuration says the kind is not supported. */
const allowed = (t: CheckContext, kind: 'allocation' | 'transfer'): number[] => (t.target.features[KIND_FEATURE[kind]] === false ? [200, 400] : [200]);

/** One valid request per configured endpoint: [label, requirement its path belongs to, exchange, statuses allowed]. */
async function probe(t: CheckContext): Promise<Array<[string, string, Exchange, number[]]>> {
  const out: Array<[string, string, Exchange, number[]]> = [];
  const transfer = instructionIds(t, 'transfer')[0];
  if (transfer !== undefined) {
    out.push(['transfer-instruction withdraw (/registry/transfer-instruction/v1)', 'registry.versioning.path-versions', await t.call(KIND.transfer.operation, { params: { [KIND.transfer.param]: transfer }, json: {} }), allowed(t, 'transfer')]);
  }
  const allocation = instructionIds(t, 'allocation')[0];
  if (allocation !== undefined) {
    out.push(['allocation-instruction withdraw (/registry/allocation-instruction/v2)', 'registry.versioning.allocation-endpoints-added', await t.call(KIND.allocation.operation, { params: { [KIND.allocation.param]: allocation }, json: {} }), allowed(t, 'allocation')]);
  }
  const args = t.fixture<unknown>('allocationFactoryChoiceArguments');
  if (isObj(args) && hasTransferLegs(args)) {
    out.push(['allocation factory (/registry/allocation-instruction/v2)', 'registry.versioning.allocation-endpoints-added', await t.call('getAllocationFactory', { json: factoryRequest(factoryChoiceArguments(t), 1) }), allowed(t, 'allocation')]);
  }
  if (out.length === 0) t.skip('no instruction ids or factory choice arguments configured (registry fixtures)');
  return out;
}

describe('registry instruction kinds', () => {
  conformance(
    {
      id: 'registry.versioning.served-paths',
      title: 'serves transfer instructions under /v1 and allocation instructions under /v2: a valid request is answered 200 (400 only for a kind the configuration declares unsupported)',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations: ['getTransferInstructionWithdrawContext', 'getAllocationInstructionWithdrawContext', 'getAllocationFactory'],
      requirements: ['registry.versioning.path-versions', 'registry.versioning.allocation-endpoints-added'],
    },
    async (t) => {
      // each path's requirement in its own block: a missing allocation endpoint does not hide the transfer one; the
      // allocation endpoints are judged only from the version that added them (before it, absent-before judges them)
      const before = outOfRange(t.target.version, schemaRegistry().operation('registry', 'getAllocationFactory').since);
      for (const [label, requirement, x, statuses] of await probe(t)) {
        if (requirement === ADDED && before !== undefined) t.notObserved(ADDED, `version: ${before}`);
        else await t.judge(requirement, () => expectStatus(t, x, statuses, { requirement, what: `a valid ${label} request` }));
      }
    },
  );

  conformance(
    {
      id: 'registry.versioning.allocation-endpoints-absent-before',
      title: 'answers no valid allocation-instruction request with 2xx before 0.6.11',
      api: 'registry',
      reads: [...READS_CHOICE_CONTEXTS],
      operations: ['getAllocationInstructionWithdrawContext', 'getAllocationFactory'],
      requirements: ['registry.versioning.allocation-endpoints-absent-before'],
    },
    async (t) => {
      // the requests a registry that serves the endpoints answers with 200 (the configured instruction and arguments)
      const sent = (await probe(t)).filter(([, requirement]) => requirement === 'registry.versioning.allocation-endpoints-added');
      if (sent.length === 0) t.skip('no allocation instruction id nor factory choice arguments configured (registry fixtures): no valid allocation request to send');
      for (const [label, , x] of sent) {
        notBusy(t, x);
        t.expect(x.status < 200 || x.status >= 300, `a ${t.target.version ?? ''} registry answered a valid ${label} request with ${x.status}: the endpoint, added in 0.6.11, is served`, { exchange: x });
      }
    },
  );
});
