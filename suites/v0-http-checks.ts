/**
 * The HTTP checks scan and the validator share: robustness (valid and malformed requests are answered with documented
 * statuses, content types and error bodies, never 5xx; the generic checks of every call judge them) and the /v0 path
 * prefix. Each API's test file declares them with its own literal ids, requests and probes. Also the helpers the scan,
 * validator and registry checks share for reading the real wire: busy answers (429, 503) that judge nothing, a
 * rejection judged as a 4xx (MUST) and as a 400 (SHOULD) apart, the validator user's token that every validator route
 * needs, and the WWW-Authenticate challenge of a 401.
 */
import type fc from 'fast-check';
import { conformance, type CallOptions, type CheckContext } from '../harness/conformance.js';
import { validatorUser } from '../harness/fixtures/scan.js';
import { TargetOverloaded, type Exchange } from '../harness/http.js';

export { validatorUser };

type V0Api = 'scan' | 'validator';

/**
 * Statuses any scan, validator or registry endpoint may answer under load or on a timeout (FACTS.md: 429 for gRPC
 * ABORTED, 503 for UNAVAILABLE): they say nothing about the rule a check is after, so none of them alone fails it.
 */
export const BUSY_STATUSES: readonly number[] = [429, 503];

const excerpt = (x: Exchange) => (x.text.length > 200 ? `${x.text.slice(0, 200)}...` : x.text);
const what = (x: Exchange) => `${x.record.request.method} ${x.operationId ?? x.record.request.url}`;

/**
 * Ends the check in error (TargetOverloaded, as t.expectStatus does), never in a failure, when the target answered a
 * busy status instead of the one a rule needs: nothing was judged.
 */
export function notBusy(_t: CheckContext, x: Exchange, wanted: readonly number[] = []): void {
  if (BUSY_STATUSES.includes(x.status) && !wanted.includes(x.status)) {
    throw new TargetOverloaded(`${what(x)} answered ${x.status} (overload or a timeout, which any scan, validator or registry endpoint may answer, FACTS.md): nothing judged`);
  }
}

/** t.expectStatus, with the busy statuses of scan, validator and registry ending the check in error, never in a failure. */
export function expectStatus(t: CheckContext, x: Exchange, status: number | number[], o: { requirement?: string; what?: string } = {}): void {
  notBusy(t, x, Array.isArray(status) ? status : [status]);
  t.expectStatus(x, status, o);
}

/**
 * A rejection where SPEC.md says "rejected" (MUST: a 4xx, not a busy 429), and separately the SHOULD that it is 400
 * (FACTS.md: Splice's servers answer 400 to what they cannot decode or accept). Each is judged on its own.
 */
export async function judgeRejection(
  t: CheckContext,
  x: Exchange,
  o: { requirement: string; badRequest: string; what?: string; deferBadRequest?: Array<{ x: Exchange; what: string }> },
): Promise<void> {
  notBusy(t, x);
  const label = o.what ?? what(x);
  await t.judge(o.requirement, () => {
    t.expect(x.status >= 400 && x.status < 500, `${label}: expected a 4xx rejection, got ${x.status}${excerpt(x) ? `: ${excerpt(x)}` : ''}`, { requirement: o.requirement, exchange: x });
  });
  if (x.status < 400 || x.status >= 500) return;
  t.note(`rejections answered ${x.status} with a ${x.mediaType === 'application/json' ? '{error} JSON' : String(x.mediaType ?? 'no content-type')} body`);
  // inside a property the SHOULD is noted and judged after it (judgeBadRequests): its failure would end the property
  if (o.deferBadRequest !== undefined) {
    o.deferBadRequest.push({ x, what: label });
    return;
  }
  await judgeBadRequests(t, o.badRequest, [{ x, what: label }]);
}

/** The SHOULD that rejections are 400, over rejections a property noted (judgeRejection's deferBadRequest). */
export async function judgeBadRequests(t: CheckContext, badRequest: string, seen: Array<{ x: Exchange; what: string }>): Promise<void> {
  if (seen.length === 0) return;
  const other = seen.find((s) => s.x.status !== 400);
  await t.judge(badRequest, () => {
    if (other !== undefined) t.fail(`${other.what}: rejected with ${other.x.status}, not 400${excerpt(other.x) ? `: ${excerpt(other.x)}` : ''}`, { requirement: badRequest, exchange: other.x });
  });
}


/** One property over generated requests; `requests` builds the arbitrary (it may look up ids first), `send` sends one. */
export function robustnessCheck<R>(
  d: { id: string; api: V0Api; operations: string[]; requirements: string[] },
  requests: (t: CheckContext) => Promise<fc.Arbitrary<R>>,
  send: (t: CheckContext, r: R) => Promise<unknown>,
): void {
  conformance(
    { ...d, title: 'answers valid and malformed requests with documented statuses, content types and error bodies, never 5xx' },
    async (t) => {
      await t.property(await requests(t), async (r) => {
        await send(t, r);
      }, { runs: t.config.run.runs });
    },
  );
}

/**
 * Valid requests to endpoints SPEC.md lists, none of which answers 404 for a valid request: a 404 means the endpoint is
 * not served under /v0.
 */
export function pathPrefixCheck(d: { id: string; api: V0Api; requirement: string }, probes: Array<[operationId: string, options: CallOptions]>): void {
  conformance(
    { id: d.id, title: 'serves every endpoint under /v0', api: d.api, operations: probes.map(([op]) => op), requirements: [d.requirement] },
    async (t) => {
      // every validator route needs the validator user's token: without it a 401 would say nothing about the path
      const auth = d.api === 'validator' ? await validatorUser(t) : undefined;
      for (const [op, o] of probes) {
        const x = await t.call(op, { ...(auth !== undefined ? { auth } : {}), ...o });
        notBusy(t, x);
        t.expect(x.status !== 404, `${x.record.request.method} ${x.record.request.url} answered 404: the endpoint is not served under /v0`, { exchange: x });
      }
    },
  );
}

/** the response carries a WWW-Authenticate challenge (any case of the header name) */
export function hasChallenge(x: Exchange): boolean {
  return Object.entries(x.headers).some(([k, v]) => k.toLowerCase() === 'www-authenticate' && typeof v === 'string' && v.trim() !== '');
}
