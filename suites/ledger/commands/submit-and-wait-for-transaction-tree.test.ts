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

function expectTree(t: CheckContext, x: Exchange, kinds: string[]): number {
  t.expectStatus(x, 200, { requirement: `${T}.response-schema` });
  const tree = (x.json as { transactionTree?: { offset?: unknown; eventsById?: Record<string, Record<string, { value?: { nodeId?: unknown } }>> } } | undefined)?.transactionTree;
  t.expect(tree !== undefined && typeof tree.eventsById === 'object' && tree.eventsById !== null, 'the response has no transactionTree.eventsById', { requirement: `${T}.response-schema`, exchange: x });
  const seen: string[] = [];
  for (const [id, e] of Object.entries(tree!.eventsById!)) {
    const keys = Object.keys(e);
    t.expect(keys.length === 1 && ['CreatedTreeEvent', 'ExercisedTreeEvent'].includes(keys[0]!), `eventsById[${id}] is not one CreatedTreeEvent or ExercisedTreeEvent`, { requirement: `${T}.response-schema`, exchange: x });
    t.expect(String(e[keys[0]!]!.value?.nodeId) === id, `eventsById[${id}] carries nodeId ${String(e[keys[0]!]!.value?.nodeId)}`, { requirement: `${T}.response-schema`, exchange: x });
    seen.push(keys[0]!);
  }
  for (const k of kinds) t.expect(seen.includes(k), `the tree has no ${k}`, { requirement: `${T}.response-schema`, exchange: x });
  t.expect(Number.isInteger(tree!.offset), 'the tree has no integer offset', { requirement: `${T}.response-schema`, exchange: x });
  return tree!.offset as number;
}

const createAndExercise = (tmpl: TemplateFixture, party: string) => ({
  CreateAndExerciseCommand: { templateId: tmpl.templateId, createArguments: tmpl.createArguments(party), choice: tmpl.choice, choiceArgument: tmpl.choiceArgument },
});

describe('POST /v2/commands/submit-and-wait-for-transaction-tree', () => {
  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.commands',
      title: 'answers create and create-and-exercise submissions with trees whose eventsById are keyed by node id, at increasing offsets',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: [`${T}.response-schema`],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      const o1 = expectTree(t, await submit(t, s, [create(tmpl, s.party)]), ['CreatedTreeEvent']);
      const o2 = expectTree(t, await submit(t, s, [createAndExercise(tmpl, s.party)]), ['CreatedTreeEvent', 'ExercisedTreeEvent']);
      t.expect(o2 > o1, `the second submission's offset ${o2} is not above the first's ${o1}`);
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
