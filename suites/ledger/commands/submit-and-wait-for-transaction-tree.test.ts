import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { expectRejected, judgeBadRequests, judgeRejection } from '../../rejections.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { FixtureError, createSubmitter, createUser, createdContractId, templateFixture, type Submitter, type TemplateFixture } from '../../../harness/fixtures/ledger.js';
import { allocateParty, needUserTokens, right } from '../../../harness/fixtures/ledger-users.js';
import { createCommand as create, judgeThat, submitTree, treeEventsOf, treeServed, noteWrappers, wrapperProblems } from '../shared.js';

const T = 'ledger.submit-and-wait-for-transaction-tree';

/** Submits commands as the submitter; stops the check as unsupported when the endpoint is not served from 3.5 on (see treeServed). */
async function submit(t: CheckContext, s: Submitter, commands: unknown[], auth: { user: string } = { user: s.userId }): Promise<Exchange> {
  const x = await submitTree(t, s, commands, auth);
  if (!treeServed(t, x)) t.unsupported('submit-and-wait-for-transaction-tree answers 404: not served (its removal is scheduled for 3.5.0)');
  return x;
}

/** FACTS.md: a transaction tree has these, present and not null, in real responses (the strings as strings). */
const TREE_STRINGS = ['updateId', 'effectiveAt', 'synchronizerId', 'recordTime'];

/**
 * SPEC.md's Transaction tree: an offset (int64) and eventsById (a map), without required flags (response-schema judges
 * their types where present); FACTS.md: updateId, effectiveAt, offset, eventsById, synchronizerId and recordTime are
 * always there (required-fields, a SHOULD), and each eventsById entry is `{CreatedTreeEvent: {value}}` or
 * `{ExercisedTreeEvent: {value}}` (event-wrappers, judged on its own). No order of offsets across submissions is shown.
 */
async function expectTree(t: CheckContext, x: Exchange, what: string): Promise<void> {
  const schema = `${T}.response-schema`;
  if (!(await t.judge(schema, () => t.expectStatus(x, 200, { requirement: schema, what })))) return;
  const tree = (x.json as { transactionTree?: Record<string, unknown> } | undefined)?.transactionTree;
  const byId = tree?.eventsById;
  await t.judge(schema, () => {
    t.expect(typeof tree === 'object' && tree !== null && !Array.isArray(tree), `${what}: the response has no transactionTree`, { requirement: schema, exchange: x });
    t.expect(byId === undefined || byId === null || (typeof byId === 'object' && !Array.isArray(byId)), `${what}: the tree's eventsById is no map (${JSON.stringify(byId)?.slice(0, 100)})`, { requirement: schema, exchange: x });
    t.expect(tree!.offset === undefined || tree!.offset === null || Number.isInteger(tree!.offset), `${what}: the tree's offset is no integer (${JSON.stringify(tree!.offset)})`, { requirement: schema, exchange: x });
  });
  await t.judge(`${T}.required-fields`, () => {
    t.expect(typeof byId === 'object' && byId !== null && !Array.isArray(byId), `${what}: the tree has no eventsById map (${JSON.stringify(byId) ?? 'absent'})`, { requirement: `${T}.required-fields`, exchange: x });
    t.expect(Number.isInteger(tree?.offset), `${what}: the tree has no integer offset (${JSON.stringify(tree?.offset) ?? 'absent'})`, { requirement: `${T}.required-fields`, exchange: x });
    const bad = TREE_STRINGS.filter((f) => typeof tree?.[f] !== 'string');
    t.expect(bad.length === 0, `${what}: the tree's ${bad.map((f) => `${f} is ${JSON.stringify(tree?.[f]) ?? 'absent'}`).join(', ')}, not a string`, { requirement: `${T}.required-fields`, exchange: x });
  });
  const evs = treeEventsOf(x);
  if (evs.length === 0) {
    t.notObserved(`${T}.event-wrappers`, `${what}: the tree has no events to look at`);
    return;
  }
  noteWrappers(t, evs, 'tree');
  const problems = wrapperProblems(evs, 'tree');
  const forms = [...new Set(evs.map((e) => `${e.kind}/${e.form}`))].join(', ');
  await judgeThat(t, `${T}.event-wrappers`, problems.length === 0, `${what}: ${problems.join('; ')} (seen: ${forms})`, x);
}
const createAndExercise = (tmpl: TemplateFixture, party: string) => ({
  CreateAndExerciseCommand: { templateId: tmpl.templateId, createArguments: tmpl.createArguments(party), choice: tmpl.choice, choiceArgument: tmpl.choiceArgument },
});

