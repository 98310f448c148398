/**
 * docs/configuration.md is generated from harness/config.schema.json and harness/config.ts (npm run docs:config):
 * it must be what the generator writes now, name every setting of the schema, and every CONFORMANCE_* environment
 * variable the code reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV_VARS } from '../../harness/config.js';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { CONFIG_DOCS, renderConfigurationDocs } from '../../scripts/gen-config-docs.js';

type Schema = { properties?: Record<string, Schema>; $defs?: Record<string, Schema>; oneOf?: Schema[] };

let written: string;
let generated: string;
beforeAll(async () => {
  written = readFileSync(join(PACKAGE_ROOT, CONFIG_DOCS), 'utf8');
  generated = await renderConfigurationDocs();
});

/** every property name of the schema, at any depth */
function names(node: Schema, into = new Set<string>()): Set<string> {
  for (const [k, v] of Object.entries(node.properties ?? {})) {
    into.add(k);
    names(v, into);
  }
  for (const v of Object.values(node.$defs ?? {})) names(v, into);
  for (const v of node.oneOf ?? []) names(v, into);
  return into;
}

/** the CONFORMANCE_* names in the shipped code */
function envNamesInCode(): Set<string> {
  const found = new Set<string>();
  for (const dir of ['harness', 'bin', 'reference', 'suites', 'generators']) {
    for (const f of readdirSync(join(PACKAGE_ROOT, dir), { recursive: true }).map(String)) {
      if (!/\.(ts|mts|mjs|js)$/.test(f)) continue;
      for (const m of readFileSync(join(PACKAGE_ROOT, dir, f), 'utf8').matchAll(/\bCONFORMANCE_[A-Z][A-Z0-9_]*/g)) found.add(m[0]);
    }
  }
  return found;
}

describe('docs/configuration.md', () => {
  it('is what npm run docs:config writes from the schema now', () => {
    if (written !== generated) {
      expect.fail(`${CONFIG_DOCS} is out of date with harness/config.schema.json or harness/config.ts: run \`npm run docs:config\` and commit the result`);
    }
  });

  it('names every setting of the schema', () => {
    const schema = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'harness', 'config.schema.json'), 'utf8')) as Schema;
    // in a code span of a setting's path: `run.seed`, `targets.<api>.url`, `kind: oauth2`
    const missing = [...names(schema)].filter((n) => !new RegExp(`\`[^\`\\n]*\\b${n}\\b[^\`\\n]*\``).test(generated));
    expect(missing).toEqual([]);
  });

  it('names every CONFORMANCE_* environment variable the code reads', () => {
    const inCode = envNamesInCode();
    expect(inCode.size).toBeGreaterThan(5);
    for (const name of [...inCode, ...Object.keys(ENV_VARS)]) expect(generated, name).toContain(`\`${name}\``);
  });
});
