import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCanton, expectPlain400, ok, right, startLedger, type Json, type LedgerClient } from './ledger-client.js';

let l: LedgerClient;
let SYNC0: string;
let SYNC1: string;
const NS = '1220aa00000000000000000000000000000000000000000000000000000000000001';
const ALICE = `alice::${NS}`;
const BOB = `bob::${NS}`;
const IOU = '#reference-iou:Iou:Iou';

beforeAll(async () => {
  l = await startLedger();
  [SYNC0, SYNC1] = ok(await l.call('GET', '/v2/state/connected-synchronizers')).connectedSynchronizers.map((s: Json) => s.synchronizerId);
});
afterAll(async () => l.close());

const wildcard = (party: string, blob = false) => ({ filtersByParty: { [party]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: blob } } } }] } } });
const byOffset = (offset: number, eventFormat: Json, shape = 'TRANSACTION_SHAPE_ACS_DELTA', as = 'alice_user') =>
  l.call('POST', '/v2/updates/transaction-by-offset', { as, body: { offset, transactionFormat: { eventFormat, transactionShape: shape } } });

const iou = (issuer: string, owner: string) => ({ issuer, owner, amount: '3.0000000000', currency: 'USD', observers: [] });
function submitTree(commands: Json[], extra: Json = {}, as = 'alice_user') {
  return l.call('POST', '/v2/commands/submit-and-wait-for-transaction-tree', { as, body: { commands, commandId: l.uid('cmd'), actAs: [ALICE], ...extra } });
}
async function createIou(synchronizerId = SYNC0, owner = ALICE): Promise<{ contractId: string; offset: number }> {
  const tree = ok(await submitTree([{ CreateCommand: { templateId: IOU, createArguments: iou(ALICE, owner) } }], { synchronizerId })).transactionTree;
  const created = Object.values(tree.eventsById as Record<string, Json>)[0].CreatedTreeEvent.value;
  return { contractId: created.contractId, offset: tree.offset };
}

