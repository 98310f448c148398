import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { expectRejected, judgeBadRequests, judgeRejection, separateCases } from '../../rejections.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { LEDGER_GRPC_STATUS } from '../../../harness/judging/checks.js';
import { FixtureError, connectedSynchronizers, createSubmitter, createUser, createdContractId, routeNotServed, submitCreate, templateFixture, type Submitter } from '../../../harness/fixtures/ledger.js';
import { allocateParty, grantRights, needUserTokens, right } from '../../../harness/fixtures/ledger-users.js';
import { moves, reassignmentRequest, type Move } from '../../../generators/ledger/reassignment.js';
import { WILDCARD, eventOf, eventsOf, isObj, judgeThat, present, noteWrappers, wrapperProblems, type Ev } from '../shared.js';

const S = 'ledger.submit-and-wait-for-reassignment';
const MULTI = { features: ['multiSynchronizer'] };

interface World {
  s: Submitter;
  syncs: [string, string];
  /** creates a contract on the first synchronizer and returns its id */
  create(): Promise<string>;
}

async function world(t: CheckContext): Promise<World> {
  const syncs = await connectedSynchronizers(t);
  if (syncs.length < 2) t.skip(`the participant is connected to ${syncs.length} synchronizer(s): reassignment needs two`);
  const tmpl = templateFixture(t);
  const s = await createSubmitter(t);
  return {
    s,
    syncs: [syncs[0]!, syncs[1]!],
    async create() {
      const x = await submitCreate(t, s, tmpl, syncs[0]);
      if (x.status === 404) t.skip('submit-and-wait-for-transaction-tree is not served: no contract to reassign');
      const cid = createdContractId(x.json);
      if (x.status !== 200 || cid === undefined) throw new FixtureError(`setup: creating a contract answered ${x.status}: ${x.text.slice(0, 300)}`);
      return cid;
    },
  };
}

const formatFor = (party: string) => ({ filtersByParty: { [party]: WILDCARD }, verbose: true });

async function reassign(t: CheckContext, w: World, command: Record<string, unknown>, m: Partial<Move> & { commandId?: string } = {}, auth?: { user: string }): Promise<Exchange> {
  const user = auth?.user ?? w.s.userId;
  return t.call('submitAndWaitForReassignment', {
    auth: { user },
    json: reassignmentRequest(
      {
        commandId: m.commandId ?? t.uniqueName('reassign'),
        submitter: w.s.party,
        ...(m.omitUserId === true ? {} : { userId: user }),
        ...(m.omitOptional === true ? {} : { workflowId: t.uniqueName('wf'), submissionId: t.uniqueName('sub') }),
        command: command as never,
      },
      m.withFormat === false ? undefined : formatFor(w.s.party),
    ),
  });
}

type Obj = Record<string, unknown>;

/**
 * The unassign event of an unassignment response. FACTS.md: `{JsUnassignedEvent: {value: {...}}}`; SPEC.md does not
 * show unassignment events, so the event is read in either form (see eventsOf) and, failing a JsUnassignedEvent, from
 * any kind but an assignment that carries a reassignmentId (the form is judged by event-wrappers).
 */
function unassignEventOf(x: Exchange): Ev | undefined {
  const evs = eventsOf(x).filter((e) => typeof e.event.reassignmentId === 'string');
  return evs.find((e) => e.kind === 'JsUnassignedEvent') ?? evs.find((e) => e.kind !== 'JsAssignmentEvent');
}

/** What a response's events looked like, for messages: kind and form of each. */
const seen = (x: Exchange) => eventsOf(x).map((e) => `${e.kind} (${e.form === 'value' ? 'under value' : 'fields directly under the key'})`).join(', ') || 'no events';

/** FACTS.md: present and not null in real responses (SPEC.md names the fields without required flags: a SHOULD). */
const REASSIGNMENT_REQUIRED = ['updateId', 'offset', 'recordTime', 'synchronizerId', 'events'];
const ASSIGNMENT_REQUIRED = ['source', 'target', 'reassignmentId', 'submitter', 'reassignmentCounter'];

