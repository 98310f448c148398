/**
 * The two parts of undici the suite uses, its connection pool (Agent) and its promise API (request), loaded on their
 * own. undici's entry module also loads fetch, WebSocket, the mock and cache layers, HTTP/2 and the proxy agents:
 * about 145 ms of compiling in every thread that imports it (the CLI's and each suite worker's), against 45 ms for
 * these two. The request API is undici's own `request`, called on our Agent as its entry module does (undici's
 * `makeDispatcher`): the URL split into origin and path, nothing else changed.
 */
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';

const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
const apiRequest = require('undici/lib/api/api-request.js') as (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/**
 * undici's ProxyAgent (a target reached through an HTTP proxy), its Pool (the pool of tunnels to one target) and Client
 * (doctor's CONNECT tunnel), loaded the first time one is needed: a run without a proxy never compiles them.
 */
export function undiciProxyAgent(): typeof import('undici').ProxyAgent {
  withConnectApi();
  return require('undici/lib/dispatcher/proxy-agent.js') as typeof import('undici').ProxyAgent;
}
export function undiciPool(): typeof import('undici').Pool {
  return require('undici/lib/dispatcher/pool.js') as typeof import('undici').Pool;
}
export function undiciClient(): typeof import('undici').Client {
  withConnectApi();
  return require('undici/lib/dispatcher/client.js') as typeof import('undici').Client;
}

/**
 * undici's CONNECT call (`dispatcher.connect()`), which its ProxyAgent opens a tunnel with: undici's entry module puts
 * it, with the rest of its API, on every dispatcher's prototype; loaded on its own, it is put there here, the same way.
 */
function withConnectApi(): void {
  const proto = (require('undici/lib/dispatcher/dispatcher.js') as { prototype: Record<string, unknown> }).prototype;
  proto.connect ??= require('undici/lib/api/api-connect.js');
}

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher };

/** undici's `request(url, options)` with an explicit dispatcher (the only way the suite calls it). */
export function request(url: string, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const u = new URL(url);
  const { dispatcher, ...rest } = options;
  return apiRequest.call(dispatcher, { ...rest, origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname, method: options.method ?? 'GET' });
}
