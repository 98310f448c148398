/**
 * Requests derived from the specs (generators/derived.ts): one check per operation sends its valid request (the control:
 * built from fixtures and discovery, so that it is valid on the target, not only against the schema), then, per kind of
 * mutation, a property over requests that differ from it by exactly one mutation of that kind. The MUST of each kind is
 * "answered with a 4xx" (no 2xx, no 5xx; a 429, 503 or ledger 499 judges nothing); the status and body form FACTS.md
 * gives is one SHOULD per interface, judged after the properties over every rejection they saw.
 *
 * Beside them, and not repeated here: ledger.errors.malformed-requests sends JSON that does not parse (no single
 * mutation of a valid request) and judges the 400 text/plain its catalogue entry states; ledger.errors.missing-field
 * leaves out generate-topology's synchronizer, whose empty default the document allows but FACTS.md refuses (an unknown
 * synchronizer); the scan and validator robustness probes send what lies beyond any schema (unicode, 25-digit numbers,
 * ids that exist nowhere) and judge the generic rules only. These checks judge what those cannot: that each single
 * violation of the document is refused at all, on a request the target otherwise accepts.
 */
import { conformance, type CallAuth, type CallOptions, type CheckContext } from '../harness/conformance.js';
import { saysNothingOfTheRule } from '../harness/judging/checks.js';
import { TargetOverloaded, type Exchange } from '../harness/transport/http.js';
import { schemaRegistry } from '../harness/judging/schemas.js';
import type { Api } from '../harness/types.js';
import { outOfRange } from '../harness/judging/versions.js';
import { applyMutation, describeMutation, mutationSites, mutationsOfKind, type DerivedRequest, type Mutation, type MutationKind } from '../generators/derived.js';
import { excerpt, MISSING_QUERY_STATUSES, refusesTheInput } from './rejections.js';

export type { DerivedRequest };

/** The kinds whose rejection is a MUST on an operation SPEC.md describes (a scalar of the wrong JSON type, a non-integer). */
const MUST_KINDS: readonly MutationKind[] = ['wrong-type', 'non-integer'];

/**
 * The requirement a mutation kind is judged by, per interface. On an operation only FACTS.md describes (`x-setup`), the
 * MUST kinds are judged by a SHOULD of their own (`<api>.derived.setup-<kind>-rejected`): FACTS.md's rules are SHOULD.
 */
export const rejectedRequirement = (api: Api, kind: MutationKind, setup = false): string => `${api}.derived.${setup && MUST_KINDS.includes(kind) ? 'setup-' : ''}${kind}-rejected`;
/** The SHOULD of the status and body form of those rejections, per interface. */
export const formRequirement = (api: Api): string => `${api}.derived.rejection-400`;

/** What a check needs to send its operation's valid request. */
export interface Prepared {
  /** a valid request; called for every request sent, so that it can carry fresh names where one may be used once */
  request: () => DerivedRequest;
  auth?: CallAuth;
  /** sent with every request (a binary body, headers) */
  extra?: Pick<CallOptions, 'body' | 'headers'>;
  /** what a valid answer is (default: a 2xx); why the target answered otherwise is the skip reason */
  accepted?: (x: Exchange) => boolean;
  /** judges a control request the target did not accept before the check skips (a registry's unsupported kind) */
  refused?: (x: Exchange) => Promise<void>;
}

export interface DerivedCheck {
  api: Api;
  operationId: string;
  /** the kinds of mutation the operation's request can carry (literal, so that the declaration says what is judged) */
  kinds: readonly MutationKind[];
  prepare: (t: CheckContext) => Promise<Prepared>;
  /** target state its valid requests change, which other checks read (harness/run/shared-state.ts) */
  shares?: readonly string[];
  /**
   * a mutation that the target's own settings make a valid request (a page size up to a scan's configured maximum,
   * above the document's): not sent, nothing judged
   */
  validOnTarget?: (t: CheckContext, m: Mutation) => boolean;
  /** target state its valid requests read and need unchanged, which other checks change (harness/run/shared-state.ts) */
  reads?: readonly string[];
}

const kebab = (op: string) => op.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The form FACTS.md gives a rejection; undefined when it has it. */
function formProblem(api: Api, m: Mutation, x: Exchange): string | undefined {
  const kind = m.kind;
  // a Splice request without a required query parameter: the framework's 404 text/plain or a handler's 400 (FACTS.md)
  const statuses = api !== 'ledger' && kind === 'required-removed' && m.loc === 'query' ? MISSING_QUERY_STATUSES : [400];
  if (!statuses.includes(x.status)) return `answered ${x.status}, not ${statuses.join(' or ')}`;
  const json = x.mediaType === 'application/json' ? (x.json as Record<string, unknown> | undefined) : undefined;
  if (api === 'ledger') {
    // a wrong JSON type and a value that is no integer do not decode: text/plain (FACTS.md); the rest is text/plain or
    // a JsCantonError (a lenient decoder fills a missing field with its empty default and then fails validation)
    if ((kind === 'wrong-type' || kind === 'non-integer') && x.mediaType !== 'text/plain') return `a 400 with Content-Type ${String(x.mediaType)}, not text/plain`;
    if (x.mediaType !== 'text/plain' && typeof json?.code !== 'string') return `a 400 that is neither text/plain nor a JsCantonError (Content-Type ${String(x.mediaType)})`;
    return undefined;
  }
  if (x.mediaType !== 'text/plain' && typeof json?.error !== 'string') return `a 400 that is neither text/plain nor an {error} body (Content-Type ${String(x.mediaType)})`;
  return undefined;
}

