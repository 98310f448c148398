import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { FixtureError, createSubmitter, routeNotServed, submitCommands, templateFixture } from '../../../harness/fixtures/ledger.js';
import { WILDCARD, createCommand } from '../shared.js';

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
});
