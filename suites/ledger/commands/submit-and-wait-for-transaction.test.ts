import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { createSubmitter, routeNotServed, templateFixture } from '../../../harness/fixtures/ledger.js';
import { WILDCARD, createCommand, eventsOf, noteWrappers } from '../shared.js';

// The replacement of the tree submission (FACTS.md), which the suite's set-up steps use: its answer is judged here.
describe('POST /v2/commands/submit-and-wait-for-transaction', () => {
  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction.schema',
      title: "answers a valid submission with 200 and {transaction} holding the submitter's CreatedEvent",
      api: 'ledger',
      operations: ['submitAndWaitForTransaction'],
      requirements: ['ledger.submit-and-wait-for-transaction.response-schema'],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      const x = await t.call('submitAndWaitForTransaction', {
        auth: { user: s.userId },
        json: {
          commands: { commands: [createCommand(tmpl, s.party)], commandId: t.uniqueName('cmd'), userId: s.userId, actAs: [s.party], readAs: [] },
          transactionFormat: { eventFormat: { filtersByParty: { [s.party]: WILDCARD }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
        },
      });
      if (routeNotServed(x)) t.skip(`submit-and-wait-for-transaction answered ${x.status} without a JsCantonError: not served`);
      t.expectStatus(x, 200);
      // which wrapper form the events came in is information here (FACTS.md gives it; the lookups judge it as a SHOULD)
      noteWrappers(t, eventsOf(x), 'transaction');
      // the schema (run on every response) requires transaction; a created event must be there for the submitter
      const events = (x.json as { transaction?: { events?: unknown } } | undefined)?.transaction?.events;
      t.expect(Array.isArray(events) && events.some((e) => typeof e === 'object' && e !== null && 'CreatedEvent' in e), `the transaction shows the submitter no CreatedEvent: ${JSON.stringify(events)?.slice(0, 300)}`, { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction.without-format',
      title: 'answers a valid submission without transactionFormat (optional, FACTS.md) with 200 and {transaction}',
      api: 'ledger',
      operations: ['submitAndWaitForTransaction'],
      requirements: ['ledger.submit-and-wait-for-transaction.format-optional'],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      const x = await t.call('submitAndWaitForTransaction', {
        auth: { user: s.userId },
        json: { commands: { commands: [createCommand(tmpl, s.party)], commandId: t.uniqueName('cmd'), userId: s.userId, actAs: [s.party], readAs: [] } },
      });
      if (routeNotServed(x)) t.skip(`submit-and-wait-for-transaction answered ${x.status} without a JsCantonError: not served`);
      t.expectStatus(x, 200);
      // which events a participant shows without a format is not given: only the transaction itself is judged
      const tx = (x.json as { transaction?: unknown } | undefined)?.transaction;
      t.expect(typeof tx === 'object' && tx !== null && !Array.isArray(tx), `the answer carries no transaction: ${x.text.slice(0, 300)}`, { exchange: x });
    },
  );
});
