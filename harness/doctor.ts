/**
 * `canton-conformance doctor`: before a long run, checks that each configured target answers and that its
 * credentials are accepted, with one cheap request per interface. It judges no requirement.
 */
import type { Config } from './config.js';
import { AuthUnavailable, TokenProvider } from './auth.js';
import { HttpClient, TransportError, type HttpRequest } from './http.js';
import type { Api } from './types.js';

interface Probe {
  what: string;
  request: HttpRequest;
  role?: string;
  /** statuses that show the interface is there and the credentials work */
  ok: number[];
}

const PROBES: Record<Api, Probe> = {
  ledger: { what: 'GET /v2/version as admin', request: { method: 'GET', path: '/v2/version' }, role: 'admin', ok: [200] },
  scan: { what: 'GET /v0/ans-entries?page_size=1', request: { method: 'GET', path: '/v0/ans-entries', query: { page_size: 1 } }, ok: [200] },
  validator: { what: 'GET /v0/entry/all as user', request: { method: 'GET', path: '/v0/entry/all' }, role: 'user', ok: [200] },
  registry: {
    what: 'POST a transfer-instruction withdraw context for an unknown id',
    request: { method: 'POST', path: '/registry/transfer-instruction/v1/00doctor/choice-contexts/withdraw', json: {} },
    ok: [404, 400],
  },
};

const VALIDATOR_NEEDS_TOKEN =
  'no bearer token for role "user": every validator route, the scan-proxy routes included, needs the validator user\'s token (configure targets.validator.auth with a token, secret or client for role "user"); without it the validator checks are skipped with this reason';

export interface DoctorLine {
  api: Api;
  url: string;
  ok: boolean;
  detail: string;
}

export async function doctor(config: Config): Promise<DoctorLine[]> {
  const lines: DoctorLine[] = [];
  for (const [api, target] of Object.entries(config.targets) as Array<[Api, NonNullable<Config['targets'][Api]>]>) {
    if (!config.run.only.includes(api)) continue;
    const probe = PROBES[api];
    const client = new HttpClient({ api, baseUrl: target.url, timeoutMs: config.run.timeoutMs, maxResponseBytes: config.run.maxResponseBytes, retries: config.run.retries, retryMaxWaitMs: config.run.retryMaxWaitMs, maxJsonDepth: config.run.maxJsonDepth, maxHeaderBytes: config.run.maxHeaderBytes, headers: target.headers });
    let token: string | undefined;
    if (api === 'validator' && target.auth.kind === 'none') {
      lines.push({ api, url: target.url, ok: false, detail: VALIDATOR_NEEDS_TOKEN });
      continue;
    }
    if (probe.role !== undefined && target.auth.kind !== 'none') {
      try {
        token = await new TokenProvider(target.auth, config.run.timeoutMs, config.run.maxResponseBytes, config.run.maxHeaderBytes, config.run.maxJsonDepth).tokenFor(probe.role);
      } catch (e) {
        const why = e instanceof AuthUnavailable ? e.message : `cannot get a token: ${(e as Error).message}`;
        lines.push({ api, url: target.url, ok: false, detail: api === 'validator' ? `${why}: ${VALIDATOR_NEEDS_TOKEN}` : why });
        continue;
      }
    }
    try {
      const x = await client.send({ ...probe.request, ...(token !== undefined ? { token } : {}) });
      const ok = probe.ok.includes(x.status);
      const hint = x.status === 401 || x.status === 403 ? ' (the credentials were refused: check auth)' : x.status === 404 && api !== 'registry' ? ' (not found: check the base URL)' : '';
      let detail = `${probe.what}: ${x.status} in ${x.record.durationMs} ms${ok ? '' : hint}`;
      let allOk = ok;
      if (api === 'validator') {
        // the scan-proxy routes need the token too (FACTS.md), whatever user it names
        const proxy = await client.send({ method: 'GET', path: '/v0/scan-proxy/open-and-issuing-mining-rounds', ...(token !== undefined ? { token } : {}) });
        const proxyOk = proxy.status === 200;
        allOk &&= proxyOk;
        detail += `; GET /v0/scan-proxy/open-and-issuing-mining-rounds as user: ${proxy.status}${proxyOk ? '' : proxy.status === 401 || proxy.status === 403 ? ' (the token was refused on a scan-proxy route)' : ''}`;
      }
      if (api === 'ledger' && ok) {
        // what the set-up steps and the reassignment checks will find (FACTS.md): informative, never a failure
        const syncs = await client.send({ method: 'GET', path: '/v2/state/connected-synchronizers', ...(token !== undefined ? { token } : {}) });
        const list = (syncs.json as { connectedSynchronizers?: unknown } | undefined)?.connectedSynchronizers;
        const n = Array.isArray(list) ? list.length : undefined;
        detail += n === undefined
          ? `; GET /v2/state/connected-synchronizers: ${syncs.status}`
          : `; ${n} connected synchronizer(s)${n < 2 ? ' (the reassignment checks need two and will be skipped)' : ' (party allocation and vetting uploads will name one: fixture synchronizerId, else the first)'}`;
      }
      lines.push({ api, url: target.url, ok: allOk, detail });
    } catch (e) {
      lines.push({ api, url: target.url, ok: false, detail: e instanceof TransportError ? e.message : (e as Error).message });
    }
  }
  return lines;
}
