import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { discoverScan, isObj } from '../../../harness/fixtures/scan.js';
import { expectStatus, validatorUser } from '../../v0-http-checks.js';

interface Providers {
  featured?: string;
  unfeatured: string;
}

const cache = new Map<string, Promise<Providers>>();

/**
 * A provider with a featured app right and one without: from fixtures (featuredProvider, unfeaturedProvider), else by
 * probing the app providers and parties scan discovery finds (at most 12 probes). Without a discovered unfeatured
 * party, a well-formed party id no one holds serves.
 */
function providers(t: CheckContext): Promise<Providers> {
  const key = t.target.url;
  let p = cache.get(key);
  if (p === undefined) {
    p = (async () => {
      const fixedFeatured = t.fixture<string>('featuredProvider');
      const fixedUnfeatured = t.fixture<string>('unfeaturedProvider');
      const auth = await validatorUser(t);
      const d = t.config.targets.scan !== undefined ? await discoverScan(t) : undefined;
      const candidates = [...new Set([...(d?.providers ?? []), ...(d?.parties ?? [])])].slice(0, 12);
      let featured = fixedFeatured;
      let unfeatured = fixedUnfeatured;
      for (const party of candidates) {
        if (featured !== undefined && unfeatured !== undefined) break;
        const x = await t.call('getFeaturedAppRight', { auth, params: { provider_party_id: party }, conform: false });
        const right = isObj(x.json) ? x.json.featured_app_right : undefined;
        if (x.status === 200 && isObj(right)) featured ??= party;
        else if (d?.providers.includes(party) !== true) unfeatured ??= party;
      }
      const hex = [...t.uniqueName('no-featured-app')].map((c) => c.charCodeAt(0).toString(16)).join('').padEnd(64, '0').slice(0, 64);
      return { ...(featured !== undefined ? { featured } : {}), unfeatured: unfeatured ?? `cc-unfeatured::1220${hex}` };
    })();
    cache.set(key, p);
  }
  return p;
}

describe('GET /v0/scan-proxy/featured-apps/{provider_party_id}', () => {
  conformance(
    {
      id: 'validator.get-featured-app-right.schema',
      title: "answers 200 with the featured_app_right Contract of a featured provider, whose payload names that provider",
      api: 'validator',
      operations: ['getFeaturedAppRight'],
      requirements: ['validator.get-featured-app-right.response-schema', 'validator.get-featured-app-right.provider-matches'],
    },
    async (t) => {
      // a provider without a right answering 200 is a FACTS.md rule (SHOULD), judged by absent-not-404, not here
      const featured = (await providers(t)).featured ?? t.skip('no provider with a featured app right found (discovery or fixtures.featuredProvider)');
      const x = await t.call('getFeaturedAppRight', { auth: await validatorUser(t), params: { provider_party_id: featured } });
      expectStatus(t, x, 200);
      const right = isObj(x.json) ? x.json.featured_app_right : undefined;
      t.expect(isObj(right), `featured provider ${featured} has no featured_app_right`, { exchange: x });
      // SPEC.md leaves the payload an object; a right that names its provider (Splice's FeaturedAppRight: {dso, provider})
      // must name the party asked for, else it is another provider's right
      const provider = isObj(right) && isObj(right.payload) ? right.payload.provider : undefined;
      await t.judge('validator.get-featured-app-right.provider-matches', () => {
        if (typeof provider !== 'string') t.skip("the right's payload names no provider (payload.provider) to compare with the path");
        t.expect(provider === featured, `the featured app right answered for ${featured} names provider ${String(provider)}: it is another provider's right`, { requirement: 'validator.get-featured-app-right.provider-matches', exchange: x });
      });
    },
  );

  conformance(
    {
      id: 'validator.get-featured-app-right.absent-not-404',
      title: 'answers 200 with featured_app_right absent or null for a provider without one',
      api: 'validator',
      operations: ['getFeaturedAppRight'],
      requirements: ['validator.get-featured-app-right.absent-not-404'],
    },
    async (t) => {
      const { unfeatured } = await providers(t);
      const x = await t.call('getFeaturedAppRight', { auth: await validatorUser(t), params: { provider_party_id: unfeatured } });
      expectStatus(t, x, 200);
      // FACTS.md allows both forms: absent or null
      const right = isObj(x.json) ? x.json.featured_app_right : undefined;
      t.expect(right === undefined || right === null, `provider ${unfeatured}, assumed without a featured app right, got ${JSON.stringify(right)} (neither absent nor null)`, { exchange: x });
    },
  );
});
