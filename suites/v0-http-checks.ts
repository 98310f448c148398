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
import type { Exchange } from '../harness/transport/http.js';
import { notBusy } from './rejections.js';

export { validatorUser };

type V0Api = 'scan' | 'validator';

/** t.expectStatus, with the busy statuses of scan, validator and registry ending the check in error, never in a failure. */
export function expectStatus(t: CheckContext, x: Exchange, status: number | number[], o: { requirement?: string; what?: string } = {}): void {
  notBusy(t, x, Array.isArray(status) ? status : [status]);
  t.expectStatus(x, status, o);
}

export { BUSY_STATUSES, judgeBadRequests, judgeRejection, MISSING_QUERY_STATUSES, notBusy } from './rejections.js';

/**
 * One property over generated requests; `requests` builds the arbitrary (it may look up ids first), `send` sends one.
 * `always` lists requests sent every run before the drawn ones (cases a draw at one seed may miss).
 */
export function robustnessCheck<R>(
  d: { id: string; api: V0Api; operations: string[]; requirements: string[] },
  requests: (t: CheckContext) => Promise<fc.Arbitrary<R>>,
  send: (t: CheckContext, r: R) => Promise<unknown>,
  always: readonly R[] = [],
): void {
  conformance(
    { ...d, title: 'answers valid and malformed requests with documented statuses, content types and error bodies, never 5xx' },
    async (t) => {
      for (const r of always) await send(t, r);
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
