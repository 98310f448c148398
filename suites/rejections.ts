/**
 * Rejections judged at two levels (FACTS.md, introduction): where SPEC.md says a request is rejected or fails, the MUST
 * is "answered with a 4xx error"; the exact status FACTS.md gives (400 for what a server cannot decode or accept, 401
 * for a missing or invalid token, 403 for a missing right, 404 for an unknown id) is a separate SHOULD. Each is judged
 * on its own, so a 422 keeps the MUST and fails only the SHOULD. Shared by every interface's checks.
 */
import type { CheckContext } from '../harness/conformance.js';
import { saysNothingOfTheRule } from '../harness/judging/checks.js';
import { NoDecidingAnswer, TargetOverloaded, type Exchange } from '../harness/transport/http.js';

/** The start of a response body, for a failure message. */
export const excerpt = (x: Exchange) => (x.text.length > 200 ? `${x.text.slice(0, 200)}...` : x.text);
const what = (x: Exchange) => `${x.record.request.method} ${x.operationId ?? x.record.request.url}`;
const isClientError = (x: Exchange) => x.status >= 400 && x.status < 500;

/**
 * Statuses any scan, validator or registry endpoint may answer under load or on a timeout (FACTS.md: 429 for gRPC
 * ABORTED, 503 for UNAVAILABLE): they say nothing about the rule a check is after, so none of them alone fails it.
 */
export const BUSY_STATUSES: readonly number[] = [429, 503];

/**
 * Ends the check in error (TargetOverloaded, as t.expectStatus does), never in a failure, when the target answered a
 * busy status instead of the one a rule needs: nothing was judged.
 */
export function notBusy(_t: CheckContext, x: Exchange, wanted: readonly number[] = []): void {
  if ((BUSY_STATUSES.includes(x.status) || saysNothingOfTheRule(x.api, x.status)) && !wanted.includes(x.status)) {
    throw new TargetOverloaded(`${what(x)} answered ${x.status} (overload, a timeout, a cancellation or a gateway error, which any endpoint may answer): nothing judged`);
  }
}

/**
 * A refusal of the caller (401, 403) where a check sent input to be rejected says nothing of the input: a gateway or an
 * authenticating proxy in front of the target may answer it to every request, valid ones included (DESIGN.md principle
 * 15). The check ends in error, neither a pass nor a fail of the input rule; a rule about the caller names the status
 * it expects (`wanted`) or `refusal: 'caller'`.
 */
export function refusesTheInput(x: Exchange, wanted: readonly number[]): void {
  if ((x.status === 401 || x.status === 403) && !wanted.includes(x.status)) {
    throw new NoDecidingAnswer(`${what(x)} answered ${x.status}, a refusal of the caller (an authenticating gateway in front of the target answers it to every request), not a judgement of the input: nothing judged${excerpt(x) ? `: ${excerpt(x)}` : ''}`);
  }
}

/**
 * A Splice request without a required query parameter: the HTTP framework's default rejection answers 404 text/plain,
 * a handler 400 (FACTS.md, Scan and validator): the SHOULD accepts either.
 */
export const MISSING_QUERY_STATUSES: readonly number[] = [400, 404];

export interface RejectionOptions {
  /** the MUST: a 4xx */
  requirement: string;
  /** the SHOULD: the exact status (`statuses`, default 400) */
  badRequest: string;
  /** the statuses the SHOULD expects (default [400]) */
  statuses?: readonly number[];
  what?: string;
  /** inside a property: the SHOULD's observations are collected here and judged after it (judgeBadRequests) */
  deferBadRequest?: Array<{ x: Exchange; what: string }>;
  /**
   * what the rule expects refused: the input (default: a 401 or 403 then decides nothing, unless `statuses` names it) or
   * the caller (an authentication or authorization rule, where a 401 or 403 is the rejection)
   */
  refusal?: 'input' | 'caller';
}

