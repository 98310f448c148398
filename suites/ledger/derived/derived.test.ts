/**
 * Requests derived from specs/ledger.yaml (suites/derived-checks.ts): per operation, its valid request built from the
 * fixtures, and requests with one mutation each. Operations covered: every operation SPEC.md lists, and the setup
 * operations whose request has a constrained field (createUser, listUsers, getUser, listUserRights, revokeUserRights,
 * allocateParty, submitAndWaitForTransaction, getUpdateByOffset, deleteUser). Not covered: getVersion, getLedgerEnd,
 * getConnectedSynchronizers and getTrafficAccount (no parameter or body field the document constrains).
 */
import { describe } from 'vitest';
import { SHARED_STATE } from '../../../harness/run/shared-state.js';
import type { CheckContext } from '../../../harness/conformance.js';
import { allocationRequest, connectedSynchronizers, createdContractId, createSubmitter, createUser, darFixture, FixtureError, routeNotServed, submitCommands, submitCreate, templateFixture } from '../../../harness/fixtures/ledger.js';
import { ledgerOperationGone } from '../../../harness/judging/versions.js';
import { derivedCheck, type DerivedRequest } from '../../derived-checks.js';
import { byOffsetServed, createCommand, trafficServed, treeServed, WILDCARD } from '../shared.js';

