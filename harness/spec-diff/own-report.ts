/**
 * The report of `run --also-validate-against`: the findings of every check grouped, and the summary.md section
 * "where the target disagrees with its own API description". Information only: no verdict reads it.
 */
import type { Api, CheckResultMeta, OwnDescriptionFinding } from '../types.js';
import type { OwnDescriptionSource } from './validate.js';

export interface OwnDescriptionReport {
  documents: Partial<Record<Api, { source: string; openapi: string }>>;
  /** responses judged against the target's own description */
  responses: number;
  /** distinct findings, each with how often it was seen and by which checks (at most 3 named) */
  findings: Array<OwnDescriptionFinding & { count: number; checks: string[] }>;
}

/** The run's findings, grouped: one line per operation, status, kind and message. */
export function summarizeOwnDescription(docs: Partial<Record<Api, OwnDescriptionSource>>, checks: readonly CheckResultMeta[]): OwnDescriptionReport {
  const groups = new Map<string, OwnDescriptionReport['findings'][number]>();
  let responses = 0;
  for (const c of checks) {
    if (c.ownDescription === undefined) continue;
    responses += c.ownDescription.responses;
    for (const f of c.ownDescription.findings) {
      const key = `${f.api}|${f.operation}|${f.status}|${f.kind}|${f.message}`;
      const g = groups.get(key) ?? { ...f, count: 0, checks: [] };
      g.count++;
      if (g.checks.length < 3 && !g.checks.includes(c.id)) g.checks.push(c.id);
      groups.set(key, g);
    }
  }
  const findings = [...groups.values()].sort((a, b) => Number(a.nullOnly ?? false) - Number(b.nullOnly ?? false) || a.operation.localeCompare(b.operation) || a.status - b.status);
  return { documents: Object.fromEntries(Object.entries(docs).map(([api, d]) => [api, { source: d.source, openapi: d.openapi }])), responses, findings };
}

/** The summary.md section: information only, apart from every verdict. */
export function renderOwnDescription(r: OwnDescriptionReport): string[] {
  const main = r.findings.filter((f) => f.nullOnly !== true);
  const nulls = r.findings.filter((f) => f.nullOnly === true);
  const out = ['## Where the target disagrees with its own API description (information only)', ''];
  for (const [api, d] of Object.entries(r.documents)) out.push(`- ${api}: \`${d.source}\` (OpenAPI ${d.openapi})`);
  out.push(`- ${r.responses} responses judged against it; ${main.length} distinct disagreement(s), ${nulls.length} more only by null for optional properties the document does not mark nullable (the wire form FACTS.md describes)`, '');
  out.push('No verdict and no exit code depends on this section: it compares the target with its own description, not with the specification.', '');
  const line = (f: OwnDescriptionReport['findings'][number]) => `- \`${f.operation}\` ${f.status} (${f.kind}, ${f.count}x, e.g. \`${f.checks[0] ?? ''}\`): ${f.message}`;
  out.push(...main.map(line));
  if (nulls.length > 0) out.push('', 'Only by null for optional properties:', '', ...nulls.map(line));
  return out;
}
