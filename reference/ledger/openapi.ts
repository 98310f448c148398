/**
 * GET /docs/openapi: the participant's own API description (FACTS.md), generated from specs/ledger.yaml for what this
 * reference serves: operations outside its version (x-since, x-until, the 3.6 removals) and, where traffic
 * enforcement is off, the traffic endpoints are left out. Served as the OpenAPI 3.1 document it is written in: a 3.0.3
 * rendering would lose `prefixItems` and `propertyNames` (3.0 has neither), and the open branch of the Right union
 * needs `propertyNames` to stay one of its `oneOf`. `spec-diff` and `run --also-validate-against` read it like any
 * participant's document; the 3.0 path (`nullable`) is covered by test documents instead.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parseYaml } from '../../harness/setup/lazy-yaml.js';
import { SPECS_DIR } from '../../harness/paths.js';
import { ledgerOperationGone, outOfRange } from '../../harness/judging/versions.js';
import type { ReferenceContext } from '../types.js';
import { openApiFaulty, withOpenApiFaults } from './faults-openapi.js';
import { route } from './http.js';
import { trafficEnabled } from './traffic.js';

type Json = Record<string, unknown>;
let written: Json | undefined;
const served = new Map<string, string>();

/** The document for one version and traffic setting, built on first request (a run that never asks pays nothing). */
function documentFor(version: string, traffic: boolean): string {
  const key = `${version}:${traffic}`;
  const hit = served.get(key);
  if (hit !== undefined) return hit;
  written ??= parseYaml(readFileSync(join(SPECS_DIR, 'ledger.yaml'), 'utf8')) as Json;
  const paths: Json = {};
  for (const [path, item] of Object.entries(written.paths as Record<string, Json>)) {
    const kept = Object.fromEntries(
      Object.entries(item).filter(([, op]) => {
        const o = op as Json;
        if (typeof o.operationId !== 'string') return true;
        if (outOfRange(version, o['x-since'] as string | undefined, o['x-until'] as string | undefined) !== undefined) return false;
        if (ledgerOperationGone(version, o.operationId) !== undefined) return false;
        return traffic || !path.startsWith('/v2/traffic/');
      }),
    );
    if (Object.keys(kept).length > 0) paths[path] = kept;
  }
  const text = JSON.stringify({ ...written, info: { ...(written.info as Json), version: `${version}.0`, 'x-versions': [version] }, paths });
  served.set(key, text);
  return text;
}

export function openApiRoutes(app: FastifyInstance, ctx: ReferenceContext): void {
  // like a participant's, the document needs no token
  route(app, ctx, 'GET', '/docs/openapi', async (c) => {
    const text = documentFor(ctx.options.ledgerVersion, trafficEnabled(ctx));
    c.reply.code(200).header('content-type', 'application/json').send(openApiFaulty(ctx.faults) ? withOpenApiFaults(text, ctx.faults, ctx.options.ledgerVersion) : text);
  });
}
