import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/http.js';
import { createSubmitter, createUser, templateFixture, type Submitter, type TemplateFixture } from '../../../harness/fixtures/ledger.js';
import { allocateParty, needUserTokens, right } from '../../../harness/fixtures/ledger-users.js';
import { createCommand as create, submitTree, treeServed } from '../shared.js';

const T = 'ledger.submit-and-wait-for-transaction-tree';

/** Submits commands as the submitter; stops the check as unsupported when the endpoint is not served from 3.5 on (see treeServed). */
async function submit(t: CheckContext, s: Submitter, commands: unknown[], auth: { user: string } = { user: s.userId }): Promise<Exchange> {
  const x = await submitTree(t, s, commands, auth);
  if (!treeServed(t, x)) t.unsupported('submit-and-wait-for-transaction-tree answers 404: not served (its removal is scheduled for 3.5.0)');
  return x;
}

/**
 * SPEC.md's Transaction tree: an offset (int64) and eventsById (a map). The names of the event kinds in that map and
 * the fields of its events are not shown, nor is any order of offsets across submissions.
 */
function expectTree(t: CheckContext, x: Exchange): void {
  t.expectStatus(x, 200, { requirement: `${T}.response-schema` });
  const tree = (x.json as { transactionTree?: { offset?: unknown; eventsById?: unknown } } | undefined)?.transactionTree;
  const byId = tree?.eventsById;
  t.expect(typeof byId === 'object' && byId !== null && !Array.isArray(byId), 'the response has no transactionTree with an eventsById map', { requirement: `${T}.response-schema`, exchange: x });
  t.expect(Number.isInteger(tree!.offset), 'the tree has no integer offset', { requirement: `${T}.response-schema`, exchange: x });
}
const createAndExercise = (tmpl: TemplateFixture, party: string) => ({
  CreateAndExerciseCommand: { templateId: tmpl.templateId, createArguments: tmpl.createArguments(party), choice: tmpl.choice, choiceArgument: tmpl.choiceArgument },
});

describe('POST /v2/commands/submit-and-wait-for-transaction-tree', () => {
  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.commands',
      title: 'answers create and create-and-exercise submissions with transaction trees carrying an eventsById map and an integer offset',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: [`${T}.response-schema`],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      expectTree(t, await submit(t, s, [create(tmpl, s.party)]));
      expectTree(t, await submit(t, s, [createAndExercise(tmpl, s.party)]));
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.served',
      title: 'still answers a valid submission with 200 before 3.5',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: ['ledger.versioning.transaction-tree-served'],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      t.expectStatus(await submit(t, s, [create(tmpl, s.party)]), 200);
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.invalid-commands',
      title: 'rejects no commands, and create or create-and-exercise commands missing a required field, with 400',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: [`${T}.empty-commands-rejected`, `${T}.create-command-fields-required`, `${T}.create-and-exercise-fields-required`],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      t.expectStatus(await submit(t, s, []), 400, { requirement: `${T}.empty-commands-rejected` });
      // every required field, each left out once (a handful of requests: no generation needed)
      for (const c of ['templateId', 'createArguments']) {
        const cc: Record<string, unknown> = { ...create(tmpl, s.party).CreateCommand };
        delete cc[c];
        t.expectStatus(await submit(t, s, [{ CreateCommand: cc }]), 400, { requirement: `${T}.create-command-fields-required`, what: `a CreateCommand without ${c}` });
      }
      for (const ce of ['templateId', 'createArguments', 'choice', 'choiceArgument']) {
        const ce2 = createAndExercise(tmpl, s.party).CreateAndExerciseCommand as Record<string, unknown>;
        delete ce2[ce];
        t.expectStatus(await submit(t, s, [{ CreateAndExerciseCommand: ce2 }]), 400, { requirement: `${T}.create-and-exercise-fields-required`, what: `a CreateAndExerciseCommand without ${ce}` });
      }
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.act-as',
      title: 'refuses a submission acting as a party the caller has no CanActAs right for with 403',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: ['ledger.auth.act-as-tree-submission'],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      const other = await createUser(t);
      t.expectStatus(await submit(t, s, [create(tmpl, s.party)], { user: other.id }), 403);
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.can-act-as',
      title: 'accepts a submission by a caller holding only CanActAs for the acting party',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: ['ledger.rights.can-act-as-submits'],
    },
    async (t) => {
      needUserTokens(t);
      const tmpl = templateFixture(t);
      const party = await allocateParty(t, 'cc-act-as');
      const actor = await createUser(t, { rights: [right.actAs(party)] });
      t.expectStatus(await submit(t, { party, userId: actor.id }, [create(tmpl, party)]), 200, { what: 'a create acting as the party, by a user holding only CanActAs for it' });
    },
  );
});