const req = (o: Partial<DerivedRequest>): DerivedRequest => ({ params: {}, query: {}, ...o });
const notGone = (t: CheckContext, op: string) => {
  const gone = ledgerOperationGone(t.target.version, op);
  if (gone !== undefined) t.skip(gone);
};
const KEY = { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: Buffer.alloc(32, 9).toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' };

/** a transaction the submitter created, read back at its offset */
async function createdOffset(t: CheckContext) {
  const s = await createSubmitter(t);
  const sub = await submitCommands(t, s, [createCommand(templateFixture(t), s.party)]);
  if (sub.offset === undefined) t.skip(`set-up: the create submission answered ${sub.x.status} without an offset`);
  return { s, offset: sub.offset };
}

describe('ledger requests derived from the specs', () => {
  for (const op of ['getPackageVetting', 'listPackageVetting'] as const) {
    derivedCheck({
      api: 'ledger',
      operationId: op,
      kinds: ['wrong-type', 'out-of-range', 'non-integer'],
      prepare: async (t) => {
        notGone(t, op);
        return { request: () => req({ json: { pageSize: 10 } }) };
      },
    });
  }

  derivedCheck({
    api: 'ledger',
    operationId: 'generateExternalPartyTopology',
    kinds: ['required-removed', 'wrong-type', 'out-of-range', 'pattern', 'enum', 'non-integer'],
    prepare: async (t) => {
      const sync = (await connectedSynchronizers(t))[0] ?? t.skip('the participant is connected to no synchronizer');
      return { request: () => req({ json: { synchronizer: sync, partyHint: t.uniqueName('cc-derived'), publicKey: { ...KEY } } }) };
    },
  });

  derivedCheck({
    api: 'ledger',
    operationId: 'getTransactionByOffset',
    kinds: ['required-removed', 'wrong-type', 'out-of-range', 'non-integer'],
    prepare: async (t) => {
      notGone(t, 'getTransactionByOffset');
      const { s, offset } = await createdOffset(t);
      return {
        request: () => req({ json: { offset, requestingParties: [s.party] } }),
        auth: { user: s.userId },
        accepted: (x) => {
          if (routeNotServed(x) || !byOffsetServed(t, x)) t.skip('transaction-by-offset is not served');
          return x.status === 200;
        },
      };
    },
  });

  derivedCheck({
    api: 'ledger',
    operationId: 'getUpdateByOffset',
    kinds: ['required-removed', 'wrong-type', 'out-of-range', 'enum', 'non-integer'],
    prepare: async (t) => {
      const { s, offset } = await createdOffset(t);
      const updateFormat = { includeTransactions: { eventFormat: { filtersByParty: { [s.party]: WILDCARD } }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } };
      return { request: () => req({ json: { offset, updateFormat } }), auth: { user: s.userId } };
    },
  });

  derivedCheck({
    api: 'ledger',
    operationId: 'updateTrafficAccount',
    kinds: ['wrong-type', 'non-integer'],
    prepare: async (t) => {
      if (!trafficServed(t)) t.skip('traffic account updates are served from 3.5 on where traffic enforcement is on, and the target is not configured so');
      const s = await createSubmitter(t);
      const deduplicationId = t.uniqueName('dedup');
      return { request: () => req({ json: { accountId: s.party, deduplicationId, balanceDelta: 1 } }) };
    },
  });

  derivedCheck({
    api: 'ledger',
    operationId: 'updateUser',
    kinds: ['required-removed', 'wrong-type', 'pattern', 'enum'],
    prepare: async (t) => {
      const u = await createUser(t);
      return { request: () => req({ params: { 'user-id': u.id }, json: { user: { id: u.id, isDeactivated: false }, updateMask: { paths: ['is_deactivated'] } } }) };
    },
  });

  for (const op of ['grantUserRights', 'revokeUserRights'] as const) {
    derivedCheck({
      api: 'ledger',
      operationId: op,
      kinds: ['required-removed', 'wrong-type', 'pattern'],
      prepare: async (t) => {
        const u = await createUser(t);
        return { request: () => req({ params: { 'user-id': u.id }, json: { userId: u.id, rights: [{ kind: { ParticipantAdmin: { value: {} } } }] } }) };
      },
    });
  }

  derivedCheck({
    api: 'ledger',
    operationId: 'createUser',
    kinds: ['required-removed', 'wrong-type', 'pattern'],
    prepare: async (t) => ({
      request: () => {
        const id = t.uniqueName('cc-derived');
        // a mutated request wrongly accepted creates the user too: every id is cleaned up
        t.defer(async () => t.clientFor('ledger').call('deleteUser', { params: { 'user-id': id }, conform: false }));
        return req({ json: { user: { id, isDeactivated: false }, rights: [] } });
      },
    }),
  });

  derivedCheck({
    api: 'ledger',
    operationId: 'listUsers',
    kinds: ['out-of-range', 'non-integer'],
    prepare: async () => ({ request: () => req({ query: { pageSize: '10' } }) }),
  });

  // deleteUser: the control request deletes the user created for it; the mutated requests name ids that cannot exist
  for (const op of ['getUser', 'listUserRights', 'deleteUser'] as const) {
    derivedCheck({
      api: 'ledger',
      operationId: op,
      kinds: ['pattern'],
      prepare: async (t) => {
        const u = await createUser(t);
        return { request: () => req({ params: { 'user-id': u.id } }) };
      },
    });
  }

  derivedCheck({
    api: 'ledger',
    operationId: 'allocateParty',
    kinds: ['wrong-type'],
    prepare: async (t) => {
      const base = await allocationRequest(t, 'unused');
      return { request: () => req({ json: { ...base, partyIdHint: t.uniqueName('cc-derived') } }) };
    },
  });

  derivedCheck({
    api: 'ledger',
    operationId: 'submitAndWaitForTransaction',
    kinds: ['required-removed', 'wrong-type', 'out-of-range', 'enum', 'non-integer'],
    prepare: async (t) => {
      const s = await createSubmitter(t);
      const tmpl = templateFixture(t);
      return {
        auth: { user: s.userId },
        request: () =>
          req({
            json: {
              commands: { commands: [createCommand(tmpl, s.party)], commandId: t.uniqueName('cmd'), userId: s.userId, actAs: [s.party] },
              transactionFormat: { eventFormat: { filtersByParty: { [s.party]: WILDCARD } }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
            },
          }),
      };
    },
  });

  derivedCheck({
    api: 'ledger',
    operationId: 'submitAndWaitForTransactionTree',
    kinds: ['required-removed', 'wrong-type', 'out-of-range', 'non-integer'],
    prepare: async (t) => {
      const s = await createSubmitter(t);
      const tmpl = templateFixture(t);
      return {
        auth: { user: s.userId },
        request: () => req({ json: { commands: [createCommand(tmpl, s.party)], commandId: t.uniqueName('cmd'), userId: s.userId, actAs: [s.party] } }),
        accepted: (x) => {
          if (!treeServed(t, x)) t.skip('submit-and-wait-for-transaction-tree is not served');
          return x.status === 200;
        },
      };
    },
  });

  derivedCheck({
    api: 'ledger',
    operationId: 'submitAndWaitForReassignment',
    kinds: ['required-removed', 'wrong-type'],
    prepare: async (t) => {
      const syncs = await connectedSynchronizers(t);
      if (syncs.length < 2) t.skip(`the participant is connected to ${syncs.length} synchronizer(s): reassignment needs two`);
      const s = await createSubmitter(t);
      const tmpl = templateFixture(t);
      const contract = async () => {
        const x = await submitCreate(t, s, tmpl, syncs[0]);
        const cid = createdContractId(x.json);
        if (x.status !== 200 || cid === undefined) throw new FixtureError(`setup: creating a contract answered ${x.status}: ${x.text.slice(0, 300)}`);
        return cid;
      };
      // the control moves its contract away; the mutated requests unassign another one, which stays where it is as
      // long as they are rejected
      const [control, mutated] = [await contract(), await contract()];
      let sent = 0;
      return {
        auth: { user: s.userId },
        request: () => {
          const contractId = sent++ === 0 ? control : mutated;
          const commandId = t.uniqueName('reassign');
          return req({
            json: {
              reassignmentCommands: { commandId, submitter: s.party, userId: s.userId, commands: [{ command: { UnassignCommand: { value: { contractId, source: syncs[0], target: syncs[1] } } } }] },
              eventFormat: { filtersByParty: { [s.party]: WILDCARD }, verbose: true },
            },
          });
        },
      };
    },
  });

  derivedCheck({
    api: 'ledger',
    operationId: 'uploadPackage',
    kinds: ['wrong-type'],
    // an upload that does not vet: vetting the fixture DAR here would leave the vetting checks nothing to change
    // (they skip a package already vetted), so their verdicts would depend on which check ran first
    shares: [SHARED_STATE.packageVetting],
    prepare: async (t) => {
      const dar = darFixture(t);
      const query = { vetAllPackages: 'false' };
      return { request: () => req({ query }), extra: { body: dar.bytes, headers: { 'content-type': 'application/octet-stream' } } };
    },
  });
});