describe('transaction by offset', () => {
  it('returns the seeded create at offset 1 with the required created-event fields', async () => {
    const t = ok(await byOffset(1, wildcard(ALICE))).transaction;
    for (const f of ['updateId', 'effectiveAt', 'synchronizerId', 'recordTime']) expect(typeof t[f]).toBe('string');
    expect(t.offset).toBe(1);
    expect(t.events).toHaveLength(1);
    const e = t.events[0].CreatedEvent;
    for (const f of ['contractId', 'templateId', 'createdAt', 'packageName', 'representativePackageId']) expect(typeof e[f]).toBe('string');
    expect(e).toMatchObject({ offset: 1, nodeId: 0, acsDelta: true, packageName: 'reference-iou', signatories: [ALICE], witnessParties: [ALICE] });
    expect(e.createArgument.currency).toBe('USD');
    expect(e.createdEventBlob).toBe('');
    // unset optional fields come as JSON null, as on real participants (FACTS.md)
    expect(e).toMatchObject({ contractKey: null, contractKeyHash: '', interfaceViews: [], observers: [] });
    expect(t).toMatchObject({ externalTransactionHash: null, traceContext: { tracestate: null } });
  });

  it('shows the archive at offset 4 and honours includeCreatedEventBlob', async () => {
    const a = ok(await byOffset(4, wildcard(ALICE))).transaction.events[0].ArchivedEvent;
    expect(a).toMatchObject({ offset: 4, witnessParties: [ALICE], packageName: 'reference-iou' });
    for (const f of ['contractId', 'templateId']) expect(typeof a[f]).toBe('string');
    const created = ok(await byOffset(3, wildcard(ALICE, true))).transaction.events[0].CreatedEvent;
    expect(created.contractId).toBe(a.contractId);
    expect(created.createdEventBlob.length).toBeGreaterThan(0);
  });

  it('shows a transient contract with the ledger-effects shape only', async () => {
    expectCanton(await byOffset(6, wildcard(ALICE)), 404, 'UPDATE_NOT_FOUND');
    const t = ok(await byOffset(6, wildcard(ALICE), 'TRANSACTION_SHAPE_LEDGER_EFFECTS')).transaction;
    expect(t.events.map((e: Json) => Object.keys(e)[0])).toEqual(['CreatedEvent', 'ExercisedEvent']);
    expect(t.events[1].ExercisedEvent).toMatchObject({ choice: 'Archive', consuming: true, actingParties: [ALICE], interfaceId: null });
  });

  it('filters by template and lets observers see the contract', async () => {
    const tf = (templateId: string) => ({ filtersByParty: { [ALICE]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId } } } }] } } });
    ok(await byOffset(1, tf(IOU)));
    expectCanton(await byOffset(1, tf('#reference-iou:Iou:Other')), 404, 'UPDATE_NOT_FOUND');
    expectCanton(await byOffset(1, wildcard(BOB), undefined, 'bob_user'), 404, 'UPDATE_NOT_FOUND');
    // offset 2: bob's Iou names alice as owner, so alice observes it
    const e = ok(await byOffset(2, wildcard(ALICE))).transaction.events[0].CreatedEvent;
    expect(e.signatories).toEqual([BOB]);
    expect(e.observers).toEqual([ALICE]);
  });

  it('accepts the deprecated requestingParties form', async () => {
    const r = await l.call('POST', '/v2/updates/transaction-by-offset', { as: 'alice_user', body: { offset: 1, requestingParties: [ALICE] } });
    expect(ok(r).transaction.events[0].CreatedEvent.witnessParties).toEqual([ALICE]);
  });

  it('validates offset, format and shape', async () => {
    const post = (body: Json) => l.call('POST', '/v2/updates/transaction-by-offset', { as: 'alice_user', body });
    const tf = { eventFormat: wildcard(ALICE), transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' };
    expectCanton(await post({ offset: 0, transactionFormat: tf }), 400);
    expectCanton(await post({ offset: -3, transactionFormat: tf }), 400);
    expectCanton(await post({ offset: 1, requestingParties: [ALICE], transactionFormat: tf }), 400);
    expectCanton(await post({ offset: 1 }), 400);
    expectCanton(await post({ offset: 1, transactionFormat: { ...tf, transactionShape: 'TRANSACTION_SHAPE_UNSPECIFIED' } }), 400, 'MISSING_FIELD');
    expectCanton(await post({ offset: 999999, transactionFormat: tf }), 404, 'UPDATE_NOT_FOUND');
    expectPlain400(await post({ transactionFormat: tf }));
    expectPlain400(await post({ offset: 'one', transactionFormat: tf }));
    expectPlain400(await post({ offset: 1, transactionFormat: { ...tf, transactionShape: 'SIDEWAYS' } }));
  });

  it('needs read rights for the requested parties', async () => {
    expectCanton(await byOffset(2, wildcard(BOB)), 403, 'PERMISSION_DENIED');
    const anyParty = { filtersForAnyParty: { cumulative: [] } };
    expectCanton(await byOffset(1, anyParty), 403);
    const reader = l.uid('reader');
    ok(await l.call('POST', '/v2/users', { body: { user: { id: reader }, rights: [right.readAny()] } }));
    expect(ok(await byOffset(2, anyParty, undefined, reader)).transaction.events[0].CreatedEvent.witnessParties.sort()).toEqual([ALICE, BOB].sort());
  });
});

