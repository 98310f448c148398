import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../harness/paths.js';
import { loadCatalogue } from '../harness/judging/catalogue.js';
import { SchemaRegistry } from '../harness/judging/schemas.js';
import { APIS } from '../harness/types.js';

const catalogue = loadCatalogue();
const schemas = new SchemaRegistry();
const kebab = (id: string) => id.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);

describe('requirement catalogue', () => {
  it('passes the catalogue check (keys, levels, statements, sources, coverage of the OpenAPI documents)', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'scripts/check-catalogue.ts')], { encoding: 'utf8', timeout: 120_000 });
    expect(out).toContain('catalogue OK');
  });

  it('finds a quote outside the section its source names, and accepts it when the source cites that section too', async () => {
    const { sections, quoteSectionProblem, splitSources } = await import('../scripts/check-catalogue.js');
    const doc = ['# Title', 'intro words here', '## Errors', 'errors answer 409 here', '### Deep', 'deep sentence', '## Limits', 'at least 25 legs'].join('\n');
    const s = sections(doc);
    expect(s.map((x) => x.heading)).toEqual(['Title', 'Errors', 'Deep', 'Limits']);
    // a level-2 section holds its sub-sections; the title only its introduction
    expect(quoteSectionProblem('deep sentence', 'SPEC.md', s[1])).toBeUndefined();
    expect(quoteSectionProblem('deep sentence', 'SPEC.md', s[0])).toMatch(/outside the section/);
    expect(quoteSectionProblem('at least 25 legs ... errors answer 409 here', 'SPEC.md', s[3])).toMatch(/outside the section.*errors answer 409/);
    const union = { heading: 'Limits; Errors', text: `${s[3]?.text} \u0000 ${s[1]?.text}` };
    expect(quoteSectionProblem('at least 25 legs ... errors answer 409 here', 'SPEC.md', union)).toBeUndefined();
    expect(splitSources('SPEC.md: Limits; SPEC.md: Resources and fields > Right (union in field kind; exactly one variant)')).toEqual([
      'SPEC.md: Limits',
      'SPEC.md: Resources and fields > Right (union in field kind; exactly one variant)',
    ]);
  });

  it('quotes, for every requirement, the words of SPEC.md or FACTS.md it rests on (check-catalogue finds them there)', () => {
    for (const r of catalogue.requirements) expect(r.quote.trim().length, r.id).toBeGreaterThanOrEqual(8);
  });

  it('says why each requirement that is not observable cannot be observed', () => {
    for (const r of catalogue.requirements.filter((x) => !x.observable)) expect(r.whyNotObservable?.length ?? 0, r.id).toBeGreaterThan(20);
  });

  it('holds well over 100 requirements across the four interfaces', () => {
    expect(catalogue.requirements.length).toBeGreaterThan(100);
    for (const api of APIS) expect(catalogue.requirements.filter((r) => r.api === api).length).toBeGreaterThan(0);
  });

  it('has unique, well-formed ids that start with their interface', () => {
    const seen = new Set<string>();
    for (const r of catalogue.requirements) {
      expect(seen.has(r.id), `duplicate ${r.id}`).toBe(false);
      seen.add(r.id);
      expect(r.id).toMatch(/^[a-z0-9]+(\.[a-z0-9-]+)+$/);
      expect(r.id.startsWith(`${r.api}.`), r.id).toBe(true);
    }
  });

  it('gives every requirement a valid level, a statement and a source', () => {
    for (const r of catalogue.requirements) {
      expect(['MUST', 'SHOULD', 'MAY'], r.id).toContain(r.level);
      expect(r.statement.length, r.id).toBeGreaterThan(10);
      expect(r.source, r.id).toMatch(/SPEC\.md|FACTS\.md/);
      for (const v of [r.since, r.until]) if (v !== undefined) expect(v, r.id).toMatch(/^\d+(\.\d+){0,2}$/);
    }
  });

  it('names only operations that exist in the OpenAPI documents', () => {
    for (const r of catalogue.requirements) {
      for (const op of r.operations) expect(schemas.hasOperation(r.api, op), `${r.id} names ${op}`).toBe(true);
    }
  });

  it('holds every id the harness derives: response-schema per operation, http and errors per interface', () => {
    const missing: string[] = [];
    for (const op of schemas.operations()) {
      const id = `${op.api}.${kebab(op.operationId)}.response-schema`;
      if (!catalogue.byId.has(id)) missing.push(id);
    }
    for (const api of APIS) {
      for (const id of [`${api}.http.documented-status`, `${api}.http.documented-content-type`, `${api}.http.no-server-error`]) {
        if (!catalogue.byId.has(id)) missing.push(id);
      }
    }
    for (const id of ['ledger.errors.malformed-request-text-plain', 'ledger.errors.canton-error-shape', 'scan.errors.error-body', 'validator.errors.error-body', 'registry.errors.error-body']) {
      if (!catalogue.byId.has(id)) missing.push(id);
    }
    expect(missing).toEqual([]);
  });

  it('holds every x-requirement the OpenAPI documents name', () => {
    const missing: string[] = [];
    for (const op of schemas.operations()) {
      for (const r of Object.values(op.responses)) {
        for (const id of [r.requirement, ...Object.values(r.content).map((m) => m.requirement)]) {
          if (id !== undefined && !catalogue.byId.has(id)) missing.push(`${op.operationId} ${r.status}: ${id}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