/**
 * A rejection where SPEC.md says "rejected" (MUST: a 4xx, not a busy 429 or the ledger's 499, which end the check in
 * error), and separately the SHOULD that it carries the status FACTS.md gives. Each is judged on its own.
 */
export async function judgeRejection(t: CheckContext, x: Exchange, o: RejectionOptions): Promise<void> {
  notBusy(t, x);
  if (o.refusal !== 'caller') refusesTheInput(x, o.statuses ?? [400]);
  const label = o.what ?? what(x);
  await t.judge(o.requirement, () => {
    t.expect(isClientError(x), `${label}: expected a 4xx rejection, got ${x.status}${excerpt(x) ? `: ${excerpt(x)}` : ''}`, { requirement: o.requirement, exchange: x });
  });
  if (!isClientError(x)) return;
  t.note(`rejections answered ${x.status} with a ${x.mediaType === 'application/json' ? 'JSON' : String(x.mediaType ?? 'no content-type')} body`);
  // inside a property the SHOULD is noted and judged after it (judgeBadRequests): its failure would end the property
  if (o.deferBadRequest !== undefined) {
    o.deferBadRequest.push({ x, what: label });
    return;
  }
  await judgeBadRequests(t, o.badRequest, [{ x, what: label }], o.statuses);
}

/** The SHOULD that rejections carry the exact status (default 400), over rejections a check or a property noted. */
export async function judgeBadRequests(t: CheckContext, badRequest: string, seen: Array<{ x: Exchange; what: string }>, statuses: readonly number[] = [400]): Promise<void> {
  if (seen.length === 0) return;
  const other = seen.find((s) => !statuses.includes(s.x.status));
  await t.judge(badRequest, () => {
    if (other !== undefined) t.fail(`${other.what}: rejected with ${other.x.status}, not ${statuses.join(' or ')}${excerpt(other.x) ? `: ${excerpt(other.x)}` : ''}`, { requirement: badRequest, exchange: other.x });
  });
}

/**
 * The MUST of a rejection alone (a 4xx; a busy 429, 503 or the ledger's 499 ends the check in error), where another
 * check judges the exact status with the code FACTS.md names (the *-code SHOULDs). Stops the check on a failure, as
 * t.expectStatus does.
 */
export function expectRejected(t: CheckContext, x: Exchange, o: { requirement?: string; what?: string; refusal?: 'input' | 'caller' } = {}): void {
  notBusy(t, x);
  if (o.refusal !== 'caller') refusesTheInput(x, []);
  t.expect(isClientError(x), `${o.what ?? what(x)}: expected a 4xx rejection, got ${x.status}${excerpt(x) ? `: ${excerpt(x)}` : ''}`, {
    exchange: x,
    ...(o.requirement !== undefined ? { requirement: o.requirement } : {}),
  });
}

/**
 * The cases of a check that sends several independent requests (one missing field each), each decided on its own: a
 * case whose answer can decide nothing (NoDecidingAnswer, TargetOverloaded: an overload, a gateway's page, a refusal
 * of the caller where the input was to be judged) ends that case, noted in the report, and the other cases still run.
 * `done()` ends the check in error with the first such reason when no case was decided at all: a check that decided
 * nothing does not pass.
 */
export function separateCases(t: CheckContext): { run(what: string, body: () => Promise<void>): Promise<void>; done(): void } {
  let decided = 0;
  const undecided: Error[] = [];
  return {
    async run(what, body) {
      try {
        await body();
        decided++;
      } catch (e) {
        if (!(e instanceof NoDecidingAnswer || e instanceof TargetOverloaded)) throw e;
        undecided.push(e);
        t.note(`not decided: ${what}: ${e.message.length > 240 ? `${e.message.slice(0, 240)}...` : e.message}`);
      }
    },
    done() {
      if (decided === 0 && undecided.length > 0) throw undecided[0]!;
    },
  };
}