/** What the wrappers of the events of the answers so far showed: the first answer with a problem, and how many were seen. */
interface Wrappers {
  answers: number;
  problem?: { message: string; x: Exchange };
}

/**
 * Judges a 200 reassignment answer: a reassignment whose offset and events, where present, are an integer and a list
 * (SPEC.md, response-schema), the fields FACTS.md says a reassignment and an assignment event always carry
 * (required-fields, a SHOULD; the assignment's created event is SPEC.md's, assign-carries-created-event), and notes the wrappers of its events in `wrappers` (event-wrappers, judged by judgeWrappers
 * after the property, so that a wrong wrapper does not cut the sequences short that judge the other rules). With the
 * commandId the submission sent, also the echo fields: the reassignment's commandId is the submitted one, and every
 * offset its events carry (an unassign event's, an assign event's created event's) is the reassignment's own.
 */
async function judgeReassignment(t: CheckContext, x: Exchange, what: string, wrappers: Wrappers, commandId?: string): Promise<void> {
  const r = (x.json as { reassignment?: Obj } | undefined)?.reassignment;
  const typed = isObj(r) && (!present(r.offset) || Number.isInteger(r.offset)) && (!present(r.events) || Array.isArray(r.events));
  await judgeThat(t, `${S}.response-schema`, typed, isObj(r) ? `${what}: the reassignment's offset or events is not an integer and a list` : `${what}: the response has no reassignment`, x);
  const missing = REASSIGNMENT_REQUIRED.filter((f) => !present(r?.[f]));
  await judgeThat(t, `${S}.required-fields`, missing.length === 0, `${what}: the reassignment lacks ${missing.join(', ')} (absent or null)`, x);
  if (commandId !== undefined) {
    await judgeThat(t, `${S}.command-id-echoed`, r?.commandId === commandId, `${what}: the reassignment carries commandId ${JSON.stringify(r?.commandId)}, the submission sent ${commandId}`, x);
  }
  if (present(r?.offset)) {
    // an int64 may come as a decimal string: compared as text; an event without an offset is the schema's concern
    const offsets = eventsOf(x).flatMap((e) => [
      ...(present(e.event.offset) ? [{ kind: e.kind, offset: e.event.offset }] : []),
      ...(isObj(e.event.createdEvent) && present(e.event.createdEvent.offset) ? [{ kind: `${e.kind}'s createdEvent`, offset: e.event.createdEvent.offset }] : []),
    ]);
    const other = offsets.find((o) => String(o.offset) !== String(r!.offset));
    await judgeThat(t, 'ledger.events.offset-of-update', other === undefined, `${what}: the ${other?.kind} carries offset ${String(other?.offset)}, the reassignment ${String(r!.offset)}`, x);
  }
  for (const a of eventsOf(x).filter((e) => e.kind === 'JsAssignmentEvent')) {
    const lacking = ASSIGNMENT_REQUIRED.filter((f) => !present(a.event[f]));
    await judgeThat(t, `${S}.required-fields`, lacking.length === 0, `${what}: an assignment event lacks ${lacking.join(', ')} (absent or null)`, x);
  }
  // an answer without events (none asked for) shows no wrapper
  if (eventsOf(x).length === 0) return;
  wrappers.answers += 1;
  noteWrappers(t, eventsOf(x), 'reassignment');
  const problems = wrapperProblems(eventsOf(x), 'reassignment');
  if (problems.length > 0) wrappers.problem ??= { message: `${what}: ${problems.join('; ')}`, x };
}

/** Judges event-wrappers on what the answers showed (see judgeReassignment). */
async function judgeWrappers(t: CheckContext, wrappers: Wrappers): Promise<void> {
  await t.judge(`${S}.event-wrappers`, () => {
    if (wrappers.answers === 0) t.skip('no reassignment answer carried events');
    const p = wrappers.problem;
    if (p !== undefined) t.fail(p.message, { requirement: `${S}.event-wrappers`, exchange: p.x });
  });
}

