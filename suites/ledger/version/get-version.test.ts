import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';

describe('GET /v2/version', () => {
  conformance(
    {
      id: 'ledger.get-version.schema',
      title: 'answers 200 with a body that matches the version schema',
      api: 'ledger',
      operations: ['getVersion'],
      requirements: ['ledger.get-version.response-schema'],
    },
    async (t) => {
      const x = await t.call('getVersion');
      t.expectStatus(x, 200);
    },
  );
});

describe('GET /v2/version limits', () => {
  conformance(
    {
      id: 'ledger.get-version.limits',
      title: 'advertises the users, rights and vetted-packages page limits, with maxRightsPerUser 0 or at least 100',
      api: 'ledger',
      operations: ['getVersion'],
      requirements: ['ledger.get-version.advertises-limits', 'ledger.get-version.max-rights-per-user-range'],
    },
    async (t) => {
      const x = await t.call('getVersion');
      t.expectStatus(x, 200, { requirement: 'ledger.get-version.advertises-limits' });
      const f = (x.json as { features?: { userManagement?: Record<string, unknown>; packageFeature?: Record<string, unknown> } } | undefined)?.features;
      const um = f?.userManagement ?? {};
      await t.judge('ledger.get-version.advertises-limits', () => {
        for (const [name, v] of [['maxUsersPageSize', um.maxUsersPageSize], ['maxRightsPerUser', um.maxRightsPerUser], ['maxVettedPackagesPageSize', f?.packageFeature?.maxVettedPackagesPageSize]] as const) {
          t.expect(Number.isInteger(v), `${name} is not advertised`, { requirement: 'ledger.get-version.advertises-limits', exchange: x });
        }
      });
      await t.judge('ledger.get-version.max-rights-per-user-range', () => {
        const max = um.maxRightsPerUser;
        if (!Number.isInteger(max)) t.skip('maxRightsPerUser is not advertised');
        t.expect(max === 0 || (max as number) >= 100, `maxRightsPerUser is ${String(max)}`, { requirement: 'ledger.get-version.max-rights-per-user-range', exchange: x });
      });
    },
  );
});
