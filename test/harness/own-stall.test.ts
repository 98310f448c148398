// A stall of the suite's own thread (garbage collection, a validator compiled, a machine short of CPU) is not the
// target's timeout: an answer that arrived while the thread could not run is read, not thrown away.
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, TransportError } from '../../harness/transport/http.js';
import type { ExchangeRecord } from '../../harness/types.js';

// a server on its own thread, so it answers while this one is blocked; it counts the answers it has written
const SERVER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const answered = new Int32Array(workerData);
const resetOnce = new Set();
const server = http.createServer((req, res) => {
  if (req.url === '/hang') return;
  // the first request to a /reset path loses its connection before any answer; a second is answered
  if (req.url.startsWith('/reset') && !resetOnce.has(req.url)) {
    resetOnce.add(req.url);
    req.socket.resetAndDestroy();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"items":[]}', () => { Atomics.add(answered, 0, 1); Atomics.notify(answered, 0); });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`;

let worker: Worker;
let url: string;
const answered = new Int32Array(new SharedArrayBuffer(4));

beforeAll(async () => {
  worker = new Worker(SERVER, { eval: true, workerData: answered.buffer });
  url = `http://127.0.0.1:${await new Promise<number>((r) => worker.once('message', r))}`;
});
afterAll(async () => {
  worker.postMessage('close');
  await new Promise((r) => worker.once('exit', r));
});

/** Blocks this thread until the server has written `count` answers (at most 5 s), then until `ms` have passed. */
function blockUntilAnswered(count: number, ms: number): void {
  const until = performance.now() + ms;
  for (let seen = Atomics.load(answered, 0); seen < count; seen = Atomics.load(answered, 0)) {
    if (Atomics.wait(answered, 0, seen, 5000) === 'timed-out') break;
  }
  while (performance.now() < until) {
    // the stall: nothing of this thread runs, neither timers nor sockets
  }
}

/** Blocks this thread for `ms` (a machine short of CPU): no timer, no socket of it runs meanwhile. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('a stall of the suite\'s own thread', () => {
  it('reads the answers that arrived during it rather than reporting the target as timed out', async () => {
    const client = new HttpClient({ api: 'scan', baseUrl: url, timeoutMs: 150, maxResponseBytes: 1 << 20 });
    const before = Atomics.load(answered, 0);
    const sent = [client.send({ method: 'GET', path: '/a' }), client.send({ method: 'GET', path: '/b' }), client.send({ method: 'GET', path: '/c' })];
    // the requests leave once this thread gets back to its loop; the stall begins when all three are answered
    await new Promise((r) => setTimeout(r, 20));
    // out of the timers' phase (as when an answer's handling stalls): the loop's next turn runs the timers first
    await new Promise((r) => setImmediate(r));
    blockUntilAnswered(before + 3, 400);
    const got = await Promise.allSettled(sent);
    expect(got.map((g) => (g.status === 'fulfilled' ? g.value.status : String(g.reason)))).toEqual([200, 200, 200]);
  });

  it('sends a read once more whose connection was reset before any answer just after this thread stalled', async () => {
    const records: ExchangeRecord[] = [];
    const client = new HttpClient({ api: 'scan', baseUrl: url, timeoutMs: 2000, maxResponseBytes: 1 << 20, onExchange: (r) => records.push(r) });
    stall(700);
    const x = await client.send({ method: 'GET', path: '/reset-read' });
    expect(x.status).toBe(200);
    expect(records.map((r) => r.response?.status ?? r.transportError)).toEqual([expect.stringMatching(/stalled \d+ ms during or just before it \(this machine was overloaded\)/), 200]);
    expect(records[0]!.ownStallMs).toBeGreaterThanOrEqual(500);
  });

  it('never sends a state-changing request again after its connection was reset, stalled or not', async () => {
    const records: ExchangeRecord[] = [];
    const client = new HttpClient({ api: 'scan', baseUrl: url, timeoutMs: 2000, maxResponseBytes: 1 << 20, onExchange: (r) => records.push(r) });
    stall(700);
    await expect(client.send({ method: 'POST', path: '/reset-write', json: {} })).rejects.toThrow(/this machine was overloaded/);
    expect(records).toHaveLength(1);
  });

  it('judges a reset read as it came when this thread was not stalled around it', async () => {
    const records: ExchangeRecord[] = [];
    // the largest bound a stall is measured against (a second): a machine this busy on its own is told apart below
    const client = new HttpClient({ api: 'scan', baseUrl: url, timeoutMs: 60_000, maxResponseBytes: 1 << 20, onExchange: (r) => records.push(r) });
    const got = await client.send({ method: 'GET', path: '/reset-calm' }).then((x) => x.status, (e: Error) => e.message);
    if (records[0]?.ownStallMs === undefined) {
      expect(got).toEqual(expect.stringMatching(/^request to .* failed: (ECONNRESET|UND_ERR_SOCKET)/));
      expect(records).toHaveLength(1);
    } else {
      // this machine stalled the thread for a second on its own: then, and only then, the read went again
      expect(got).toBe(200);
      expect(records).toHaveLength(2);
    }
  });

  it('still times out a target that does not answer', async () => {
    const client = new HttpClient({ api: 'scan', baseUrl: url, timeoutMs: 150, maxResponseBytes: 1 << 20 });
    const t0 = performance.now();
    const hung = client.send({ method: 'GET', path: '/hang' });
    await expect(hung).rejects.toBeInstanceOf(TransportError);
    await expect(hung).rejects.toThrow(/no response from .* within 150 ms \(run\.timeoutMs\)/);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