async function expectCantonError(t: CheckContext, x: Exchange, requirement: string): Promise<void> {
  const j = x.json as { code?: unknown; cause?: unknown; grpcCodeValue?: unknown } | undefined;
  await t.judge(requirement, () => {
    t.expect(x.status >= 400 && x.status < 500, `expected a 4xx status, got ${x.status}`, { requirement, exchange: x });
    t.expect(typeof j?.code === 'string' && typeof j.cause === 'string', 'the error body is not a JsCantonError', { requirement, exchange: x });
  });
  // grpcCodeValue may be null (FACTS.md): then there is no code to map
  const mapped = typeof j?.grpcCodeValue === 'number' ? LEDGER_GRPC_STATUS[j.grpcCodeValue] : undefined;
  if (mapped !== undefined) {
    await judgeThat(t, `${S}.error-propagated`, mapped.status === x.status, `gRPC code ${String(j!.grpcCodeValue)} is answered ${x.status}, not ${mapped.status}`, x);
  }
}

const BAD_REQUEST = 'ledger.errors.bad-request-400';

describe('POST /v2/commands/submit-and-wait-for-reassignment', () => {
  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.counters',
      title: 'moves a contract back and forth with counters 0 at creation, +1 per unassignment, equal on the assignment',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment'],
      ...MULTI,
      requirements: [
        `${S}.counter-increments`,
        `${S}.response-schema`,
        `${S}.required-fields`,
        `${S}.unassign-then-assign`,
        `${S}.assign-event-matches-command`,
        `${S}.unassign-event-with-format`,
        `${S}.event-wrappers`,
        `${S}.optional-fields-omittable`,
        `${S}.user-id-from-token`,
        `${S}.command-id-echoed`,
        'ledger.events.assign-carries-created-event',
        'ledger.events.offset-of-update',
      ],
    },
    async (t) => {
      const w = await world(t);
      const wrappers: Wrappers = { answers: 0 };
      try {
        await t.property(
          moves(),
          async (ms) => {
            const cid = await w.create();
            // the contract's reassignment counter (0 at creation) and the synchronizer it is on
            let counter = 0;
            let on = 0;
            for (const [i, m] of ms.entries()) {
              const [source, target] = [w.syncs[on]!, w.syncs[1 - on]!];
              const rule = m.omitUserId ? `${S}.user-id-from-token` : m.omitOptional ? `${S}.optional-fields-omittable` : i > 0 ? `${S}.unassign-then-assign` : `${S}.response-schema`;
              // each step judges its own requirements; a step the next one needs (an accepted unassignment, the id it
              // answers) ends the sequence when it fails, as the contract is then not where the next step expects it
              // the unassignment always asks for events: its reassignmentId is needed to assign
              const [uc, ac] = [t.uniqueName('unassign'), t.uniqueName('assign')];
              const u = await reassign(t, w, { UnassignCommand: { value: { contractId: cid, source, target } } }, { ...m, withFormat: true, commandId: uc });
              if (!(await t.judge(rule, () => t.expectStatus(u, 200, { requirement: rule, what: `unassignment ${i + 1} from ${source}` })))) return;
              await judgeReassignment(t, u, `unassignment ${i + 1}`, wrappers, uc);
              const ue = unassignEventOf(u);
              const withId = await judgeThat(t, `${S}.unassign-event-with-format`, ue !== undefined,
                `unassignment ${i + 1}: with an eventFormat covering the submitter, no event carries a reassignmentId (events: ${seen(u)})`, u);
              if (!withId) return;
              const a = await reassign(t, w, { AssignCommand: { value: { reassignmentId: ue!.event.reassignmentId, source, target } } }, { ...m, commandId: ac });
              if (!(await t.judge(rule, () => t.expectStatus(a, 200, { requirement: rule, what: `assignment ${i + 1} to ${target}` })))) return;
              await judgeReassignment(t, a, `assignment ${i + 1}`, wrappers, ac);
              const before = counter;
              counter += 1;
              on = 1 - on;
              // without an eventFormat the answer may carry no events (a MAY rule): nothing more to compare
              if (!m.withFormat) continue;
              const ae = eventOf(eventsOf(a), 'JsAssignmentEvent');
              await judgeThat(t, `${S}.assign-event-matches-command`, ae !== undefined, `assignment ${i + 1} answered no JsAssignmentEvent (events: ${seen(a)})`, a);
              if (ae === undefined) continue;
              await judgeThat(t, `${S}.assign-event-matches-command`, ae.source === source && ae.target === target && ae.reassignmentId === ue!.event.reassignmentId && ae.submitter === w.s.party,
                `the assign event says ${String(ae.source)} -> ${String(ae.target)}, id ${String(ae.reassignmentId)}, submitter ${String(ae.submitter)}`, a);
              await judgeThat(t, `${S}.counter-increments`, ae.reassignmentCounter === before + 1, `assignment ${i + 1}: counter ${String(ae.reassignmentCounter)}, the contract's before its unassignment ${before}`, a);
              const created = ae.createdEvent as Obj | undefined | null;
              await judgeThat(t, 'ledger.events.assign-carries-created-event', typeof created === 'object' && created !== null && created.contractId === cid, 'the assign event does not carry the created event of the contract', a);
            }
          },
          { runs: t.scaledRuns(8), concurrent: true },
        );
      } finally {
        await judgeWrappers(t, wrappers);
      }
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.event-format',
      title: 'answers with the events the submitted eventFormat selects',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment'],
      ...MULTI,
      requirements: [`${S}.event-format-applied`],
    },
    async (t) => {
      const w = await world(t);
      const cid = await w.create();
      // an eventFormat that selects nothing: a wildcard for a fresh party, no stakeholder of the contract, that the
      // submitting user may read as (a filter's parties need read rights)
      const bystander = await allocateParty(t, 'cc-bystander');
      const g = await grantRights(t, w.s.userId, [right.readAs(bystander)]);
      if (g.status !== 200) throw new FixtureError(`setup: granting CanReadAs for ${bystander} answered ${g.status}: ${g.text.slice(0, 300)}`);
      const x = await t.call('submitAndWaitForReassignment', {
        auth: { user: w.s.userId },
        json: reassignmentRequest({ commandId: t.uniqueName('reassign'), submitter: w.s.party, userId: w.s.userId, command: { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: w.syncs[1] } } } }, formatFor(bystander)),
      });
      t.expectStatus(x, 200);
      t.expect(eventsOf(x).length === 0, `an eventFormat for ${bystander} only, no stakeholder of the unassigned contract, returned events`, { exchange: x });
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.failures',
      title: 'fails an unknown contract, a wrong source, a target that is unknown or the source itself, and an unknown or completed reassignment id with 4xx JsCantonErrors under the mapped status',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment'],
      ...MULTI,
      requirements: [`${S}.unknown-contract-rejected`, `${S}.wrong-source-rejected`, `${S}.unknown-target-rejected`, `${S}.same-synchronizer-rejected`, `${S}.unknown-reassignment-id-rejected`, `${S}.assign-event-matches-command`, `${S}.error-propagated`],
    },
    async (t) => {
      const w = await world(t);
      const cid = await w.create();
      const unknownCid = `00${'cc'.repeat(33)}`;
      // three independent requests, each judged on its own requirement (and on error-propagated)
      await expectCantonError(t, await reassign(t, w, { UnassignCommand: { value: { contractId: unknownCid, source: w.syncs[0], target: w.syncs[1] } } }), `${S}.unknown-contract-rejected`);
      await expectCantonError(t, await reassign(t, w, { UnassignCommand: { value: { contractId: cid, source: w.syncs[1], target: w.syncs[0] } } }), `${S}.wrong-source-rejected`);
      await expectCantonError(t, await reassign(t, w, { AssignCommand: { value: { reassignmentId: `00${'dd'.repeat(33)}`, source: w.syncs[0], target: w.syncs[1] } } }), `${S}.unknown-reassignment-id-rejected`);
      // no valid target: a well-formed synchronizer id the participant is not connected to, and the contract's own one
      const unknownSync = `cc-no-such-synchronizer::1220${'ab'.repeat(32)}`;
      await expectCantonError(t, await reassign(t, w, { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: unknownSync } } }), `${S}.unknown-target-rejected`);
      await expectCantonError(t, await reassign(t, w, { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: w.syncs[0] } } }), `${S}.same-synchronizer-rejected`);
      // the same in a batch: its second unassignment's target is its own source, the first one's is valid
      const other = await w.create();
      const batch = await t.call('submitAndWaitForReassignment', {
        auth: { user: w.s.userId },
        json: {
          reassignmentCommands: {
            commandId: t.uniqueName('batch'),
            submitter: w.s.party,
            userId: w.s.userId,
            commands: [
              { command: { UnassignCommand: { value: { contractId: other, source: w.syncs[0], target: w.syncs[1] } } } },
              { command: { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: w.syncs[0] } } } },
            ],
          },
        },
      });
      await expectCantonError(t, batch, `${S}.same-synchronizer-rejected`);
      // a completed move's reassignmentId names no pending unassignment any more: assigning it again fails
      const moved = await w.create();
      const u = await reassign(t, w, { UnassignCommand: { value: { contractId: moved, source: w.syncs[0], target: w.syncs[1] } } });
      const ue = u.status === 200 ? unassignEventOf(u) : undefined;
      const assign = ue !== undefined && typeof ue.event.reassignmentId === 'string' ? { AssignCommand: { value: { reassignmentId: ue.event.reassignmentId, source: w.syncs[0], target: w.syncs[1] } } } : undefined;
      if (assign !== undefined) {
        // an assignment naming the synchronizers the other way round: refused, or, if accepted, its event says what it did
        const swapped = await reassign(t, w, { AssignCommand: { value: { reassignmentId: assign.AssignCommand.value.reassignmentId, source: w.syncs[1], target: w.syncs[0] } } });
        if (swapped.status >= 200 && swapped.status < 300) {
          const se = eventOf(eventsOf(swapped), 'JsAssignmentEvent');
          await judgeThat(t, `${S}.assign-event-matches-command`, se !== undefined && se.source === w.syncs[1] && se.target === w.syncs[0],
            `an assignment naming ${w.syncs[1]} -> ${w.syncs[0]}, the other way round from its unassignment, was accepted with an assign event saying ${String(se?.source)} -> ${String(se?.target)}`, swapped);
        }
      }
      const a = assign !== undefined ? await reassign(t, w, assign) : undefined;
      if (assign === undefined || a?.status !== 200) {
        t.note(`set-up: moving contract ${moved} to ${w.syncs[1]} answered ${u.status}${a !== undefined ? ` and ${a.status}` : ' without a reassignmentId'}: no completed reassignment to assign again`);
      } else {
        await expectCantonError(t, await reassign(t, w, assign), `${S}.unknown-reassignment-id-rejected`);
      }
      t.notObserved(`${S}.error-propagated`, 'no error answer carried a grpcCodeValue (it may be null) to map to a status');
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.missing-fields',
      title: 'rejects a reassignment missing a required field (the commands, the command id, the submitter, a field of an assign or unassign command) with a 4xx, 400 as FACTS.md gives',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment'],
      ...MULTI,
      requirements: [`${S}.required-fields-rejected`, BAD_REQUEST],
    },
    async (t) => {
      // each case leaves one field out of a request that is otherwise accepted (an unassignment of a fresh contract,
      // an assignment of a pending one), and whose empty default ("", {}) is invalid, so a 4xx is about that field alone
      // (FACTS.md: a lenient participant fills the default and fails validation; either body is kept)
      const w = await world(t);
      const cid = await w.create();
      const user = w.s.userId;
      const base = (command: Record<string, unknown>) => ({ commandId: t.uniqueName('reassign'), submitter: w.s.party, userId: user, commands: [{ command }] });
      const unassign = { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: w.syncs[1] } } };
      const without = (o: Record<string, unknown>, k: string) => Object.fromEntries(Object.entries(o).filter(([key]) => key !== k));
      // FACTS.md: authorization runs before validation, and a command without its acting party is checked as acting for
      // no party: refused 403 before the body is read. A missing field that authorization reads is rejected with 400 or
      // 403, the others with 400; each case is decided on its own, so one that cannot be decided keeps the others
      const seen: Array<{ x: Exchange; what: string }> = [];
      const seenByAuthorization: Array<{ x: Exchange; what: string }> = [];
      const READ_BY_AUTHORIZATION = new Set(['reassignmentCommands', 'submitter']);
      const cases = separateCases(t);
      const send = (json: unknown, what: string, field: string) =>
        cases.run(`a reassignment without ${what}`, async () => {
          const x = await t.call('submitAndWaitForReassignment', { auth: { user }, json });
          const byAuthorization = READ_BY_AUTHORIZATION.has(field);
          await judgeRejection(t, x, {
            requirement: `${S}.required-fields-rejected`,
            badRequest: BAD_REQUEST,
            what: `a reassignment without ${what}`,
            deferBadRequest: byAuthorization ? seenByAuthorization : seen,
            ...(byAuthorization ? { statuses: [400, 403] } : {}),
          });
        });
      await send({ eventFormat: formatFor(w.s.party) }, 'reassignmentCommands', 'reassignmentCommands');
      // FACTS.md: a participant reads a missing string as "", so a field sent as "" is rejected as a missing one is
      const emptied = (o: Record<string, unknown>, k: string) => ({ ...o, [k]: '' });
      for (const field of ['commandId', 'submitter']) {
        await send({ reassignmentCommands: without(base(unassign), field), eventFormat: formatFor(w.s.party) }, field, field);
        await send({ reassignmentCommands: emptied(base(unassign), field), eventFormat: formatFor(w.s.party) }, `${field} (sent as "")`, field);
      }
      for (const field of ['contractId', 'source', 'target']) {
        await send({ reassignmentCommands: base({ UnassignCommand: { value: without(unassign.UnassignCommand.value, field) } }), eventFormat: formatFor(w.s.party) }, `the unassign command's ${field}`, field);
        await send({ reassignmentCommands: base({ UnassignCommand: { value: emptied(unassign.UnassignCommand.value, field) } }), eventFormat: formatFor(w.s.party) }, `the unassign command's ${field} (sent as "")`, field);
      }
      // an assignment needs a pending unassignment: made here, and assigned in full at the end so the contract is whole
      const u = await reassign(t, w, unassign);
      const ue = u.status === 200 ? unassignEventOf(u) : undefined;
      if (ue === undefined || typeof ue.event.reassignmentId !== 'string') {
        t.notObserved(BAD_REQUEST, 'set-up: no pending unassignment to leave an assign field out of');
        t.note(`the unassignment the assign cases need answered ${u.status} without a reassignmentId: the assign command's fields were not sent`);
      } else {
        const assign = { reassignmentId: ue.event.reassignmentId, source: w.syncs[0], target: w.syncs[1] };
        t.defer(() => reassign(t, w, { AssignCommand: { value: assign } }), `assigning contract ${cid} to ${w.syncs[1]}`);
        for (const field of ['reassignmentId', 'source', 'target']) {
          await send({ reassignmentCommands: base({ AssignCommand: { value: without(assign, field) } }), eventFormat: formatFor(w.s.party) }, `the assign command's ${field}`, field);
          await send({ reassignmentCommands: base({ AssignCommand: { value: emptied(assign, field) } }), eventFormat: formatFor(w.s.party) }, `the assign command's ${field} (sent as "")`, field);
        }
      }
      cases.done();
      await judgeBadRequests(t, BAD_REQUEST, seen);
      await judgeBadRequests(t, BAD_REQUEST, seenByAuthorization, [400, 403]);
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.empty-commands',
      title: 'rejects a submission with no commands with a 4xx, 400 as FACTS.md gives',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment'],
      requirements: [`${S}.empty-commands-rejected`, BAD_REQUEST],
    },
    async (t) => {
      const s = await createSubmitter(t);
      const x = await t.call('submitAndWaitForReassignment', { auth: { user: s.userId }, json: { reassignmentCommands: { commandId: t.uniqueName('reassign'), submitter: s.party, userId: s.userId, commands: [] } } });
      await judgeRejection(t, x, { requirement: `${S}.empty-commands-rejected`, badRequest: BAD_REQUEST, what: 'a reassignment with no commands' });
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.act-as',
      title: 'refuses a reassignment by a caller without CanActAs for the submitter with a 4xx, 403 as FACTS.md gives',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment'],
      ...MULTI,
      requirements: ['ledger.auth.act-as-submitter', 'ledger.auth.permission-denied-403'],
    },
    async (t) => {
      const w = await world(t);
      const cid = await w.create();
      const other = await createUser(t);
      const x = await reassign(t, w, { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: w.syncs[1] } } }, { withFormat: false }, { user: other.id });
      await judgeRejection(t, x, { requirement: 'ledger.auth.act-as-submitter', badRequest: 'ledger.auth.permission-denied-403', statuses: [403], what: 'an unassignment by a caller without CanActAs for the submitter' });
      // a caller holding CanActAs and CanReadAs, but for a party of its own: a right is for its party only
      const own = await allocateParty(t, 'cc-own-party');
      const stranger = await createUser(t, { rights: [right.actAs(own), right.readAs(own)] });
      const y = await reassign(t, w, { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: w.syncs[1] } } }, { withFormat: false }, { user: stranger.id });
      await judgeRejection(t, y, { requirement: 'ledger.auth.act-as-submitter', badRequest: 'ledger.auth.permission-denied-403', statuses: [403], what: 'an unassignment by a caller holding CanActAs only for another party' });
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.execute-as-reads-nothing',
      title: 'refuses a user holding only CanExecuteAs for the submitter to read the unassignment through update-by-offset',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment', 'getUpdateByOffset'],
      ...MULTI,
      requirements: ['ledger.rights.can-execute-as-grants-no-reads'],
    },
    async (t) => {
      needUserTokens(t);
      const w = await world(t);
      const cid = await w.create();
      const x = await reassign(t, w, { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: w.syncs[1] } } });
      t.expectStatus(x, 200, { what: 'an unassignment to read back' });
      const offset = (x.json as { reassignment?: { offset?: unknown } } | undefined)?.reassignment?.offset;
      if (typeof offset !== 'number') throw new FixtureError(`setup: the unassignment answered no offset: ${x.text.slice(0, 300)}`);
      const reader = await createUser(t, { rights: [right.executeAs(w.s.party)] });
      const r = await t.call('getUpdateByOffset', { auth: { user: reader.id }, json: { offset, updateFormat: { includeReassignments: formatFor(w.s.party) } } });
      if (routeNotServed(r)) t.skip(`update-by-offset answered ${r.status} without a JsCantonError: not served`);
      // any 4xx refuses the read (403, or a 404 that shows nothing): SPEC.md says no read is granted, not which status
      expectRejected(t, r, { refusal: 'caller', what: 'reading the unassignment through update-by-offset, holding only CanExecuteAs for the submitter' });
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.mixed-commands',
      title: 'answers a batch mixing an unassignment and an assignment without a 5xx',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment'],
      ...MULTI,
      requirements: ['ledger.http.no-server-error'],
    },
    async (t) => {
      // SPEC.md does not say whether one batch may mix kinds: the answer is judged by the generic rules only (no 5xx)
      const w = await world(t);
      const cid = await w.create();
      await t.call('submitAndWaitForReassignment', {
        auth: { user: w.s.userId },
        json: {
          reassignmentCommands: {
            commandId: t.uniqueName('mixed'),
            submitter: w.s.party,
            userId: w.s.userId,
            commands: [
              { command: { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: w.syncs[1] } } } },
              { command: { AssignCommand: { value: { reassignmentId: t.uniqueName('cc-no-such-unassign'), source: w.syncs[0], target: w.syncs[1] } } } },
            ],
          },
        },
      });
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.empty-command',
      title: 'answers a submission whose command is the Empty variant without a 5xx',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment'],
      requirements: ['ledger.http.no-server-error'],
    },
    async (t) => {
      // SPEC.md lists Empty among the command variants without saying what it does: judged by the generic rules only
      const s = await createSubmitter(t);
      await t.call('submitAndWaitForReassignment', {
        auth: { user: s.userId },
        json: { reassignmentCommands: { commandId: t.uniqueName('empty'), submitter: s.party, userId: s.userId, commands: [{ command: { Empty: {} } }] } },
      });
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.change-id',
      title: 'takes user id, submitter and command id together as the change id: the same submitter and command id under another user, or the same user and command id with another submitter, is another change',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment'],
      ...MULTI,
      requirements: [`${S}.change-id`],
    },
    async (t) => {
      // SPEC.md does not say what a participant does with a repeated change id (reassignments carry no deduplication
      // period), so only the other half is judged: submissions whose change ids differ are not duplicates of each other.
      needUserTokens(t);
      const w = await world(t);
      const [a, b] = [await w.create(), await w.create()];
      const commandId = t.uniqueName('change');
      const unassign = (cid: string, user: string) =>
        reassign(t, w, { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: w.syncs[1] } } }, { withFormat: false, commandId }, { user });
      t.expectStatus(await unassign(a, w.s.userId), 200, { what: 'a first unassignment under a fresh command id' });
      const other = await createUser(t, { rights: [right.actAs(w.s.party)] });
      t.expectStatus(await unassign(b, other.id), 200, { what: 'an unassignment with the same submitter and command id under another user id (another change id)' });
      // the same user and command id with another submitter: a second party the user may act as, stakeholder of its own
      // contract (an unassignment's submitter is a stakeholder of what it moves)
      const second = await createSubmitter(t, 'cc-second-submitter');
      const g = await grantRights(t, w.s.userId, [right.actAs(second.party)]);
      if (g.status !== 200) throw new FixtureError(`setup: granting CanActAs for ${second.party} answered ${g.status}: ${g.text.slice(0, 300)}`);
      const created = await submitCreate(t, second, templateFixture(t), w.syncs[0]);
      const c = createdContractId(created.json);
      if (created.status !== 200 || c === undefined) throw new FixtureError(`setup: creating a contract of ${second.party} answered ${created.status}: ${created.text.slice(0, 300)}`);
      const x = await t.call('submitAndWaitForReassignment', {
        auth: { user: w.s.userId },
        json: reassignmentRequest({ commandId, submitter: second.party, userId: w.s.userId, command: { UnassignCommand: { value: { contractId: c, source: w.syncs[0], target: w.syncs[1] } } } }),
      });
      t.expectStatus(x, 200, { what: 'an unassignment with the same user id and command id by another submitter (another change id)' });
    },
  );

  conformance(
    {
      id: 'ledger.submit-and-wait-for-reassignment.can-act-as',
      title: 'accepts an unassignment by a caller holding only CanActAs for the submitter',
      api: 'ledger',
      operations: ['submitAndWaitForReassignment'],
      ...MULTI,
      requirements: ['ledger.rights.can-act-as-submits'],
    },
    async (t) => {
      needUserTokens(t);
      const w = await world(t);
      const cid = await w.create();
      const actor = await createUser(t, { rights: [right.actAs(w.s.party)] });
      // no eventFormat: reading the events is not what CanActAs is checked for here
      const x = await reassign(t, w, { UnassignCommand: { value: { contractId: cid, source: w.syncs[0], target: w.syncs[1] } } }, { withFormat: false }, { user: actor.id });
      t.expectStatus(x, 200, { what: 'an unassignment by a user holding only CanActAs for the submitter' });
    },
  );
});