describe('submit and wait for transaction tree', () => {
  it('creates contracts at strictly increasing offsets that transaction-by-offset finds', async () => {
    const end0 = ok(await l.call('GET', '/v2/state/ledger-end')).offset;
    const a = await createIou();
    const b = await createIou();
    expect(a.offset).toBeGreaterThan(end0);
    expect(b.offset).toBeGreaterThan(a.offset);
    expect(ok(await l.call('GET', '/v2/state/ledger-end')).offset).toBe(b.offset);
    const t = ok(await byOffset(b.offset, wildcard(ALICE))).transaction;
    expect(t.events[0].CreatedEvent.contractId).toBe(b.contractId);
  });

  it('answers with the whole tree of a create-and-exercise', async () => {
    const r = ok(await submitTree([{ CreateAndExerciseCommand: { templateId: IOU, createArguments: iou(ALICE, ALICE), choice: 'Archive', choiceArgument: {} } }], { workflowId: 'wf' }));
    const tree = r.transactionTree;
    for (const f of ['updateId', 'commandId', 'effectiveAt', 'synchronizerId', 'recordTime']) expect(typeof tree[f]).toBe('string');
    expect(tree.workflowId).toBe('wf');
    expect(Object.keys(tree.eventsById)).toEqual(['0', '1']);
    expect(tree.eventsById['1'].ExercisedTreeEvent.value.choice).toBe('Archive');
  });

  it('exercises Archive on an existing contract', async () => {
    const c = await createIou();
    const r = ok(await submitTree([{ ExerciseCommand: { templateId: IOU, contractId: c.contractId, choice: 'Archive', choiceArgument: {} } }]));
    const archived = ok(await byOffset(r.transactionTree.offset, wildcard(ALICE))).transaction.events[0].ArchivedEvent;
    expect(archived.contractId).toBe(c.contractId);
    expectCanton(await submitTree([{ ExerciseCommand: { templateId: IOU, contractId: c.contractId, choice: 'Archive', choiceArgument: {} } }]), 404);
  });

  it('rejects submissions it cannot authorize or interpret', async () => {
    const create = { CreateCommand: { templateId: IOU, createArguments: iou(ALICE, ALICE) } };
    expectCanton(await submitTree([create], { actAs: [BOB] }), 403, 'PERMISSION_DENIED');
    expectCanton(await submitTree([]), 400);
    expectCanton(await submitTree([create], { commandId: '' }), 400, 'MISSING_FIELD');
    expectCanton(await submitTree([{ CreateCommand: { templateId: '#no-such-package:M:T', createArguments: {} } }]), 404);
    expectCanton(await submitTree([{ ExerciseByKeyCommand: { templateId: IOU, contractKey: {}, choice: 'Archive', choiceArgument: {} } }]), 400);
    expectCanton(await submitTree([create], { synchronizerId: 'nowhere::1220ff' }), 400);
    expectPlain400(await l.call('POST', '/v2/commands/submit-and-wait-for-transaction-tree', { as: 'alice_user', body: { commandId: 'x', actAs: [ALICE] } }));
    expectPlain400(await submitTree([{ CreateCommand: { createArguments: {} } }]));
    const body = { commands: [create], commandId: l.uid('dup'), actAs: [ALICE] };
    ok(await l.call('POST', '/v2/commands/submit-and-wait-for-transaction-tree', { as: 'alice_user', body }));
    expectCanton(await l.call('POST', '/v2/commands/submit-and-wait-for-transaction-tree', { as: 'alice_user', body }), 409);
  });
});

