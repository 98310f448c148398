/**
 * The HTTP checks scan and the validator share: robustness (valid and malformed requests are answered with documented
 * statuses, content types and error bodies, never 5xx; the generic checks of every call judge them) and the /v0 path
 * prefix. Each API's test file declares them with its own literal ids, requests and probes.
 */
import type fc from 'fast-check';
import { conformance, type CallOptions, type CheckContext } from '../harness/conformance.js';

type V0Api = 'scan' | 'validator';

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
      for (const [op, o] of probes) {
        const x = await t.call(op, o);
        t.expect(x.status !== 404, `${x.record.request.method} ${x.record.request.url} answered 404: the endpoint is not served under /v0`, { exchange: x });
      }
    },
  );
}
