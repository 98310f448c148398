import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { FixtureError, connectedSynchronizers, createSubmitter, createdContractId, routeNotServed, submitCommands, templateFixture } from '../../../harness/fixtures/ledger.js';
import { errorCode } from '../../../harness/fixtures/ledger-users.js';
import { reassignmentRequest } from '../../../generators/ledger/reassignment.js';
import { WILDCARD, createCommand, eventsOf, isObj, unwrapEvent, type Ev } from '../shared.js';

/** Creates a contract as a new submitter and reads the transaction at its offset with this shape (skips where not served). */
async function readOwnTransaction(t: CheckContext, transactionShape: string): Promise<{ c: { offset?: unknown }; x: Exchange }> {
  const tmpl = templateFixture(t);
  const s = await createSubmitter(t);
  const c = await submitCommands(t, s, [createCommand(tmpl, s.party)]);
  if (c.x.status === 404 && routeNotServed(c.x)) t.skip('neither submission endpoint is served: no transaction to look up');
  if (c.x.status !== 200 || c.offset === undefined) throw new FixtureError(`setup: the submission answered ${c.x.status}: ${c.x.text.slice(0, 300)}`);
  const x = await t.call('getUpdateByOffset', {
    auth: { user: s.userId },
    json: { offset: c.offset, updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [s.party]: WILDCARD }, verbose: true }, transactionShape } } },
  });
  if (routeNotServed(x)) t.skip(`update-by-offset answered ${x.status} without a JsCantonError: not served`);
  return { c, x };
}