/** Declares the derived check of one operation. */
export function derivedCheck(d: DerivedCheck): void {
  const setup = schemaRegistry().operation(d.api, d.operationId).setup;
  const requirements = [...d.kinds.map((k) => rejectedRequirement(d.api, k, setup)), formRequirement(d.api)];
  conformance(
    {
      id: `${d.api}.derived.${kebab(d.operationId)}`,
      title: `rejects ${d.operationId} requests with one mutation each (${d.kinds.join(', ')}) with a 4xx`,
      api: d.api,
      operations: [d.operationId],
      requirements,
      ...(d.shares !== undefined ? { shares: [...d.shares] } : {}),
      ...(d.reads !== undefined ? { reads: [...d.reads] } : {}),
    },
    async (t) => {
      const op = t.schemas.operation(d.api, d.operationId);
      const range = outOfRange(t.target.version, op.since, op.until);
      if (range !== undefined) t.skip(`${d.operationId} is not served at the target's version (${range})`);
      const prep = await d.prepare(t);
      const send = (r: DerivedRequest): Promise<Exchange> =>
        t.call(d.operationId, {
          params: r.params,
          query: r.query,
          ...(r.json !== undefined ? { json: r.json } : {}),
          ...(prep.auth !== undefined ? { auth: prep.auth } : {}),
          ...prep.extra,
        });
      // the control: the request without a mutation is accepted, so that a rejection can only be about the mutation
      const control = await send(prep.request());
      if (saysNothingOfTheRule(d.api, control.status)) throw new TargetOverloaded(`the valid ${d.operationId} request answered ${control.status} (overload, cancellation or a gateway error): nothing judged`);
      const accepted = prep.accepted ?? ((x: Exchange) => x.status >= 200 && x.status < 300);
      if (!accepted(control)) await prep.refused?.(control);
      if (!accepted(control)) t.skip(`the valid ${d.operationId} request built from the fixtures answered ${control.status}, so no rejection could be laid to a mutation: ${excerpt(control)}`);
      const sites = mutationSites(t.schemas.document(d.api), d.operationId, prep.request(), { lenient: d.api === 'ledger', ...(t.target.version !== undefined ? { version: t.target.version } : {}) });
      // the kinds are judged at once (each its own requirement, its requests carry no state the others read), and the
      // cases of a kind too; what each saw is kept in the order of the kinds, and within one by the mutation, so the
      // form judged below does not depend on which answer came first
      const seenByKind = await Promise.all(
        d.kinds.map(async (kind) => {
          const seenHere: Array<{ x: Exchange; m: Mutation }> = [];
          const requirement = rejectedRequirement(d.api, kind, setup);
          const arb = mutationsOfKind(sites, kind);
          if (arb === undefined) {
            t.notObserved(requirement, `no field of the valid ${d.operationId} request can carry a ${kind} mutation by the OpenAPI document`);
            return seenHere;
          }
          await t.judge(requirement, () =>
            t.property(
              arb,
              async (m) => {
                if (d.validOnTarget?.(t, m) === true) return;
                const x = await send(applyMutation(prep.request(), m));
                if (saysNothingOfTheRule(d.api, x.status)) throw new TargetOverloaded(`${d.operationId} with ${describeMutation(m)} answered ${x.status} (overload, cancellation or a gateway error): nothing judged`);
                refusesTheInput(x, []);
                t.expect(x.status >= 400 && x.status < 500, `${d.operationId} with ${describeMutation(m)}: expected a 4xx rejection, got ${x.status}${excerpt(x) ? `: ${excerpt(x)}` : ''}`, { requirement, exchange: x });
                seenHere.push({ x, m });
              },
              { name: `${kind} mutations of ${d.operationId}`, runs: t.scaledRuns(2), requirement, concurrent: true },
            ),
          );
          return seenHere.map((h) => ({ ...h, key: describeMutation(h.m) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        }),
      );
      const seen = seenByKind.flat();
      const form = formRequirement(d.api);
      if (seen.length === 0) {
        t.notObserved(form, 'no mutated request was rejected');
        return;
      }
      const bad = seen.map((s) => ({ ...s, problem: formProblem(d.api, s.m, s.x) })).find((s) => s.problem !== undefined);
      t.note(`rejections answered ${[...new Set(seen.map((s) => `${s.x.status} ${String(s.x.mediaType ?? 'no content-type')}`))].join(', ')}`);
      await t.judge(form, () => {
        if (bad !== undefined) t.fail(`${d.operationId} with ${describeMutation(bad.m)}: ${bad.problem}${excerpt(bad.x) ? `: ${excerpt(bad.x)}` : ''}`, { requirement: form, exchange: bad.x });
      });
    },
  );
}
