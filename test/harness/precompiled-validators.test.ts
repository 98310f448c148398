/**
 * The response validators compiled ahead of a run (harness/judging/precompiled-validators.ts) judge as the ones ajv compiles at
 * run time: for every response schema of the four documents, the same verdict and the same failure messages on a corpus
 * of bodies built from the schema itself (a filled-in example, then each of its fields removed, nulled and of another
 * type) and on arbitrary JSON values; likewise the validators of the FACTS.md constraints (SchemaRegistry.validateFacts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatErrors, SchemaRegistry } from '../../harness/judging/schemas.js';
import { SPECS_DIR } from '../../harness/paths.js';
import { APIS, type Api } from '../../harness/types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function at(doc: Json, pointer: string): unknown {
  return pointer
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((o, k) => (isObject(o) || Array.isArray(o) ? (o as Json)[k] : undefined), doc);
}

/** A body shaped by the schema: every property filled in, the first branch of each choice (not always valid). */
function example(doc: Json, schema: unknown, depth = 0): unknown {
  if (!isObject(schema) || depth > 8) return {};
  if (typeof schema.$ref === 'string') return example(doc, at(doc, schema.$ref), depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s) => example(doc, s, depth + 1)).filter(isObject));
  for (const k of ['oneOf', 'anyOf']) if (Array.isArray(schema[k])) return example(doc, (schema[k] as unknown[])[0], depth + 1);
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'array':
      return Array.from({ length: Math.max(1, Number(schema.minItems ?? 1)) }, () => example(doc, schema.items, depth + 1));
    case 'string':
      return schema.format === 'date-time' ? '2026-01-01T00:00:00.000000Z' : 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
    case 'integer':
    case 'number':
      return Number(schema.minimum ?? 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return Object.fromEntries(Object.entries(isObject(schema.properties) ? schema.properties : {}).map(([k, s]) => [k, example(doc, s, depth + 1)]));
  }
}

/** The example, and the example with each field (to two levels) removed, set to null, and given another type. */
function corpus(value: unknown): unknown[] {
  const out: unknown[] = [value];
  const vary = (v: unknown, set: (x: unknown) => unknown, level: number): void => {
    if (!isObject(v) || level > 1) return;
    for (const k of Object.keys(v)) {
      const { [k]: _, ...without } = v;
      out.push(set(without));
      for (const other of [null, 42, 'text', [], {}]) out.push(set({ ...v, [k]: other }));
      vary(v[k], (x) => set({ ...v, [k]: x }), level + 1);
    }
  };
  vary(value, (x) => x, 0);
  return out;
}

describe('precompiled response validators', () => {
  it('judge every response schema as the run-time ones do, with the same messages', { timeout: 60_000 }, () => {
    const pre = new SchemaRegistry(SPECS_DIR);
    expect(pre.precompileResponses()).toBe(true);
    const runtime = new SchemaRegistry(SPECS_DIR, { precompiled: false });
    const arbitrary = fc.sample(fc.jsonValue({ maxDepth: 3 }), { seed: 13, numRuns: 25 });
    let schemas = 0;
    let valid = 0;
    let invalid = 0;
    let factsJudged = 0;
    let factsBroken = 0;
    const seen = new Set<string>();
    for (const api of APIS as readonly Api[]) {
      const doc = pre.document(api);
      for (const op of pre.operations(api)) {
        for (const r of Object.values(op.responses)) {
          for (const m of Object.values(r.content)) {
            if (m.pointer === undefined || seen.has(`${api}${m.pointer}`)) continue;
            seen.add(`${api}${m.pointer}`);
            schemas++;
            expect(pre.isPrecompiled(api, m.pointer), `${api}${m.pointer} is precompiled`).toBe(true);
            expect(runtime.isPrecompiled(api, m.pointer)).toBe(false);
            const a = pre.validatorAt(api, m.pointer);
            const b = runtime.validatorAt(api, m.pointer);
            const facts = pre.factsRequirements(api, m.pointer).length > 0;
            if (facts) expect(pre.isFactsPrecompiled(api, m.pointer), `${api}${m.pointer}: its FACTS.md validators are precompiled`).toBe(true);
            for (const value of [...corpus(example(doc, at(doc, m.pointer))), ...arbitrary]) {
              const ok = a(value);
              expect(ok, `${api}${m.pointer} on ${JSON.stringify(value).slice(0, 300)}`).toBe(b(value));
              expect(formatErrors(a.errors, 100)).toEqual(formatErrors(b.errors, 100));
              if (facts) {
                const judged = pre.validateFacts(api, m, value);
                expect(judged, `${api}${m.pointer} FACTS.md on ${JSON.stringify(value).slice(0, 300)}`).toEqual(runtime.validateFacts(api, m, value));
                factsJudged += judged.length;
                factsBroken += judged.filter((j) => j.errors.length > 0).length;
              }
              if (ok) valid++;
              else invalid++;
            }
          }
        }
      }
    }
    expect(schemas).toBeGreaterThan(50);
    // the corpus reaches both outcomes (a filled-in example passes, its broken copies fail)
    expect(valid).toBeGreaterThan(100);
    expect(invalid).toBeGreaterThan(1000);
    // and the FACTS.md constraints are judged, kept and broken alike
    expect(factsJudged - factsBroken).toBeGreaterThan(20);
    expect(factsBroken).toBeGreaterThan(20);
  });
});
