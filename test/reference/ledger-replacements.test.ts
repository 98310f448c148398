import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCanton, ok, startLedger, type Json, type LedgerClient } from './ledger-client.js';

const NS = '1220aa00000000000000000000000000000000000000000000000000000000000001';
const ALICE = `alice::${NS}`;
const IOU = '#reference-iou:Iou:Iou';
const iou = (issuer: string, owner: string) => ({ issuer, owner, amount: '3.0000000000', currency: 'USD', observers: [] });
const wildcard = (party: string) => ({ filtersByParty: { [party]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] } } });

describe('replacements of the deprecated transaction endpoints', () => {
  let l: LedgerClient;
  let SYNC1: string;
  beforeAll(async () => {
    l = await startLedger();
    SYNC1 = ok(await l.call('GET', '/v2/state/connected-synchronizers')).connectedSynchronizers[1].synchronizerId;
  });
  afterAll(async () => l.close());

  const submit = (body: Json) => l.call('POST', '/v2/commands/submit-and-wait-for-transaction', { as: 'alice_user', body });
  const commands = (extra: Json = {}) => ({ commands: [{ CreateCommand: { templateId: IOU, createArguments: iou(ALICE, ALICE) } }], commandId: l.uid('cmd'), actAs: [ALICE], ...extra });

  it('submits {commands, transactionFormat} and answers {transaction}, events directly under their kind key', async () => {
    const tx = ok(await submit({ commands: commands({ synchronizerId: SYNC1 }), transactionFormat: { eventFormat: wildcard(ALICE), transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' } })).transaction;
    expect(tx.synchronizerId).toBe(SYNC1);
    expect(tx.events).toHaveLength(1);
    const created = tx.events[0].CreatedEvent;
    expect(created.value).toBeUndefined();
    expect(created.offset).toBe(tx.offset);
    expect(created.createArgument.owner).toBe(ALICE);
  });

  it('defaults to the ACS delta of the submitting parties, refuses an unspecified shape and a repeated command', async () => {
    const tx = ok(await submit({ commands: commands() })).transaction;
    expect(Object.keys(tx.events[0])).toEqual(['CreatedEvent']);
    expectCanton(await submit({ commands: commands(), transactionFormat: { eventFormat: wildcard(ALICE), transactionShape: 'TRANSACTION_SHAPE_UNSPECIFIED' } }), 400, 'MISSING_FIELD');
    const once = commands();
    ok(await submit({ commands: once }));
    expectCanton(await submit({ commands: once }), 409, 'DUPLICATE_COMMAND');
  });

  it('answers update-by-offset with {update: {Transaction: {value}}}, and 404 UPDATE_NOT_FOUND where nothing is visible', async () => {
    const tx = ok(await submit({ commands: commands() })).transaction;
    const format = { includeTransactions: { eventFormat: wildcard(ALICE), transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } };
    const u = ok(await l.call('POST', '/v2/updates/update-by-offset', { as: 'alice_user', body: { offset: tx.offset, updateFormat: format } })).update;
    expect(u.Transaction.value.offset).toBe(tx.offset);
    expect(u.Transaction.value.events[0].CreatedEvent.contractId).toBe(tx.events[0].CreatedEvent.contractId);
    expectCanton(await l.call('POST', '/v2/updates/update-by-offset', { as: 'alice_user', body: { offset: tx.offset + 1_000_000, updateFormat: format } }), 404, 'UPDATE_NOT_FOUND');
    expectCanton(await l.call('POST', '/v2/updates/update-by-offset', { as: 'alice_user', body: { offset: 0, updateFormat: format } }), 400);
  });
});

describe('ledger 3.6', () => {
  let l: LedgerClient;
  beforeAll(async () => {
    l = await startLedger({ ledgerVersion: '3.6' });
  });
  afterAll(async () => l.close());

  it('no longer serves transaction-by-offset nor GET /v2/package-vetting; their replacements stay', async () => {
    expect((await l.call('POST', '/v2/updates/transaction-by-offset', { body: { offset: 1, requestingParties: [ALICE] } })).status).toBe(404);
    expect((await l.call('GET', '/v2/package-vetting', { body: {} })).status).toBe(404);
    ok(await l.call('POST', '/v2/package-vetting/list', { body: {} }));
    expect((await l.call('GET', '/v2/version')).body.version).toBe('3.6.0');
  });
});
