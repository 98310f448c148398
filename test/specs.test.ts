import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, SPECS_DIR } from '../harness/paths.js';
import { SchemaRegistry } from '../harness/judging/schemas.js';
import { APIS } from '../harness/types.js';

describe('OpenAPI documents', () => {
  it.each(APIS)('%s.yaml validates with swagger-parser', async (api) => {
    const doc = parseYaml(readFileSync(join(SPECS_DIR, `${api}.yaml`), 'utf8')) as object;
    await expect(SwaggerParser.validate(doc as never)).resolves.toBeDefined();
  });

  it('every response schema compiles in the harness schema registry', () => {
    const reg = new SchemaRegistry();
    let compiled = 0;
    for (const op of reg.operations()) {
      for (const r of Object.values(op.responses)) {
        for (const m of Object.values(r.content)) {
          if (m.pointer === undefined) continue;
          expect(() => reg.validatorAt(op.api, m.pointer!), `${op.operationId} ${r.status}`).not.toThrow();
          compiled++;
        }
      }
    }
    expect(compiled).toBeGreaterThan(100);
  });

  it('passes the conventions check (operationIds, x-requirement, documented errors, sample bodies)', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'scripts/check-specs.ts')], { encoding: 'utf8', timeout: 120_000 });
    expect(out).toContain('all documents pass');
  });

  it('validates a body against a named component, with errors naming the field', () => {
    const reg = new SchemaRegistry();
    expect(reg.validateComponent('scan', 'AnsEntry', { user: 'p', name: 'n', url: '', description: '', expires_at: null })).toEqual([]);
    const errors = reg.validateComponent('scan', 'AnsEntry', { user: 'p', name: 3, url: '', description: '' });
    expect(errors.join()).toContain('body.name');
  });
});
