/**
 * `canton-conformance spec-diff`: where a target's own API description parts from the suite's (specs/<api>.yaml), as
 * Markdown for people and JSON for tools. Requirement ids and version ranges stay the suite's own: a missing operation
 * the suite's version range (x-since, x-until, FACTS.md removals) does not expect at the target's version is listed
 * as expected, not as a difference.
 */
import { join, relative } from 'node:path';
import { loadCatalogue } from '../judging/catalogue.js';
import { PACKAGE_ROOT, SPECS_DIR } from '../paths.js';
import { redactText } from '../transport/redact.js';
import type { Api } from '../types.js';
import { ledgerOperationGone, outOfRange } from '../judging/versions.js';
import { diffDocuments, type SpecDiff } from './diff.js';
import { loadDocument, type FetchOptions, type Operation } from './document.js';

export { DocumentError, loadDocument, servedDocumentHeaders, servedDocumentUrl } from './document.js';
export type { SpecDiff } from './diff.js';

/** Why the target's document may lack one of the suite's operations at its version, per the suite's own knowledge. */
export function expectedMissing(api: Api): (op: Operation, version: string | undefined) => string | undefined {
  return (op, version) => {
    const since = typeof op.node['x-since'] === 'string' ? op.node['x-since'] : undefined;
    const until = typeof op.node['x-until'] === 'string' ? op.node['x-until'] : undefined;
    const range = outOfRange(version, since, until);
    if (range !== undefined) return `outside the suite's version range (${range})`;
    if (api === 'ledger') {
      const gone = op.operationId !== undefined ? ledgerOperationGone(version, op.operationId) : undefined;
      if (gone !== undefined) return gone;
      if (op.path.startsWith('/v2/traffic/')) return "FACTS.md: a participant's served document does not list the traffic endpoints";
    }
    return undefined;
  };
}

export interface SpecDiffOptions extends FetchOptions {
  api: Api;
  /** a file path or URL of the target's document */
  targetSpec: string;
  /** the target's version (--target-version, else a configured target's); for the ledger only, else its served document's info.version */
  version?: string;
  /** where `version` came from, said in the report */
  versionFrom?: string;
  specsDir?: string;
}

export async function specDiff(o: SpecDiffOptions): Promise<SpecDiff> {
  const file = join(o.specsDir ?? SPECS_DIR, `${o.api}.yaml`);
  const suite = await loadDocument(file);
  suite.source = relative(PACKAGE_ROOT, file) || file;
  const target = await loadDocument(o.targetSpec, o);
  // a URL may carry credentials (http://user:password@host): never printed
  target.source = redactText(target.source);
  const catalogue = loadCatalogue();
  const byOp = new Map<string, string[]>();
  for (const r of catalogue.requirements) if (r.api === o.api) for (const op of r.operations) byOp.set(op, [...(byOp.get(op) ?? []), r.id]);
  return diffDocuments(suite, target, {
    api: o.api,
    ...(o.version !== undefined ? { version: o.version } : {}),
    ...(o.versionFrom !== undefined ? { versionFrom: o.versionFrom } : {}),
    // a participant's served document names its running version (FACTS.md); a Splice document's info.version is 0.0.1
    // (the token-standard ones': their API versions), never the release
    documentVersionIsRelease: o.api === 'ledger',
    requirementsOf: (id) => byOp.get(id) ?? [],
    expectedMissing: expectedMissing(o.api),
  });
}

const CLASS_TEXT = { stricter: 'target stricter', looser: 'target looser', incompatible: 'incompatible' } as const;
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderSpecDiffMarkdown(d: SpecDiff): string {
  const c = d.counts;
  const out: string[] = [`# spec-diff: ${d.api}`, ''];
  out.push(`- suite's document: \`${d.suite.source}\` (OpenAPI ${d.suite.openapi}${d.suite.version !== undefined ? `, ${d.suite.version}` : ''})`);
  out.push(`- target's document: \`${d.target.source}\` (OpenAPI ${d.target.openapi}${d.target.title !== undefined ? `, "${d.target.title}"` : ''}${d.target.version !== undefined ? ` ${d.target.version}` : ''})`);
  if (d.judgedAtVersion !== undefined) out.push(`- expected differences judged for version ${d.judgedAtVersion}, from ${d.versionSource ?? 'the target version given'} (the suite's version ranges)`);
  for (const n of d.notes ?? []) out.push(`- **${n}**`);
  out.push(`- operations (matched by method and path): ${c.matched} matched, ${c.missing} missing from the target's document, ${c.extra} only in the target's${c.expected > 0 ? `, ${c.expected} missing as expected` : ''}`);
  out.push(`- **${c.differences === 0 ? 'no difference' : `${c.differences} difference${c.differences === 1 ? '' : 's'}`}**${c.differences > 0 ? `: ${c.stricter} target stricter, ${c.looser} target looser, ${c.incompatible} incompatible` : ''}`, '');
  out.push('Target stricter: a request or response valid under the suite\'s document may be invalid under the target\'s; looser: the reverse; incompatible: both. Nullability of optional response properties is not compared (FACTS.md: real servers send them as null).', '');
  for (const op of d.operations) {
    if (op.differences.length === 0 && op.expected === undefined && op.notes === undefined) continue;
    const ids = [op.operationId, op.targetOperationId !== undefined && op.targetOperationId !== op.operationId ? `target: ${op.targetOperationId}` : undefined].filter(Boolean).join('; ');
    out.push(`## ${op.method} ${op.path}${ids !== '' ? ` (${ids})` : ''}`, '');
    if (op.expected !== undefined) {
      out.push(`Not in the target's document, as expected: ${op.expected}.`, '');
      continue;
    }
    for (const n of op.notes ?? []) out.push(`Not a difference: ${n}.`, '');
    if (op.differences.length === 0) continue;
    if (op.requirements.length > 0) out.push(`Requirements on this operation: ${op.requirements.slice(0, 6).map((r) => `\`${r}\``).join(', ')}${op.requirements.length > 6 ? ` and ${op.requirements.length - 6} more` : ''}.`, '');
    out.push('| where | what | suite | target | class |', '|---|---|---|---|---|');
    for (const x of op.differences) out.push(`| ${cell(x.at)} | ${x.kind} | ${cell(x.suite)} | ${cell(x.target)} | ${CLASS_TEXT[x.classification]} |`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}

export function renderSpecDiffJson(d: SpecDiff): string {
  return `${JSON.stringify(d, null, 2)}\n`;
}