describe('reassignment', () => {
  /** eventFormat null sends none */
  const reassign = (commands: Json[], extra: Json = {}, eventFormat: Json | null = wildcard(ALICE), as = 'alice_user') =>
    l.call('POST', '/v2/commands/submit-and-wait-for-reassignment', {
      as,
      body: { reassignmentCommands: { commandId: l.uid('re'), submitter: ALICE, commands, ...extra }, ...(eventFormat === null ? {} : { eventFormat }) },
    });
  const unassign = (contractId: string, source: string, target: string) => ({ command: { UnassignCommand: { value: { contractId, source, target } } } });
  const assign = (reassignmentId: string, source: string, target: string) => ({ command: { AssignCommand: { value: { reassignmentId, source, target } } } });

  it('unassigns and assigns a contract with matching reassignment counters', async () => {
    const c = await createIou(SYNC0);
    const u = ok(await reassign([unassign(c.contractId, SYNC0, SYNC1)])).reassignment;
    expect(u.synchronizerId).toBe(SYNC0);
    // the unassign event comes under value (FACTS.md), the assign event directly under its kind key
    const ue = u.events[0].JsUnassignedEvent.value;
    expect(ue).toMatchObject({ contractId: c.contractId, source: SYNC0, target: SYNC1, submitter: ALICE, reassignmentCounter: 1, witnessParties: [ALICE], packageName: 'reference-iou', offset: u.offset });
    expect(typeof ue.reassignmentId).toBe('string');
    expect(ue.assignmentExclusivity).toBeNull();
    expect(u.traceContext).toMatchObject({ tracestate: null });
    // while unassigned the contract cannot be used
    expectCanton(await reassign([unassign(c.contractId, SYNC0, SYNC1)]), 400);
    expectCanton(await submitTree([{ ExerciseCommand: { templateId: IOU, contractId: c.contractId, choice: 'Archive', choiceArgument: {} } }]), 404);
    const a = ok(await reassign([assign(ue.reassignmentId, SYNC0, SYNC1)])).reassignment;
    expect(a.offset).toBeGreaterThan(u.offset);
    expect(a.synchronizerId).toBe(SYNC1);
    const ae = a.events[0].JsAssignmentEvent;
    expect(ae).toMatchObject({ source: SYNC0, target: SYNC1, reassignmentId: ue.reassignmentId, submitter: ALICE, reassignmentCounter: 1 });
    expect(ae.createdEvent).toMatchObject({ contractId: c.contractId, offset: a.offset, acsDelta: true, signatories: [ALICE], packageName: 'reference-iou' });
    for (const f of ['templateId', 'createdAt', 'representativePackageId']) expect(typeof ae.createdEvent[f]).toBe('string');
    // a second move counts up
    const again = ok(await reassign([unassign(c.contractId, SYNC1, SYNC0)])).reassignment;
    expect(again.events[0].JsUnassignedEvent.value.reassignmentCounter).toBe(2);
    expectCanton(await reassign([assign(ue.reassignmentId, SYNC0, SYNC1)]), 400);
  });

  it('may answer without events when no event format is given', async () => {
    const c = await createIou(SYNC0);
    const r = ok(await reassign([unassign(c.contractId, SYNC0, SYNC1)], {}, null)).reassignment;
    expect(r.events).toEqual([]);
    expect(typeof r.updateId).toBe('string');
  });

  it('rejects invalid reassignments', async () => {
    const c = await createIou(SYNC0);
    expectCanton(await reassign([unassign(`00${'ab'.repeat(32)}`, SYNC0, SYNC1)]), 404);
    expectCanton(await reassign([unassign(c.contractId, SYNC1, SYNC0)]), 400);
    expectCanton(await reassign([unassign(c.contractId, SYNC0, SYNC0)]), 400);
    expectCanton(await reassign([unassign(c.contractId, SYNC0, 'nowhere::1220ff')]), 400);
    expectCanton(await reassign([assign('00ffff', SYNC0, SYNC1)]), 404);
    expectCanton(await reassign([{ command: { Empty: {} } }]), 400);
    expectCanton(await reassign([]), 400);
    expectCanton(await reassign([unassign(c.contractId, SYNC0, SYNC1)], { submitter: BOB }), 403, 'PERMISSION_DENIED');
    expectPlain400(await l.call('POST', '/v2/commands/submit-and-wait-for-reassignment', { as: 'alice_user', body: { reassignmentCommands: { submitter: ALICE, commands: [] } } }));
    // the contract is still where it was
    ok(await reassign([unassign(c.contractId, SYNC0, SYNC1)]));
  });
});

