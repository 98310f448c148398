import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe } from 'vitest';
import { conformance, type CallOptions } from '../../../harness/conformance.js';
import { invalidIntegerText, invalidPathOrQueryText } from '../../../generators/scan/Malformed.js';
import { validatorUserIfAny } from '../../../harness/fixtures/scan.js';
import { hasChallenge, judgeBadRequests, notBusy, pathPrefixCheck, robustnessCheck } from '../../v0-http-checks.js';
import type { Exchange } from '../../../harness/transport/http.js';

describe('Validator HTTP behaviour', () => {
  robustnessCheck(
    {
      id: 'validator.http.robustness',
      api: 'validator',
      operations: ['listOwnedAnsEntries', 'getOpenAndIssuingMiningRounds', 'getFeaturedAppRight', 'listScanProxyAnsEntries'],
      requirements: ['validator.http.no-server-error', 'validator.http.documented-status', 'validator.http.documented-content-type', 'validator.errors.error-body'],
    },
    async () =>
      fc.oneof(
        fc.record({ op: fc.constant('listOwnedAnsEntries' as const), token: fc.option(invalidPathOrQueryText(), { nil: undefined }) }),
        fc.record({ op: fc.constant('getOpenAndIssuingMiningRounds' as const), anonymous: fc.boolean() }),
        fc.record({ op: fc.constant('getFeaturedAppRight' as const), party: invalidPathOrQueryText() }),
        // page sizes that do not parse (a framework rejection) and integers out of range (a handler error)
        fc.record({ op: fc.constant('listScanProxyAnsEntries' as const), prefix: fc.option(invalidPathOrQueryText(), { nil: undefined }), size: fc.oneof(invalidIntegerText(), fc.constantFrom('10', '0', '1001', '-3')) }),
      ),
    async (t, r) => {
      if (r.op === 'listOwnedAnsEntries') return t.call('listOwnedAnsEntries', { auth: r.token === undefined ? 'none' : { token: r.token.replace(/[^\x21-\x7e]/g, '_').slice(0, 2000) } });
      // every other route is called as the validator user (FACTS.md) where the target configures one, and now and
      // then without a token: any answer is judged by the generic checks
      const auth = await validatorUserIfAny(t);
      if (r.op === 'getOpenAndIssuingMiningRounds') return t.call('getOpenAndIssuingMiningRounds', { auth: r.anonymous ? 'none' : auth });
      if (r.op === 'getFeaturedAppRight') return t.call('getFeaturedAppRight', { auth, params: { provider_party_id: r.party } });
      return t.call('listScanProxyAnsEntries', { auth, query: { page_size: r.size, ...(r.prefix !== undefined ? { name_prefix: r.prefix } : {}) } });
    },
  );

  // GET /v0/entry/all is left out: it documents 404 (a user not onboarded), so a 404 says nothing about its path
  pathPrefixCheck({ id: 'validator.versioning.path-prefix', api: 'validator', requirement: 'validator.versioning.path-prefix' }, [
    ['getOpenAndIssuingMiningRounds', {}],
    ['listScanProxyAnsEntries', { query: { page_size: 1 } }],
  ]);
});

/** a well-formed party id no one holds, for probing the featured-apps route */
const PROBE_PARTY = `cc-probe::1220${'0'.repeat(64)}`;

/** the body fields of each scan-proxy route that carry proxied data */
const SCAN_PROXY_PROBES: Array<[operationId: string, options: CallOptions, data: string[]]> = [
  ['getOpenAndIssuingMiningRounds', {}, ['open_mining_rounds', 'issuing_mining_rounds']],
  ['getFeaturedAppRight', { params: { provider_party_id: PROBE_PARTY } }, ['featured_app_right']],
  ['listScanProxyAnsEntries', { query: { page_size: 5 } }, ['entries']],
];

