import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { CONFIG_AJV_OPTIONS } from '../../harness/config.js';
// @ts-expect-error: a plain JavaScript module without types
import { precompiledConfigValidator } from '../../bin/build.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'harness', 'config.schema.json'), 'utf8')) as object;

// the CLI bundle validates configurations with the validator bin/build.mjs precompiles (ajv standalone code); the
// sources (CC_NO_BUNDLE=1, tests) compile the schema at first use: both must give the same verdicts and errors
describe('the configuration validator precompiled into the CLI bundle', () => {
  it('accepts and rejects what the validator compiled at run time does, with the same errors', async () => {
    const source = precompiledConfigValidator(readFileSync(join(ROOT, 'harness', 'config.ts'), 'utf8')) as string | undefined;
    expect(source).toBeTypeOf('string');
    const file = join(mkdtempSync(join(tmpdir(), 'cc-validator-')), 'validator.mjs');
    writeFileSync(file, source!);
    const precompiled = (await import(pathToFileURL(file).href)).default as ValidateFunction;
    const compiled = new Ajv2020(CONFIG_AJV_OPTIONS).compile(schema);
    const configs: unknown[] = [
      {},
      { run: { seed: 7, runs: 3, only: ['ledger'] } },
      { run: { bogus: 1 } },
      { targets: { ledger: { url: 'ftp://x' } } },
      { targets: { ledger: { url: 'http://127.0.0.1:1', auth: { kind: 'foo' } } } },
      { targets: { ledger: { url: 'http://127.0.0.1:1', auth: { kind: 'static', tokens: {} } } } },
      { reference: { ledgerVersion: '9.9' } },
      { run: { seed: 'x' } },
    ];
    for (const c of configs) {
      const ok = compiled(c);
      expect(precompiled(c), JSON.stringify(c)).toBe(ok);
      const strip = (errs: typeof compiled.errors) => (errs ?? []).map(({ instancePath, keyword, params, data }) => ({ instancePath, keyword, params, data }));
      expect(strip(precompiled.errors), JSON.stringify(c)).toEqual(strip(compiled.errors));
    }
  });
});
