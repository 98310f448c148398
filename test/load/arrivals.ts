/**
 * A loopback target that only counts: each request's arrival time, answered 200 `{"items":[]}` at once. The rate-limit
 * tests read the busiest window of arrivals from it, measured where a real target would count them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ArrivalCounter {
  url: string;
  /** Date.now() of each request's arrival, in order */
  arrivals: number[];
  close(): Promise<void>;
}

export async function arrivalCounter(): Promise<ArrivalCounter> {
  const arrivals: number[] = [];
  const server = createServer((_req, res) => {
    arrivals.push(Date.now());
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"items":[]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The most arrivals within any window of `ms` milliseconds. */
export function busiestWindow(arrivals: number[], ms: number): number {
  const a = [...arrivals].sort((x, y) => x - y);
  let most = 0;
  for (let i = 0, j = 0; i < a.length; i++) {
    while (a[i]! - a[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
