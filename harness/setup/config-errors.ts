/**
 * A configuration that fails its schema is reported whole: every problem at once, each with the file and line it is
 * on (when it is in the file, not set by a flag or the environment) and, for an unknown setting, the closest known
 * ones ("did you mean").
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorObject } from 'ajv';
import { closest } from '../run/selection.js';

type Yaml = typeof import('yaml');

/** A JSON pointer's segments (`/targets/ledger` -> targets, ledger). */
const segments = (pointer: string): string[] => (pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')));

/**
 * The 1-based line of the setting at `path` in a YAML (or JSON) text: of its key when `key` is set (an unknown setting
 * is named by its key), else of its value. Undefined when the text does not hold it (a flag or the environment set it).
 */
export function lineOf(text: string, path: string[], key = false): number | undefined {
  const yaml = createRequire(import.meta.url)('yaml') as Yaml;
  const counter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter: counter });
  let node: unknown = doc.contents;
  let at: [number, number, number] | undefined = (node as { range?: [number, number, number] } | null)?.range;
  for (const [i, seg] of path.entries()) {
    if (yaml.isMap(node)) {
      const pair = node.items.find((p) => String(yaml.isScalar(p.key) ? p.key.value : p.key) === seg);
      if (pair === undefined) return undefined;
      const k = pair.key as { range?: [number, number, number] } | null;
      const v = pair.value as { range?: [number, number, number] } | null;
      at = i === path.length - 1 && key ? k?.range : (v?.range ?? k?.range);
      node = pair.value;
    } else if (yaml.isSeq(node)) {
      const item = node.items[Number(seg)] as { range?: [number, number, number] } | undefined;
      if (item === undefined) return undefined;
      at = item.range;
      node = item;
    } else return undefined;
  }
  return at === undefined ? undefined : counter.linePos(at[0]).line;
}

/** The known settings beside an unknown one (the schema's properties where it stands). */
function knownNames(e: ErrorObject): string[] {
  const props = (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props === undefined ? [] : Object.keys(props);
}

/**
 * The problems of a configuration that failed its schema, one line each, deduplicated: `describe` words each ajv
 * error; a oneOf's summary is left out when its branches said more. `file` (when the configuration came from one) gives
 * each problem its line.
 */
export function schemaProblems(errors: readonly ErrorObject[], describe: (e: ErrorObject) => string, file?: string): string[] {
  let text: string | undefined;
  if (file !== undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = undefined;
    }
  }
  // a oneOf (the auth kinds) reports each branch's errors and then its own summary: with a discriminator only the
  // chosen branch's errors come, and the summary adds nothing
  const useful = errors.filter((e) => !(['oneOf', 'anyOf', 'if'].includes(e.keyword) && errors.some((o) => o !== e && o.instancePath.startsWith(e.instancePath) && !['oneOf', 'anyOf', 'if'].includes(o.keyword))));
  const out: Array<{ line: number; entry: string }> = [];
  for (const e of useful.length > 0 ? useful : errors) {
    let message = describe(e);
    const path = segments(e.instancePath);
    let key = false;
    if (e.keyword === 'additionalProperties') {
      const name = (e.params as { additionalProperty: string }).additionalProperty;
      path.push(name);
      key = true;
      const near = closest(name, knownNames(e), 3);
      if (near.length > 0) message += ` (did you mean ${near.map((n) => `"${n}"`).join(', ')}?)`;
    }
    const line = text === undefined ? undefined : lineOf(text, path, key);
    const where = line !== undefined ? `${file}:${line}: ` : '';
    const entry = `${where}${message}`;
    if (!out.some((o) => o.entry === entry)) out.push({ line: line ?? Number.MAX_SAFE_INTEGER, entry });
  }
  // in the order of the file; those not in it (set by a flag or the environment) last
  return out.sort((a, b) => a.line - b.line).map((o) => o.entry);
}

/** The message of a configuration error made of these problems. */
export function problemsMessage(what: string, problems: readonly string[]): string {
  return problems.length === 1 ? `${what}: ${problems[0]}` : `${what}, ${problems.length} problems:\n  ${problems.join('\n  ')}`;
}