const BAD_REQUEST = 'ledger.errors.bad-request-400';

describe('POST /v2/commands/submit-and-wait-for-transaction-tree', () => {
  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.commands',
      title: 'answers create and create-and-exercise submissions with transaction trees carrying their required fields and eventsById entries under {Kind: {value}}',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: [`${T}.response-schema`, `${T}.required-fields`, `${T}.event-wrappers`, 'ledger.events.exercised-required-fields'],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      await expectTree(t, await submit(t, s, [create(tmpl, s.party)]), 'a create');
      await expectTree(t, await submit(t, s, [createAndExercise(tmpl, s.party)]), 'a create-and-exercise');
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
      title: 'rejects no commands, and create or create-and-exercise commands missing a required field, with a 4xx, 400 as FACTS.md gives',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: [`${T}.empty-commands-rejected`, `${T}.create-command-fields-required`, `${T}.create-and-exercise-fields-required`, BAD_REQUEST],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      // the first request is made outside any judge block: an endpoint that is not served ends the whole check
      const empty = await submit(t, s, []);
      // the MUSTs are 4xx rejections (SPEC.md); the exact 400 (FACTS.md) is the SHOULD ledger.errors.bad-request-400
      const seen: Array<{ x: Exchange; what: string }> = [];
      await judgeRejection(t, empty, { requirement: `${T}.empty-commands-rejected`, badRequest: BAD_REQUEST, what: 'a submission with no commands', deferBadRequest: seen });
      // FACTS.md: a participant decodes a missing field as its empty default ({} for an argument) and may accept the
      // request when that default is valid: an argument is left out only when {} is not a valid one (the fixture's is
      // not empty, so the template or choice takes fields)
      const nonEmpty = (v: unknown) => typeof v !== 'object' || v === null || Array.isArray(v) || Object.keys(v).length > 0;
      // every other required field, each left out once (a handful of requests: no generation needed)
      await t.judge(`${T}.create-command-fields-required`, async () => {
        const fields = nonEmpty(tmpl.createArguments(s.party)) ? ['templateId', 'createArguments'] : ['templateId'];
        for (const c of fields) {
          const cc: Record<string, unknown> = { ...create(tmpl, s.party).CreateCommand };
          delete cc[c];
          const x = await submit(t, s, [{ CreateCommand: cc }]);
          expectRejected(t, x, { requirement: `${T}.create-command-fields-required`, what: `a CreateCommand without ${c}` });
          seen.push({ x, what: `a CreateCommand without ${c}` });
        }
      });
      await t.judge(`${T}.create-and-exercise-fields-required`, async () => {
        const fields = ['templateId', 'createArguments', 'choice', 'choiceArgument'].filter(
          (f) => (f !== 'createArguments' || nonEmpty(tmpl.createArguments(s.party))) && (f !== 'choiceArgument' || nonEmpty(tmpl.choiceArgument)),
        );
        for (const ce of fields) {
          const ce2 = createAndExercise(tmpl, s.party).CreateAndExerciseCommand as Record<string, unknown>;
          delete ce2[ce];
          const x = await submit(t, s, [{ CreateAndExerciseCommand: ce2 }]);
          expectRejected(t, x, { requirement: `${T}.create-and-exercise-fields-required`, what: `a CreateAndExerciseCommand without ${ce}` });
          seen.push({ x, what: `a CreateAndExerciseCommand without ${ce}` });
        }
      });
      await judgeBadRequests(t, BAD_REQUEST, seen);
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.act-as',
      title: 'refuses a submission acting as a party the caller has no CanActAs right for with a 4xx, 403 as FACTS.md gives',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: ['ledger.auth.act-as-tree-submission', 'ledger.auth.permission-denied-403'],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      const other = await createUser(t);
      const x = await submit(t, s, [create(tmpl, s.party)], { user: other.id });
      await judgeRejection(t, x, { requirement: 'ledger.auth.act-as-tree-submission', badRequest: 'ledger.auth.permission-denied-403', statuses: [403], what: 'a submission without CanActAs for its actAs party' });
      // a caller holding CanActAs and CanReadAs, but for a party of its own: a right is for its party only
      const own = await allocateParty(t, 'cc-own-party');
      const stranger = await createUser(t, { rights: [right.actAs(own), right.readAs(own)] });
      const y = await submit(t, s, [create(tmpl, s.party)], { user: stranger.id });
      await judgeRejection(t, y, { requirement: 'ledger.auth.act-as-tree-submission', badRequest: 'ledger.auth.permission-denied-403', statuses: [403], what: 'a submission by a caller holding CanActAs only for another party' });
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.archived-contract',
      title: 'answers an exercise of a contract it has archived without a 5xx',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: ['ledger.http.no-server-error'],
    },
    async (t) => {
      // the exchanges are judged by the generic rules (no 5xx); SPEC.md does not say how a participant refuses it
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      const created = await submit(t, s, [create(tmpl, s.party)]);
      t.expectStatus(created, 200, { what: 'a create to archive' });
      const cid = createdContractId(created.json);
      if (cid === undefined) throw new FixtureError('setup: the create returned no created event');
      const exercise = { ExerciseCommand: { templateId: tmpl.templateId, contractId: cid, choice: tmpl.choice, choiceArgument: tmpl.choiceArgument } };
      t.expectStatus(await submit(t, s, [exercise]), 200, { what: `the fixture's consuming choice ${tmpl.choice} on the contract` });
      // the endpoint answered twice: a 404 now is about the contract, not the route (submitTree, not submit)
      await submitTree(t, s, [exercise]);
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.unknown-templates',
      title: 'answers commands naming a package the participant does not have, and an ExerciseByKeyCommand, without a 5xx',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: ['ledger.http.no-server-error'],
    },
    async (t) => {
      // the exchanges are judged by the generic rules (no 5xx): SPEC.md allows both reference forms of a template id
      // (package name or package id, the latter deprecated) and lists ExerciseByKeyCommand without its fields, so how a
      // participant refuses (or, for the deprecated form, whether it still resolves ids) is not judged
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      const valid = await submit(t, s, [create(tmpl, s.party)]);
      t.expectStatus(valid, 200, { what: 'a create of the fixture template' });
      const qualified = tmpl.templateId.slice(tmpl.templateId.indexOf(':'));
      // the same module and entity in a package that exists nowhere, by id and by name
      const unknown = [`${'cd'.repeat(32)}${qualified}`, `#cc-no-such-package${qualified}`];
      for (const templateId of unknown) {
        await submitTree(t, s, [{ CreateCommand: { templateId, createArguments: tmpl.createArguments(s.party) } }]);
        await submitTree(t, s, [{ CreateAndExerciseCommand: { templateId, createArguments: tmpl.createArguments(s.party), choice: tmpl.choice, choiceArgument: tmpl.choiceArgument } }]);
      }
      // an exercise by key of the fixture template, with a key no contract has (the fields besides templateId follow the
      // JSON ledger API: contractKey, choice, choiceArgument)
      await submitTree(t, s, [{ ExerciseByKeyCommand: { templateId: tmpl.templateId, contractKey: { cc: t.uniqueName('no-such-key') }, choice: tmpl.choice, choiceArgument: tmpl.choiceArgument } }]);
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-transaction-tree.empty-act-as',
      title: 'refuses a submission with an empty actAs (acting for no party) with 403 or 400, never commits it',
      api: 'ledger',
      operations: ['submitAndWaitForTransactionTree'],
      requirements: ['ledger.auth.empty-act-as-refused'],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      // a user who may act as the party: the request lacks nothing but its acting parties
      const x = await t.call('submitAndWaitForTransactionTree', { auth: { user: s.userId }, json: { commands: [create(tmpl, s.party)], commandId: t.uniqueName('cmd'), userId: s.userId, actAs: [] } });
      if (!treeServed(t, x)) t.unsupported('submit-and-wait-for-transaction-tree answers 404: not served (its removal is scheduled for 3.5.0)');
      // FACTS.md: checked against the token's rights as acting for no party (403), or refused by validation (400)
      await judgeRejection(t, x, { requirement: 'ledger.auth.empty-act-as-refused', badRequest: 'ledger.auth.empty-act-as-refused', statuses: [400, 403], what: 'a submission with actAs []' });
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