// The replacement of transaction-by-offset (FACTS.md): its answer is judged here.
describe('POST /v2/updates/update-by-offset', () => {
  conformance(
    {
      id: 'ledger.get-update-by-offset.schema',
      title: 'answers the offset of a visible transaction with 200 and {update: {Transaction: {value}}}',
      api: 'ledger',
      operations: ['getUpdateByOffset'],
      requirements: ['ledger.get-update-by-offset.response-schema'],
    },
    async (t) => {
      const { c, x } = await readOwnTransaction(t, 'TRANSACTION_SHAPE_ACS_DELTA');
      t.expectStatus(x, 200);
      const value = (x.json as { update?: { Transaction?: { value?: { offset?: unknown } } } } | undefined)?.update?.Transaction?.value;
      t.expect(value?.offset === c.offset, `the update at offset ${c.offset} is not a Transaction of that offset: ${x.text.slice(0, 300)}`, { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.get-update-by-offset.unspecified-shape',
      title: 'rejects includeTransactions with TRANSACTION_SHAPE_UNSPECIFIED with 400',
      api: 'ledger',
      operations: ['getUpdateByOffset'],
      requirements: ['ledger.get-update-by-offset.unspecified-shape-rejected'],
    },
    async (t) => {
      const { x } = await readOwnTransaction(t, 'TRANSACTION_SHAPE_UNSPECIFIED');
      t.expectStatus(x, 400);
    },
  );

  conformance(
    {
      id: 'ledger.get-update-by-offset.reassignments',
      title: 'answers the offsets of an unassignment and of its assignment, read with includeReassignments, with the reassignment; an update the format does not see with 404 UPDATE_NOT_FOUND',
      api: 'ledger',
      operations: ['getUpdateByOffset', 'submitAndWaitForReassignment'],
      features: ['multiSynchronizer'],
      requirements: ['ledger.get-update-by-offset.reassignment-returned', 'ledger.get-update-by-offset.invisible-not-found'],
    },
    async (t) => {
      const R = 'ledger.get-update-by-offset.reassignment-returned';
      const syncs = await connectedSynchronizers(t);
      if (syncs.length < 2) t.skip(`the participant is connected to ${syncs.length} synchronizer(s): reassignment needs two`);
      const [source, target] = [syncs[0]!, syncs[1]!];
      const s = await createSubmitter(t);
      const c = await submitCommands(t, s, [createCommand(templateFixture(t), s.party)], { synchronizerId: source });
      const created = c.x;
      if (created.status === 404 && routeNotServed(created)) t.skip('no submission endpoint is served: no contract to reassign');
      const cid = createdContractId(created.json);
      if (created.status !== 200 || cid === undefined) throw new FixtureError(`setup: creating a contract answered ${created.status}: ${created.text.slice(0, 300)}`);
      const formatFor = (party: string) => ({ filtersByParty: { [party]: WILDCARD }, verbose: true });
      // the moves are set-up (judged by the reassignment checks): an eventFormat, so that the unassignment names its reassignmentId (FACTS.md)
      const move = async (command: Record<string, unknown>, what: string): Promise<{ offset: unknown; events: Ev[] }> => {
        const x = await t.call('submitAndWaitForReassignment', {
          auth: { user: s.userId },
          json: reassignmentRequest({ commandId: t.uniqueName('reassign'), submitter: s.party, userId: s.userId, command: command as never }, formatFor(s.party)),
        });
        const offset = (x.json as { reassignment?: { offset?: unknown } } | undefined)?.reassignment?.offset;
        if (x.status !== 200 || offset === undefined || offset === null) throw new FixtureError(`setup: ${what} answered ${x.status}: ${x.text.slice(0, 300)}`);
        return { offset, events: eventsOf(x) };
      };
      const unassigned = await move({ UnassignCommand: { value: { contractId: cid, source, target } } }, 'the unassignment');
      const reassignmentId = unassigned.events.find((e) => e.kind !== 'JsAssignmentEvent' && typeof e.event.reassignmentId === 'string')?.event.reassignmentId as string | undefined;
      if (reassignmentId === undefined) throw new FixtureError('setup: the unassignment answered no unassign event with a reassignmentId');
      const assigned = await move({ AssignCommand: { value: { reassignmentId, source, target } } }, 'the assignment');

      /** Reads the update at `offset` as `user` through includeReassignments for `party`, or through `updateFormat` (skips where update-by-offset is not served). */
      const read = async (offset: unknown, party: string, user: string, updateFormat: Record<string, unknown> = { includeReassignments: formatFor(party) }) => {
        const x = await t.call('getUpdateByOffset', { auth: { user }, json: { offset, updateFormat } });
        if (routeNotServed(x)) t.skip(`update-by-offset answered ${x.status} without a JsCantonError: not served`);
        return x;
      };
      /** The reassignment of {update: {Reassignment: {value}}} and its events, unwrapped (in either wrapper form: the form is the reassignment checks' concern). */
      const reassignmentOf = (x: Exchange) => {
        const value = (x.json as { update?: { Reassignment?: { value?: unknown } } } | undefined)?.update?.Reassignment?.value;
        const events = isObj(value) && Array.isArray(value.events) ? value.events.map(unwrapEvent).filter((e): e is Ev => e !== undefined) : [];
        return { value: isObj(value) ? value : undefined, events };
      };
      const cases: Array<[string, unknown, (e: Ev) => boolean, string]> = [
        ['the unassignment', unassigned.offset, (e) => e.kind !== 'JsAssignmentEvent' && e.event.reassignmentId === reassignmentId, `an unassign event of reassignmentId ${reassignmentId}`],
        ['the assignment', assigned.offset, (e) => e.kind === 'JsAssignmentEvent' && isObj(e.event.createdEvent) && e.event.createdEvent.contractId === cid, `a JsAssignmentEvent carrying the created event of ${cid}`],
      ];
      for (const [what, offset, wanted, want] of cases) {
        const x = await read(offset, s.party, s.userId);
        await t.judge(R, () => {
          t.expectStatus(x, 200, { requirement: R, what: `reading ${what} at offset ${String(offset)} with includeReassignments for its submitter` });
          const { value, events } = reassignmentOf(x);
          t.expect(value !== undefined && String(value.offset) === String(offset), `${what} at offset ${String(offset)} is not answered as {update: {Reassignment: {value}}} of that offset: ${x.text.slice(0, 300)}`, { requirement: R, exchange: x });
          t.expect(events.some(wanted), `${what} read at offset ${String(offset)} holds no ${want}: ${events.map((e) => e.kind).join(', ') || 'no events'}`, { requirement: R, exchange: x });
        });
      }
      // updates the format sees nothing of: the unassignment and the creating transaction read for a party that is no
      // stakeholder of the contract, the unassignment read by its submitter asking for transactions only, and the
      // creating transaction read by its submitter asking for reassignments only
      const stranger = await createSubmitter(t, 'cc-stranger');
      const transactionsOnly = (party: string) => ({ includeTransactions: { eventFormat: formatFor(party), transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } });
      const unseen: Array<[string, Exchange]> = [
        ['the unassignment read with includeReassignments for a party that is no stakeholder of the contract', await read(unassigned.offset, stranger.party, stranger.userId)],
        ...(c.offset === undefined ? [] : [['the creating transaction read with includeTransactions for a party that is no stakeholder of the contract', await read(c.offset, stranger.party, stranger.userId, transactionsOnly(stranger.party))] as [string, Exchange]]),
        ['the unassignment read by its submitter with includeTransactions only', await read(unassigned.offset, s.party, s.userId, transactionsOnly(s.party))],
        ...(c.offset === undefined ? [] : [['the creating transaction read by its submitter with includeReassignments only', await read(c.offset, s.party, s.userId)] as [string, Exchange]]),
      ];
      const N = 'ledger.get-update-by-offset.invisible-not-found';
      for (const [what, y] of unseen) {
        await t.judge(N, () => {
          t.expectStatus(y, 404, { requirement: N, what });
          t.expect(errorCode(y) === 'UPDATE_NOT_FOUND', `${what}: error code ${String(errorCode(y))}`, { requirement: N, exchange: y });
        });
      }
    },
  );
});
