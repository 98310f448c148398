/** The requirement catalogue, specs/requirements/<api>.yaml: every normative rule with a stable id. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SPECS_DIR } from '../paths.js';
import { readYamlCached } from '../setup/yaml-cache.js';
import { loadVendorRequirements } from '../run/vendor-checks.js';
import { APIS, type Api, type Level } from '../types.js';

export interface Requirement {
  id: string;
  api: Api;
  level: Level;
  statement: string;
  /** the words of SPEC.md or FACTS.md the requirement rests on (verbatim but for whitespace; passages joined by " ... ") */
  quote: string;
  operations: string[];
  source: string;
  since?: string;
  until?: string;
  features?: string[];
  observable: boolean;
  /** why no black-box HTTP client can observe the rule (set exactly when observable is false) */
  whyNotObservable?: string;
}

/** The catalogue a run judges against: the suite's (or a test's own), and the run's checks folder's requirements. */
export const catalogueOf = (config: { run: { checksDir?: string }; internal?: { catalogueDir?: string } }): Catalogue => loadCatalogue(config.internal?.catalogueDir, config.run.checksDir);

export interface Catalogue {
  requirements: Requirement[];
  byId: Map<string, Requirement>;
}

const cache = new Map<string, Catalogue>();

/**
 * Loads the catalogue of a folder (the shipped one by default); an interface without a file has no requirements. With
 * `checksDir` (run.checksDir), the requirements of that folder's requirements.yaml too (harness/run/vendor-checks.ts).
 */
export function loadCatalogue(dir = join(SPECS_DIR, 'requirements'), checksDir?: string): Catalogue {
  if (checksDir !== undefined) {
    const key = `${dir}\0${checksDir}`;
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const requirements = [...loadCatalogue(dir).requirements, ...loadVendorRequirements(checksDir)];
    const catalogue = { requirements, byId: new Map(requirements.map((r) => [r.id, r])) };
    cache.set(key, catalogue);
    return catalogue;
  }
  const hit = cache.get(dir);
  if (hit !== undefined) return hit;
  const requirements: Requirement[] = [];
  for (const api of APIS) {
    const file = join(dir, `${api}.yaml`);
    if (!existsSync(file)) continue;
    const doc = readYamlCached(file) as { api?: string; requirements?: Array<Partial<Requirement>> };
    for (const r of doc.requirements ?? []) {
      requirements.push({
        id: String(r.id),
        api,
        level: (r.level ?? 'MUST') as Level,
        statement: String(r.statement ?? ''),
        quote: String(r.quote ?? ''),
        operations: r.operations ?? [],
        source: String(r.source ?? ''),
        ...(r.since !== undefined ? { since: String(r.since) } : {}),
        ...(r.until !== undefined ? { until: String(r.until) } : {}),
        ...(r.features !== undefined ? { features: r.features } : {}),
        observable: r.observable !== false,
        ...(r.whyNotObservable !== undefined ? { whyNotObservable: String(r.whyNotObservable) } : {}),
      });
    }
  }
  const catalogue = { requirements, byId: new Map(requirements.map((r) => [r.id, r])) };
  cache.set(dir, catalogue);
  return catalogue;
}