describe('parties and state', () => {
  it('allocates a party in the participant namespace, once', async () => {
    const hint = l.uid('hint');
    const r = ok(await l.call('POST', '/v2/parties', { body: { partyIdHint: hint, synchronizerId: SYNC0 } })).partyDetails;
    expect(r.party).toBe(`${hint}::${NS}`);
    expect(r.isLocal).toBe(true);
    expectCanton(await l.call('POST', '/v2/parties', { body: { partyIdHint: hint, synchronizerId: SYNC0 } }), 409);
    expectCanton(await l.call('POST', '/v2/parties', { as: 'alice_user', body: { partyIdHint: l.uid('h'), synchronizerId: SYNC0 } }), 403);
  });

  it('refuses an allocation naming no synchronizer (two are connected), and takes partyHint for an unknown field', async () => {
    expectCanton(await l.call('POST', '/v2/parties', { body: { partyIdHint: l.uid('nosync') } }), 400, 'PARTY_ALLOCATION_CANNOT_DETERMINE_SYNCHRONIZER');
    const hint = l.uid('misspelled');
    const r = ok(await l.call('POST', '/v2/parties', { body: { partyHint: hint, synchronizerId: SYNC1 } })).partyDetails;
    expect(r.party.startsWith(`${hint}::`)).toBe(false);
  });

  it('grants the allocating user CanActAs for the new party', async () => {
    const user = l.uid('owner');
    ok(await l.call('POST', '/v2/users', { body: { user: { id: user } } }));
    const party = ok(await l.call('POST', '/v2/parties', { body: { partyIdHint: l.uid('p'), userId: user, synchronizerId: SYNC0 } })).partyDetails.party;
    expect(ok(await l.call('GET', `/v2/users/${user}/rights`)).rights).toEqual([right.actAs(party)]);
  });

  it('lists connected synchronizers', async () => {
    const r = ok(await l.call('GET', '/v2/state/connected-synchronizers', { as: 'alice_user' }));
    expect(r.connectedSynchronizers).toHaveLength(2);
    for (const s of r.connectedSynchronizers) expect(typeof s.synchronizerId).toBe('string');
  });
});

describe('traffic accounts', () => {
  const update = (body: Json, as?: string) => l.call('POST', '/v2/traffic/accounts', { body, as });

  it('applies a delta once per deduplication id and may go negative', async () => {
    const accountId = `${l.uid('acct')}::${NS}`;
    // the read answers the account itself, the update wraps it in response (FACTS.md)
    expect(ok(await l.call('GET', `/v2/traffic/accounts/${encodeURIComponent(accountId)}`))).toEqual({ accountId, balance: 0 });
    expect(ok(await update({ accountId, balanceDelta: 10, deduplicationId: 'd1' })).response).toEqual({ accountId, balance: 10 });
    expect(ok(await update({ accountId, balanceDelta: 10, deduplicationId: 'd1' })).response.balance).toBe(10);
    expect(ok(await update({ accountId, balanceDelta: -25, deduplicationId: 'd2' })).response.balance).toBe(-15);
    expect(ok(await update({ accountId, deduplicationId: 'd3' })).response.balance).toBe(-15);
    expect(ok(await l.call('GET', `/v2/traffic/accounts/${encodeURIComponent(accountId)}`)).balance).toBe(-15);
  });

  it('is for administrators only and validates its body', async () => {
    const accountId = `${l.uid('acct')}::${NS}`;
    expectCanton(await update({ accountId, balanceDelta: 1, deduplicationId: 'x' }, 'alice_user'), 403);
    expectPlain400(await update({ accountId, balanceDelta: 1 }));
    expectPlain400(await update({ accountId, balanceDelta: 'lots', deduplicationId: 'x' }));
    expectCanton(await update({ accountId: '', balanceDelta: 1, deduplicationId: 'x' }), 400);
  });

  it('does not exist on 3.4 or without traffic enforcement', async () => {
    for (const options of [{ ledgerVersion: '3.4' as const }, { trafficEnforcement: false }]) {
      const other = await startLedger(options);
      try {
        const r = await other.call('POST', '/v2/traffic/accounts', { body: { accountId: `a::${NS}`, balanceDelta: 1, deduplicationId: 'x' } });
        expect(r.status).toBe(404);
        expect((await other.call('GET', `/v2/traffic/accounts/a::${NS}`)).status).toBe(404);
      } finally {
        await other.close();
      }
    }
  });
});
