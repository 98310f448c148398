/**
 * `doctor` on a validator target: every validator route needs the validator user's token (FACTS.md); without one the
 * checks that need it are skipped (named, no set-up problem), a refused one is a problem.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from '../../harness/setup/doctor.js';
import { DEFAULT_RUN, type Config, type TargetConfig } from '../../harness/config.js';
import { startReference, type ReferenceServer } from '../../reference/index.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReference();
});
afterAll(async () => server.close());

const target = (url: string, auth: TargetConfig['auth']): TargetConfig => ({ url, version: '0.8.0', auth, features: {}, fixtures: {}, disabledRequirements: [], headers: {} });
const config = (validator: TargetConfig): Config => ({ run: { ...DEFAULT_RUN, only: ['validator'] }, targets: { validator }, reference: { faults: [] }, useReference: false, sources: ['test'] }) as Config;

describe('doctor on a validator target', () => {
  it('names the missing token: without one every validator check is skipped', async () => {
    const [line] = await doctor(config(target(server.urls.validator, { kind: 'none' })));
    expect(line?.ok).toBe(false);
    expect(line?.status).toBe('skip');
    expect(line?.detail).toMatch(/role "user"/);
    expect(line?.detail).toMatch(/scan-proxy/);
  });

  it('probes entry/all and a scan-proxy route with the validator user token', async () => {
    const [line] = await doctor(config(target(server.urls.validator, { kind: 'hs256', secret: server.auth.hs256Secret, users: { user: server.auth.validatorUser } })));
    // no problem; without a second validator user (role secondUser) the one check that needs it is skipped, named
    expect(line?.findings.filter((f) => f.kind === 'problem')).toEqual([]);
    expect(line?.status).toBe('skip');
    expect(line?.detail).toMatch(/no credential for role "secondUser"/);
    expect(line?.detail).toMatch(/entry\/all as user: 200/);
    expect(line?.detail).toMatch(/scan-proxy\/open-and-issuing-mining-rounds as user: 200/);
  });
});
