/**
 * The benchmark's latency profile (issue 23, scripts/latency-profile.ts): which class each operation falls in, the proxy
 * that holds each answer for its class's delay, and the critical path read from a report.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { criticalPathOf, delayOf, LATENCY_PROFILE, profileProxy, profileWith } from '../../scripts/latency-profile.js';

describe('the latency profile', () => {
  it('puts each operation in its class, an upload that vets in two, and a rejection among the reads', () => {
    const ms = (method: string, url: string, status = 200) => delayOf(method, url, status).ms;
    expect(Object.fromEntries(LATENCY_PROFILE.map((c) => [c.name, c.ms]))).toEqual({ read: 20, users: 50, topology: 400, submission: 250, upload: 800, vetting: 500 });
    expect(ms('GET', '/v2/users')).toBe(20);
    expect(ms('POST', '/v2/package-vetting/list')).toBe(20);
    expect(ms('GET', '/api/scan/v0/ans-entries?page_size=5')).toBe(20);
    expect(ms('POST', '/v2/users')).toBe(50);
    expect(ms('PATCH', '/v2/users/u-1')).toBe(50);
    expect(ms('DELETE', '/v2/users/u-1')).toBe(50);
    expect(ms('POST', '/v2/users/u-1/rights')).toBe(50);
    expect(ms('PATCH', '/v2/users/u-1/rights')).toBe(50);
    expect(ms('GET', '/v2/users/u-1/rights')).toBe(20);
    expect(ms('POST', '/v2/parties')).toBe(400);
    expect(ms('POST', '/v2/parties/external/generate-topology')).toBe(400);
    expect(ms('POST', '/v2/traffic/accounts')).toBe(400);
    expect(ms('POST', '/v2/commands/submit-and-wait-for-transaction-tree')).toBe(250);
    expect(ms('POST', '/v2/commands/submit-and-wait-for-reassignment')).toBe(250);
    expect(ms('POST', '/v2/packages?vetAllPackages=false')).toBe(800);
    expect(ms('POST', '/v2/packages?vetAllPackages=true&synchronizerId=s')).toBe(1300);
    expect(ms('POST', '/v2/dars')).toBe(1300);
    expect(ms('POST', '/v2/parties', 409)).toBe(20);
    expect(ms('POST', '/v2/packages', 400)).toBe(20);
    expect(delayOf('POST', '/v2/packages', 200, profileWith('upload=100,vetting=0')).ms).toBe(100);
    expect(() => profileWith('uploads=5')).toThrow(/not one of/);
  });

  it('holds an answer for its class\'s delay, and counts the requests of each class', async () => {
    const server = createServer((req, res) => res.writeHead(req.url === '/v2/parties' ? 200 : 404, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const proxy = await profileProxy(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, profileWith('read=10,topology=300'));
    try {
      const timed = async (path: string) => {
        const t0 = performance.now();
        const r = await fetch(`${proxy.url}${path}`, { method: 'POST', body: '{}' });
        await r.text();
        return { status: r.status, ms: performance.now() - t0, keepAlive: r.headers.get('keep-alive') };
      };
      const party = await timed('/v2/parties');
      expect(party.status).toBe(200);
      expect(party.ms).toBeGreaterThanOrEqual(295);
      // the target's keep-alive is not forwarded: the proxy's own connections are kept for 60 s
      expect(party.keepAlive).not.toBe('timeout=72');
      const refused = await timed('/v2/nowhere');
      expect(refused.status).toBe(404);
      expect(refused.ms).toBeLessThan(250);
    } finally {
      expect(await proxy.close()).toEqual({ topology: 1, read: 1 });
      server.closeAllConnections();
      server.close();
    }
  });

  it('reads the critical path off a report: the longest chain of a check, or of the checks that share a lock', () => {
    const checks = [
      { id: 'a', chain: { ms: 4000, requests: 10 }, durationMs: 4100 },
      { id: 'b', shares: ['vetting'], chain: { ms: 2500, requests: 3 } },
      { id: 'c', shares: ['vetting'], chain: { ms: 2000, requests: 2 } },
      { id: 'd', shares: ['traffic'], chain: { ms: 100, requests: 1 } },
      { id: 'e' },
    ];
    expect(criticalPathOf(checks)).toEqual({ check: { id: 'a', ms: 4000, requests: 10, wallMs: 4100 }, shared: { resource: 'vetting', ms: 4500, requests: 5, checks: 2 }, ms: 4500 });
    expect(criticalPathOf([])).toEqual({ ms: 0 });
    // checks that only read the state run beside each other: the longest of them counts, once
    const readers = [...checks, { id: 'r1', reads: ['vetting'], chain: { ms: 700, requests: 4 } }, { id: 'r2', reads: ['vetting'], chain: { ms: 300, requests: 9 } }];
    expect(criticalPathOf(readers).shared).toEqual({ resource: 'vetting', ms: 5200, requests: 9, checks: 3 });
  });
});