describe('Validator scan-proxy authentication', () => {
  conformance(
    {
      id: 'validator.scan-proxy.requires-token',
      title: 'refuses every scan-proxy request without a bearer token with 401 or 403, proxying no data, and challenges with WWW-Authenticate on a 401',
      api: 'validator',
      operations: SCAN_PROXY_PROBES.map(([op]) => op),
      requirements: ['validator.scan-proxy.requires-auth', 'validator.auth.www-authenticate', 'validator.auth.unauthenticated-401'],
    },
    async (t) => {
      let unauthorized = 0;
      const refused: Array<{ x: Exchange; what: string }> = [];
      for (const [op, o, data] of SCAN_PROXY_PROBES) {
        const x = await t.call(op, { ...o, auth: 'none' });
        notBusy(t, x);
        if (x.status >= 400 && x.status < 500) refused.push({ x, what: `${op} without a bearer token` });
        await t.judge('validator.scan-proxy.requires-auth', () => {
          t.expect([401, 403].includes(x.status), `${op} without a bearer token answered ${x.status}, not 401 or 403: every validator route needs a token (FACTS.md)`, { requirement: 'validator.scan-proxy.requires-auth', exchange: x });
          const body = x.json as Record<string, unknown> | undefined;
          const leaked = data.filter((k) => body !== null && typeof body === 'object' && body[k] !== undefined && body[k] !== null);
          t.expect(leaked.length === 0, `${op} without a bearer token sent ${leaked.join(', ')}`, { requirement: 'validator.scan-proxy.requires-auth', exchange: x });
        });
        if (x.status !== 401) continue;
        unauthorized++;
        await t.judge('validator.auth.www-authenticate', () => {
          t.expect(hasChallenge(x), `${op} answered 401 without a WWW-Authenticate header`, { requirement: 'validator.auth.www-authenticate', exchange: x });
        });
      }
      // FACTS.md: a missing token is answered 401 (the SHOULD; which refusal, 401 or 403, the rule above accepts)
      await judgeBadRequests(t, 'validator.auth.unauthenticated-401', refused, [401]);
      if (refused.length === 0) t.notObserved('validator.auth.unauthenticated-401', 'no scan-proxy request without a token was refused with a 4xx');
      if (unauthorized === 0) t.notObserved('validator.auth.www-authenticate', 'no scan-proxy request without a token was answered 401');
    },
  );
});

const INVALID_TOKEN = 'validator.scan-proxy.invalid-token-rejected';

/**
 * Bearer tokens no validator may take: garbage, a JWT signed with a secret the target does not know, an unsigned one
 * (alg none), each naming the configured validator user (so that only the signature is wrong).
 */
function invalidTokens(sub: string): Array<[what: string, token: string]> {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const claims = { sub, aud: 'https://canton.network.global', exp: Math.floor(Date.now() / 1000) + 600 };
  const head = `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(claims)}`;
  return [
    ['garbage', 'not-a-jwt'],
    ['wrongly signed', `${head}.${createHmac('sha256', randomBytes(32)).update(head).digest('base64url')}`],
    ['unsigned (alg none)', `${enc({ alg: 'none', typ: 'JWT' })}.${enc(claims)}.`],
  ];
}

describe('Validator scan-proxy authentication: invalid tokens', () => {
  conformance(
    {
      id: 'validator.scan-proxy.invalid-token',
      title: 'refuses every scan-proxy request with a garbage, wrongly signed or unsigned bearer token with 401 or 403, proxying no data',
      api: 'validator',
      operations: SCAN_PROXY_PROBES.map(([op]) => op),
      requirements: [INVALID_TOKEN],
    },
    async (t) => {
      const auth = t.target.auth as { kind: string; users?: Record<string, string> };
      const sub = (auth.kind === 'hs256' ? auth.users?.user : undefined) ?? t.fixture<string>('validatorUser') ?? 'validator_user';
      for (const [op, o, data] of SCAN_PROXY_PROBES) {
        for (const [what, token] of invalidTokens(sub)) {
          const x = await t.call(op, { ...o, auth: { token } });
          notBusy(t, x);
          await t.judge(INVALID_TOKEN, () => {
            t.expect([401, 403].includes(x.status), `${op} with a ${what} bearer token answered ${x.status}, not 401 or 403: the scan-proxy routes take only a valid user token (FACTS.md)`, { requirement: INVALID_TOKEN, exchange: x });
            const body = x.json as Record<string, unknown> | undefined;
            const leaked = data.filter((k) => body !== null && typeof body === 'object' && body[k] !== undefined && body[k] !== null);
            t.expect(leaked.length === 0, `${op} with a ${what} bearer token sent ${leaked.join(', ')}`, { requirement: INVALID_TOKEN, exchange: x });
          });
        }
      }
    },
  );
});
