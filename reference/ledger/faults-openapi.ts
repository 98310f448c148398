/** Planted faults of the participant's own API description (GET /docs/openapi, FACTS.md). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerFaults, type FaultSet } from '../faults.js';
import { parseYaml } from '../../harness/setup/lazy-yaml.js';
import { SPECS_DIR } from '../../harness/paths.js';
import { ledgerOperationGone } from '../../harness/judging/versions.js';

export const OF = {
  noPaths: 'ledger-own-openapi-without-paths',
  goneListed: 'ledger-own-openapi-lists-removed-operations',
  servedLeftOut: 'ledger-own-openapi-leaves-out-update-user',
} as const;

const r = (name: string, requirement: string, description: string) => ({ name, requirement, description });
registerFaults([
  r(OF.noPaths, 'ledger.own-openapi.served', 'GET /docs/openapi answers a document without its paths object'),
  {
    ...r(OF.goneListed, 'ledger.own-openapi.omits-unserved-operations', "a 3.6 participant's document lists GET /v2/package-vetting and POST /v2/updates/transaction-by-offset, which 3.6 no longer serves"),
    reference: { ledgerVersion: '3.6' },
  },
  r(OF.servedLeftOut, 'ledger.own-openapi.lists-served-operations', "the document leaves out PATCH /v2/users/{user-id} (updateUser), which every version serves"),
]);

type Json = Record<string, unknown>;

/** The served document (JSON text) with the planted faults that are switched on applied to it. */
export function withOpenApiFaults(text: string, faults: FaultSet, version: string): string {
  const doc = JSON.parse(text) as Json;
  const paths = doc.paths as Record<string, Json>;
  if (faults.has(OF.goneListed)) {
    const written = parseYaml(readFileSync(join(SPECS_DIR, 'ledger.yaml'), 'utf8')) as { paths: Record<string, Record<string, Json>> };
    for (const [path, item] of Object.entries(written.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (typeof op.operationId === 'string' && ledgerOperationGone(version, op.operationId) !== undefined) paths[path] = { ...(paths[path] ?? {}), [method]: op };
      }
    }
  }
  if (faults.has(OF.servedLeftOut)) {
    const { patch: _left, ...rest } = paths['/v2/users/{user-id}'] ?? {};
    paths['/v2/users/{user-id}'] = rest;
  }
  if (faults.has(OF.noPaths)) delete doc.paths;
  return JSON.stringify(doc);
}

/** Whether a fault of the served document is switched on. */
export const openApiFaulty = (faults: FaultSet): boolean => Object.values(OF).some((f) => faults.has(f));
