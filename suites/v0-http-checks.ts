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
import { saysNothingOfTheRule } from '../harness/checks.js';
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
  if ((BUSY_STATUSES.includes(x.status) || saysNothingOfTheRule(x.api, x.status)) && !wanted.includes(x.status)) {
    throw new TargetOverloaded(`${what(x)} answered ${x.status} (overload, a timeout, a cancellation or a gateway error, which any endpoint may answer): nothing judged`);
  }
}

/** t.expectStatus, with the busy statuses of scan, validator and registry ending the check in error, never in a failure. */
export function expectStatus(t: CheckContext, x: Exchange, status: number | number[], o: { requirement?: string; what?: string } = {}): void {
  notBusy(t, x, Array.isArray(status) ? status : [status]);
  t.expectStatus(x, status, o);
}

export { judgeBadRequests, judgeRejection } from './rejections.js';

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
