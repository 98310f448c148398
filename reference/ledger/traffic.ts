/**
 * Traffic accounts (ledger API 3.5, only with traffic enforcement): POST /v2/traffic/accounts applies a balance delta
 * once per deduplication id and answers {response: account}; GET /v2/traffic/accounts/{account-id} answers the account
 * itself, with no response wrapper (FACTS.md; 0 for a fresh account).
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import { optInt, reqString } from './body.js';
import { err } from './errors.js';
import { route } from './http.js';
import { isPartyId } from './ids.js';
import type { LedgerState, TrafficAccount } from './state.js';
import { XF } from './faults-traffic.js';
import { CF, withStatus } from './faults-cross.js';
import { CantonError } from './errors.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The routes exist only where the participant exposes them. */
export function trafficEnabled(ctx: ReferenceContext): boolean {
  return (ctx.options.ledgerVersion !== '3.4' || ctx.faults.has(XF.early)) && (ctx.options.trafficEnforcement || ctx.faults.has(XF.enforcement));
}

function validateAccountId(accountId: string): void {
  if (accountId === '') throw err.missingField('account_id');
  // The account id is currently tied to a party id.
  if (!isPartyId(accountId)) throw err.invalidField('account_id', `Invalid party id ${JSON.stringify(accountId.slice(0, 200))}`);
}

function account(state: LedgerState, accountId: string): TrafficAccount {
  let a = state.traffic.get(accountId);
  if (a === undefined) {
    a = { balance: 0n, processed: new Set(), previous: 0n, lastDelta: undefined };
    state.traffic.set(accountId, a);
  }
  return a;
}

/** int64 balances beyond JavaScript's safe integers are sent as decimal strings, as int64 JSON codecs accept. */
const encodeBalance = (b: bigint) => (b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b.toString());

export function trafficRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  if (!trafficEnabled(ctx)) return;
  const has = (f: string) => ctx.faults.has(f);

  route(app, ctx, 'POST', '/v2/traffic/accounts', async (c) => {
    if (has(XF.added)) throw err.notFound('NOT_FOUND', 'The requested resource could not be found: POST /v2/traffic/accounts');
    const body = await c.json();
    const accountId = reqString(body, 'accountId');
    const deduplicationId = has(XF.required) && (body.deduplicationId === undefined || body.deduplicationId === null) ? `auto-${state.nextSeq()}` : has(XF.emptyDedup) && body.deduplicationId === '' ? `auto-${state.nextSeq()}` : reqString(body, 'deduplicationId');
    let delta = optInt(body, 'balanceDelta', '', 64);
    let caller;
    try {
      caller = await c.caller();
      if (!has(XF.adminOnly)) caller.requireAdmin();
    } catch (e) {
      if (e instanceof CantonError && e.grpc === 'UNAUTHENTICATED' && has(CF.s401)) throw withStatus(e, 403);
      if (e instanceof CantonError && e.grpc === 'PERMISSION_DENIED' && has(CF.s403)) throw withStatus(e, 401);
      throw e;
    }
    validateAccountId(accountId);
    if (has(XF.party) && accountId.endsWith(`::${state.world.namespace}`)) throw err.invalidField('account_id', 'Party accounts are not supported');
    if (deduplicationId === '') throw err.missingField('deduplication_id');
    const a = account(state, accountId);
    if (delta === undefined && has(XF.unset)) delta = 1;
    if (delta !== undefined && delta > 0 && has(XF.delta)) delta -= 1;
    // planted: an int64 delta read as an int32
    if (delta !== undefined && has(XF.int32)) delta = Number(BigInt.asIntN(32, BigInt(delta)));
    const sameAsLast = a.lastDelta !== undefined && a.lastDelta === delta && has(XF.fresh);
    // An already processed deduplication id is ignored: the answer is the current state.
    if ((!a.processed.has(deduplicationId) || has(XF.duplicate)) && !sameAsLast) {
      const next = a.balance + BigInt(delta ?? 0);
      if (next < INT64_MIN || next > INT64_MAX) throw err.invalidArgument('The balance would leave the int64 range');
      if (next < 0n && has(XF.negative)) throw err.invalidArgument('The balance would become negative');
      a.previous = a.balance;
      a.balance = next;
      a.processed.add(deduplicationId);
      a.lastDelta = delta;
    }
    const updated = { accountId: has(XF.echo) ? `${accountId}-x` : accountId, balance: has(XF.schema) ? `${a.balance} units` : encodeBalance(a.balance) };
    // SPEC.md: the update answers the account under response (the read does not, FACTS.md)
    return has(XF.unwrapped) ? updated : { response: updated };
  });

  route(app, ctx, 'GET', '/v2/traffic/accounts/:accountId', async (c) => {
    const accountId = c.params.accountId ?? '';
    (await c.caller()).requireAdmin();
    validateAccountId(accountId);
    const a = state.traffic.get(accountId);
    if (a === undefined && has(XF.freshZero)) throw err.notFound('NOT_FOUND', `Traffic account ${accountId} not found`);
    const balance = (has(XF.reflects) ? a?.previous : a?.balance) ?? 0n;
    // FACTS.md: the read answers the account itself, with no response wrapper (unlike the update)
    const body = { accountId, ...(has(XF.getSchema) ? {} : { balance: encodeBalance(balance) }) };
    return has(XF.getWrapped) ? { response: body } : body;
  });
}
