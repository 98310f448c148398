/**
 * The benchmark's latency profile (scripts/latency-profile.ts): which class each operation falls in, the proxy
 * that holds each answer for its class's delay, and the critical path read from a report.
 */
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { Client } from 'undici';
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
    const proxy = await profileProxy(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, profileWith('read=10,topology=1500'));
    try {
      const timed = async (path: string) => {
        const t0 = performance.now();
        const r = await fetch(`${proxy.url}${path}`, { method: 'POST', body: '{}' });
        await r.text();
        return { status: r.status, ms: performance.now() - t0 };
      };
      const party = await timed('/v2/parties');
      expect(party.status).toBe(200);
      expect(party.ms).toBeGreaterThanOrEqual(1495);
      const refused = await timed('/v2/nowhere');
      expect(refused.status).toBe(404);
      // not held as a topology change (1.5 s), with room for a loaded machine
      expect(refused.ms).toBeLessThan(1000);
    } finally {
      expect(await proxy.close()).toEqual({ topology: 1, read: 1 });
      server.closeAllConnections();
      server.close();
    }
  });

  it('passes every framing of HTTP/1.1 through unchanged, answers in order on a kept connection', async () => {
    // answers by Content-Length, chunked, to HEAD, 204, and one read until the target closes the connection
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url === '/chunked') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('a'.repeat(70_000));
          setTimeout(() => res.end('-end'), 5);
        } else if (req.url === '/empty') res.writeHead(204).end();
        else if (req.url === '/close') {
          res.socket?.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nuntil the end');
          res.socket?.end();
        } else {
          // a request's body echoed, or its URL: each answer says which request it is for
          const out = body !== '' ? `[${body}]` : JSON.stringify(req.url);
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(out)) }).end(out);
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const proxy = await profileProxy(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, profileWith('read=15,users=40'));
    // one connection: every request below shares it, so each answer must end where the framing says
    const client = new Client(proxy.url, { pipelining: 1 });
    try {
      const send = async (method: string, path: string, body?: string) => {
        const t0 = performance.now();
        const r = await client.request({ method: method as 'GET', path, ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}) });
        return { status: r.statusCode, text: await r.body.text(), ms: performance.now() - t0 };
      };
      const created = await send('POST', '/v2/users', '{"user":{"id":"a"}}');
      expect(created).toMatchObject({ status: 200, text: '[{"user":{"id":"a"}}]' });
      expect(created.ms).toBeGreaterThanOrEqual(38);
      const chunked = await send('GET', '/chunked');
      expect(chunked.text).toBe(`${'a'.repeat(70_000)}-end`);
      expect((await send('HEAD', '/chunked')).text).toBe('');
      expect(await send('DELETE', '/empty')).toMatchObject({ status: 204, text: '' });
      // a request body sent in chunks (no Content-Length) is skipped by its chunks
      const streamed = await client.request({ method: 'POST', path: '/echo', body: Readable.from(['{"x":', '1}']) });
      expect(await streamed.body.text()).toBe('[{"x":1}]');
      const t0 = performance.now();
      const many = await Promise.all(Array.from({ length: 5 }, (_, i) => send('GET', `/n${i}?q=${i}`)));
      expect(many.map((m) => m.text)).toEqual([0, 1, 2, 3, 4].map((i) => `"/n${i}?q=${i}"`));
      expect(performance.now() - t0).toBeGreaterThanOrEqual(5 * 14);
      expect(await send('GET', '/close')).toMatchObject({ status: 200, text: 'until the end' });
    } finally {
      await client.close();
      expect(await proxy.close()).toEqual({ users: 1, read: 10 });
      expect(proxy.busyMs).toBeGreaterThan(0);
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
