/**
 * A folder of the user's own checks, run beside the built-in ones (--checks-dir, run.checksDir): its *.check.ts files
 * (in subfolders too) declare checks with the same conformance() wrapper, and its requirements.yaml lists the user's own
 * requirements, under a prefix of their choosing, never one of the suite's (ledger., scan., validator., registry.).
 *
 *   requirements:
 *     - id: acme.users.empty-id-400
 *       api: ledger                  # the interface it is about (or one `api:` at the top for every requirement)
 *       level: SHOULD                # MUST, SHOULD or MAY
 *       statement: creating a user with an empty id is answered 400
 *       operations: [createUser]     # optional: the operationIds it is about
 *       source: ACME operations guide, section 4   # optional: where the rule comes from
 *       quote: "..."                 # optional: the words it rests on
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Requirement } from '../judging/catalogue.js';
import { readYamlCached } from '../setup/yaml-cache.js';
import { APIS, type Api, type Level } from '../types.js';

/** The requirements file of a checks folder. */
export const VENDOR_REQUIREMENTS = 'requirements.yaml';

/** The suite's own id prefixes: a folder's requirement may not take one. */
const OWN_PREFIXES = APIS.map((a) => `${a}.`);

/** A checks folder whose requirements file or checks cannot be used. */
export class ChecksDirError extends Error {
  override name = 'ChecksDirError';
}

/** The check files of a folder, absolute paths in a stable order (node_modules and dot folders left out). */
export function checkFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (depth > 8) return;
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p, depth + 1);
      else if (e.isFile() && e.name.endsWith('.check.ts')) out.push(p);
    }
  };
  walk(dir, 0);
  return out;
}

/** The requirements of a checks folder, each checked: every problem of the file at once. */
export function loadVendorRequirements(dir: string): Requirement[] {
  const file = join(dir, VENDOR_REQUIREMENTS);
  let doc: unknown;
  try {
    doc = readYamlCached(file);
  } catch (e) {
    throw new ChecksDirError(`${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0]}`);
  }
  const top = (typeof doc === 'object' && doc !== null ? doc : {}) as { api?: unknown; requirements?: unknown };
  if (!Array.isArray(top.requirements) || top.requirements.length === 0) throw new ChecksDirError(`${file} lists no requirement: expected "requirements:" with a list of { id, api, level, statement }`);
  const problems: string[] = [];
  const out: Requirement[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of (top.requirements as unknown[]).entries()) {
    const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const id = typeof r.id === 'string' ? r.id : '';
    const at = id !== '' ? id : `requirements[${i}]`;
    if (!/^[A-Za-z0-9][\w-]*(\.[\w-]+)+$/.test(id)) problems.push(`${at}: the id must be dotted words with your own prefix, e.g. acme.users.empty-id-400`);
    else if (OWN_PREFIXES.some((p) => id.startsWith(p))) problems.push(`${id}: ids starting with ${OWN_PREFIXES.join(', ')} are the suite's own; give yours a prefix of your own (e.g. acme.)`);
    else if (seen.has(id)) problems.push(`${id}: listed twice`);
    seen.add(id);
    const api = r.api ?? top.api;
    if (!(APIS as readonly unknown[]).includes(api)) problems.push(`${at}: api must be one of ${APIS.join(', ')} (here or at the top of the file)`);
    const level = r.level ?? 'MUST';
    if (!['MUST', 'SHOULD', 'MAY'].includes(level as string)) problems.push(`${at}: level must be MUST, SHOULD or MAY`);
    if (typeof r.statement !== 'string' || r.statement.trim() === '') problems.push(`${at}: a statement is needed (what the target must do)`);
    const operations = r.operations ?? [];
    if (!Array.isArray(operations) || operations.some((o) => typeof o !== 'string')) problems.push(`${at}: operations must be a list of operationIds`);
    out.push({
      id,
      api: api as Api,
      level: level as Level,
      statement: String(r.statement ?? ''),
      quote: String(r.quote ?? ''),
      operations: Array.isArray(operations) ? operations.map(String) : [],
      source: String(r.source ?? file),
      observable: true,
    });
  }
  if (problems.length > 0) throw new ChecksDirError(`${file}: ${problems.length === 1 ? problems[0] : `${problems.length} problems:\n  ${problems.join('\n  ')}`}`);
  return out;
}

/** Why a folder cannot be a checks folder, or undefined when it can. */
export function checksDirProblem(dir: string): string | undefined {
  if (!existsSync(dir)) return `${dir} does not exist (a folder of *.check.ts files and a ${VENDOR_REQUIREMENTS})`;
  if (!statSync(dir).isDirectory()) return `${dir} is not a folder (a folder of *.check.ts files and a ${VENDOR_REQUIREMENTS})`;
  if (!existsSync(join(dir, VENDOR_REQUIREMENTS))) return `${dir} has no ${VENDOR_REQUIREMENTS}: it lists the ids its checks cite`;
  try {
    loadVendorRequirements(dir);
  } catch (e) {
    return (e as Error).message;
  }
  if (checkFiles(dir).length === 0) return `${dir} holds no *.check.ts file`;
  return undefined;
}
