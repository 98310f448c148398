/**
 * Traffic accounts (ledger API 3.5, only with traffic enforcement): POST /v2/traffic/accounts applies a balance delta
 * once per deduplication id; GET /v2/traffic/accounts/{account-id} reads the balance (0 for a fresh account).
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../index.js';
import { optInt, reqString } from './body.js';
import { err } from './errors.js';
import { route } from './http.js';
import { isPartyId } from './ids.js';
import type { LedgerState, TrafficAccount } from './state.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The routes exist only where the participant exposes them. */
export function trafficEnabled(ctx: ReferenceContext): boolean {
  return ctx.options.ledgerVersion !== '3.4' && ctx.options.trafficEnforcement;
}

function validateAccountId(accountId: string): void {
  if (accountId === '') throw err.missingField('account_id');
  // The account id is currently tied to a party id.
  if (!isPartyId(accountId)) throw err.invalidField('account_id', `Invalid party id ${JSON.stringify(accountId.slice(0, 200))}`);
}

function account(state: LedgerState, accountId: string): TrafficAccount {
  let a = state.traffic.get(accountId);
  if (a === undefined) {
    a = { balance: 0n, processed: new Set() };
    state.traffic.set(accountId, a);
  }
  return a;
}

/** int64 balances beyond JavaScript's safe integers are sent as decimal strings, as int64 JSON codecs accept. */
const encodeBalance = (b: bigint) => (b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b.toString());

export function trafficRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  if (!trafficEnabled(ctx)) return;

  route(app, ctx, 'POST', '/v2/traffic/accounts', async (c) => {
    const body = await c.json();
    const accountId = reqString(body, 'accountId');
    const deduplicationId = reqString(body, 'deduplicationId');
    const delta = optInt(body, 'balanceDelta', '', 64);
    (await c.caller()).requireAdmin();
    validateAccountId(accountId);
    if (deduplicationId === '') throw err.missingField('deduplication_id');
    const a = account(state, accountId);
    // An already processed deduplication id is ignored: the answer is the current state.
    if (!a.processed.has(deduplicationId)) {
      const next = a.balance + BigInt(delta ?? 0);
      if (next < INT64_MIN || next > INT64_MAX) throw err.invalidArgument('The balance would leave the int64 range');
      a.balance = next;
      a.processed.add(deduplicationId);
    }
    return { response: { accountId, balance: encodeBalance(a.balance) } };
  });

  route(app, ctx, 'GET', '/v2/traffic/accounts/:accountId', async (c) => {
    const accountId = c.params.accountId ?? '';
    (await c.caller()).requireAdmin();
    validateAccountId(accountId);
    const balance = state.traffic.get(accountId)?.balance ?? 0n;
    return { response: { accountId, balance: encodeBalance(balance) } };
  });
}
