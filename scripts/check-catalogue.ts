/**
 * Checks the requirement catalogue, specs/requirements/<api>.yaml, against the conventions of specs/README.md:
 *  - each file names its api and holds a list of requirements with only the documented keys;
 *  - ids are unique across all files, match ^[a-z0-9]+(\.[a-z0-9-]+)+$, read <api>.<area>.<rule> and start with the
 *    file's api;
 *  - levels are MUST, SHOULD or MAY; a rule sourced only from FACTS.md is never MUST;
 *  - statements are non-empty single sentences;
 *  - operations are operationIds that specs/README.md lists for the file's api, and a rule whose area is an
 *    operation names that operation;
 *  - sources cite SPEC.md or FACTS.md with a heading path that exists there (when the documents are at hand);
 *  - since/until are quoted versions from the README's list, since < until;
 *  - every id the harness derives exists (<api>.<operation>.response-schema, <api>.http.*, the errors ids);
 *  - every x-requirement in the OpenAPI documents names a catalogue entry.
 * Prints counts per api and level; exits 1 on any problem.
 *
 * Run: npx tsx scripts/check-catalogue.ts [--docs <dir holding SPEC.md and FACTS.md>]
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SPECS = join(ROOT, 'specs');
const APIS = ['ledger', 'scan', 'validator', 'registry'] as const;
type Api = (typeof APIS)[number];
const LEVELS = ['MUST', 'SHOULD', 'MAY'] as const;
type Level = (typeof LEVELS)[number];
const KEYS = new Set(['id', 'level', 'statement', 'quote', 'operations', 'source', 'since', 'until', 'features', 'observable', 'whyNotObservable']);
const REQUIRED_KEYS = ['id', 'level', 'statement', 'quote', 'operations', 'source', 'observable'];
const ID_RE = /^[a-z0-9]+(\.[a-z0-9-]+)+$/;
const VERSION_RE = /^\d+\.\d+(\.\d+)?$/;
const FEATURE_RE = /^[a-z][A-Za-z0-9]*$/;
const SOURCE_RE = /^(SPEC|FACTS)\.md: (\S.*)$/;

const problems: string[] = [];
/** SPEC.md and FACTS.md, whitespace folded, where they are at hand: every quote must be found in the one its source names */
const docTexts = new Map<string, string>();
/** their sections, in heading order (the same order as the headings the source paths are checked against) */
const docSections = new Map<string, Array<{ heading: string; text: string }>>();
const notes: string[] = [];
const problem = (msg: string): void => {
  problems.push(msg);
};

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** camelCase operationId -> kebab-case area word: updateUser -> update-user. */
export function kebab(op: string): string {
  return op.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------------------------
// What specs/README.md fixes: operationIds per api and the versions per api.

function readReadme(): { ops: Record<Api, string[]>; versions: Partial<Record<Api, string[]>> } {
  const text = readFileSync(join(SPECS, 'README.md'), 'utf8');
  const ops: Record<Api, string[]> = { ledger: [], scan: [], validator: [], registry: [] };
  const start = text.indexOf('### operationIds');
  const end = text.indexOf('### Requirement ids');
  if (start < 0 || end < start) {
    problem('specs/README.md: cannot find the "### operationIds" section');
    return { ops, versions: {} };
  }
  const section = text.slice(start, end);
  // Paragraphs start with "ledger:", "scan:", ...; operationIds are the backticked camelCase words after that label.
  const parts = section.split(/^(ledger|scan|validator|registry):/m);
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const api = parts[i] as Api;
    for (const m of (parts[i + 1] ?? '').matchAll(/`([a-z][A-Za-z0-9]*)`/g)) {
      const op = m[1] as string;
      if (op !== 'setup' && !ops[api].includes(op)) ops[api].push(op);
    }
  }
  for (const api of APIS) if (ops[api].length === 0) problem(`specs/README.md: no operationIds found for ${api}`);

  // "Versions: ledger "3.4", "3.5"; scan and validator "0.5.10", ...; registry "0.6.11"."
  const versions: Partial<Record<Api, string[]>> = {};
  const line = text.split('\n').find((l) => l.startsWith('Versions:'));
  if (line !== undefined) {
    for (const clause of line.slice('Versions:'.length).split(';')) {
      const names = APIS.filter((a) => new RegExp(`\\b${a}\\b`).test(clause.replace(/"[^"]*"/g, '')));
      const vs = [...clause.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
      for (const a of names) versions[a] = [...(versions[a] ?? []), ...vs];
    }
  } else {
    notes.push('specs/README.md has no "Versions:" line; since/until are checked for format only');
  }
  return { ops, versions };
}

// ---------------------------------------------------------------------------------------------------------------
// Headings of SPEC.md and FACTS.md, to verify the heading path each source cites.

function docsDir(): string | undefined {
  const flag = process.argv.indexOf('--docs');
  const candidates = [
    flag >= 0 ? process.argv[flag + 1] : undefined,
    process.env.CATALOGUE_DOCS_DIR,
    join(ROOT, '..', 'shared'),
    join(ROOT, 'shared'),
  ];
  return candidates.find((d): d is string => d !== undefined && existsSync(join(d, 'SPEC.md')) && existsSync(join(d, 'FACTS.md')));
}

/** Text compared for quotes: whitespace runs folded to one space (a quote may span a line break of the document). */
export const foldWhitespace = (t: string): string => t.replace(/\s+/g, ' ').trim();

/**
 * A quote is the words of SPEC.md or FACTS.md that a requirement rests on, verbatim but for whitespace: found in the
 * document its source names. Several passages may be joined with " ... " (each must be found, in any order).
 */
export function quoteProblem(quote: unknown, doc: string, docText: string | undefined): string | undefined {
  if (typeof quote !== 'string' || quote.trim().length < 8) return 'quote must be a string of the source sentence (8 characters at least)';
  if (docText === undefined) return undefined;
  for (const part of quote.split(' ... ')) {
    if (!docText.includes(foldWhitespace(part))) return `quote not found in ${doc}: "${part.length > 120 ? `${part.slice(0, 120)}...` : part}"`;
  }
  return undefined;
}

function headings(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /^#{1,6} /.test(l))
    .map((l) => l.replace(/^#+ /, '').trim());
}

/**
 * The sections of a Markdown document, in order: each heading with the text it governs, that is its own lines and its
 * sub-sections' up to the next heading of the same or a higher level. The document's title (a level-1 heading) governs
 * only its introduction, the text before the first sub-heading: citing the title for a sentence deeper in the
 * document would let any quote pass.
 */
export function sections(markdown: string): Array<{ heading: string; text: string }> {
  const lines = markdown.split('\n');
  const heads: Array<{ line: number; level: number; heading: string }> = [];
  lines.forEach((l, i) => {
    const m = /^(#{1,6}) (.*)$/.exec(l);
    if (m !== null) heads.push({ line: i, level: (m[1] as string).length, heading: (m[2] as string).trim() });
  });
  return heads.map((h, k) => {
    const next = heads.slice(k + 1).find((o) => (h.level === 1 ? true : o.level <= h.level));
    return { heading: h.heading, text: foldWhitespace(lines.slice(h.line, next === undefined ? lines.length : next.line).join('\n')) };
  });
}

/** A cited segment names a heading when it is the heading or the heading minus a trailing parenthetical. */
function segmentMatches(segment: string, heading: string): boolean {
  return heading === segment || heading.startsWith(`${segment} (`) || heading.replace(/\s*\(.*\)$/, '') === segment;
}

/** The index of the heading a source path ends on, or undefined (with the problem noted) when the path is not found. */
function checkSourcePath(where: string, doc: string, path: string, docHeadings: Map<string, string[]>): number | undefined {
  const hs = docHeadings.get(doc);
  if (hs === undefined) return undefined;
  let from = 0;
  let last = -1;
  for (const segment of path.split(' > ').map((s) => s.trim())) {
    const idx = hs.findIndex((h, i) => i >= from && segmentMatches(segment, h));
    if (idx < 0) {
      problem(`${where}: source heading "${segment}" not found in ${doc} (in order after the previous segment)`);
      return undefined;
    }
    from = idx + 1;
    last = idx;
  }
  return last < 0 ? undefined : last;
}

/** A source citing several sections joins them with "; " before each "SPEC.md:" or "FACTS.md:". */
export function splitSources(source: string): string[] {
  return source.split(/;\s+(?=(?:SPEC|FACTS)\.md: )/);
}

/**
 * A quote must lie in the section its source names (each " ... " part of it), so that the heading a requirement cites
 * is where its sentence is: a sentence about one endpoint quoted under another's heading carries no rule for it.
 */
export function quoteSectionProblem(quote: unknown, doc: string, section: { heading: string; text: string } | undefined): string | undefined {
  if (typeof quote !== 'string' || section === undefined) return undefined;
  for (const part of quote.split(' ... ')) {
    if (!section.text.includes(foldWhitespace(part))) {
      return `quote lies outside the section its source names (${doc}: ${section.heading}): "${part.length > 120 ? `${part.slice(0, 120)}...` : part}"`;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------

interface Entry {
  id: string;
  api: Api;
  level: Level;
  observable: boolean;
  features: string[];
}

function checkStatement(where: string, s: unknown): void {
  if (typeof s !== 'string' || s.trim() === '') {
    problem(`${where}: statement must be a non-empty string`);
    return;
  }
  if (/\n/.test(s.trim())) problem(`${where}: statement spans several lines`);
  if (!/^[A-Za-z0-9"`'(]/.test(s)) problem(`${where}: statement should start with a word`);
  if (!/[.]$/.test(s.trim())) problem(`${where}: statement must end with a full stop`);
  // A sentence break: terminal punctuation, whitespace, then a capital letter.
  if (/[.!?]\s+[A-Z]/.test(s.trim().slice(0, -1))) problem(`${where}: statement must be a single sentence`);
  if (/\b(e\.g|i\.e|etc)\./.test(s)) problem(`${where}: statement uses an abbreviation that reads as a sentence break`);
}

function checkFile(
  api: Api,
  ops: Record<Api, string[]>,
  versions: Partial<Record<Api, string[]>>,
  docHeadings: Map<string, string[]>,
  seen: Map<string, string>,
): Entry[] {
  const rel = `specs/requirements/${api}.yaml`;
  const file = join(ROOT, rel);
  if (!existsSync(file)) {
    problem(`${rel}: missing`);
    return [];
  }
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    problem(`${rel}: not valid YAML (${(e as Error).message})`);
    return [];
  }
  if (!isObj(doc)) {
    problem(`${rel}: top level must be a mapping`);
    return [];
  }
  if (doc.api !== api) problem(`${rel}: api is ${JSON.stringify(doc.api)}, expected ${api}`);
  for (const k of Object.keys(doc)) if (k !== 'api' && k !== 'requirements') problem(`${rel}: unexpected top-level key ${k}`);
  if (!Array.isArray(doc.requirements)) {
    problem(`${rel}: requirements must be a list`);
    return [];
  }
  const apiOps = new Set(ops[api]);
  const apiAreas = new Map(ops[api].map((op) => [kebab(op), op]));
  const entries: Entry[] = [];

  doc.requirements.forEach((raw: unknown, i: number) => {
    let where = `${rel}[${i}]`;
    if (!isObj(raw)) {
      problem(`${where}: entry must be a mapping`);
      return;
    }
    for (const k of REQUIRED_KEYS) if (!(k in raw)) problem(`${where}: missing ${k}`);
    for (const k of Object.keys(raw)) if (!KEYS.has(k)) problem(`${where}: unknown key ${k}`);

    // id
    const id = raw.id;
    if (typeof id !== 'string') {
      problem(`${where}: id must be a string`);
      return;
    }
    where = `${rel} ${id}`;
    if (!ID_RE.test(id)) problem(`${where}: id does not match ${ID_RE}`);
    const parts = id.split('.');
    if (parts[0] !== api) problem(`${where}: id must start with "${api}."`);
    if (parts.length < 3) problem(`${where}: id must read <api>.<area>.<rule>`);
    const other = seen.get(id);
    if (other !== undefined) problem(`${where}: duplicate id (also in ${other})`);
    seen.set(id, rel);

    // level
    const level = raw.level;
    if (typeof level !== 'string' || !(LEVELS as readonly string[]).includes(level)) {
      problem(`${where}: level must be one of ${LEVELS.join(', ')}`);
    }

    checkStatement(where, raw.statement);

    // operations
    const operations = raw.operations;
    if (!Array.isArray(operations) || operations.some((o) => typeof o !== 'string')) {
      problem(`${where}: operations must be a list of operationIds`);
    } else {
      for (const op of operations as string[]) {
        if (!apiOps.has(op)) problem(`${where}: operation ${op} is not a ${api} operationId of specs/README.md`);
      }
      if (new Set(operations).size !== operations.length) problem(`${where}: operations repeat an operationId`);
      const areaOp = apiAreas.get(parts[1] ?? '');
      if (areaOp !== undefined && !(operations as string[]).includes(areaOp)) {
        problem(`${where}: area ${parts[1]} is operation ${areaOp}, which operations must name`);
      }
    }

    // source
    const source = raw.source;
    if (typeof source !== 'string') {
      problem(`${where}: source must be a string`);
    } else {
      // a rule whose sentence spans sections cites each: "SPEC.md: <path>; SPEC.md: <path>"
      const cited = splitSources(source).map((part) => SOURCE_RE.exec(part));
      if (cited.some((m) => m === null)) problem(`${where}: source must read "SPEC.md: <heading path>" or "FACTS.md: <heading>" (several joined with "; ")`);
      else {
        const ms = cited as RegExpExecArray[];
        const docs = new Set(ms.map((m) => `${m[1]}.md`));
        if (!docs.has('SPEC.md') && level === 'MUST') problem(`${where}: a rule stated only in FACTS.md is SHOULD or MAY, not MUST`);
        const found = ms.map((m) => ({ doc: `${m[1]}.md`, at: checkSourcePath(where, `${m[1]}.md`, m[2] as string, docHeadings) }));
        const q = quoteProblem(raw.quote, [...docs].join(' or '), [...docs].map((d) => docTexts.get(d)).some((t) => t === undefined) ? undefined : [...docs].map((d) => docTexts.get(d)).join(' \u0000 '));
        if (q !== undefined) problem(`${where}: ${q}`);
        else if (found.every((f) => f.at !== undefined)) {
          const secs = found.map((f) => docSections.get(f.doc)?.[f.at as number]);
          if (secs.every((x) => x !== undefined)) {
            const union = { heading: secs.map((x) => x?.heading).join('; '), text: secs.map((x) => x?.text).join(' \u0000 ') };
            const s = quoteSectionProblem(raw.quote, [...docs].join(' and '), union);
            if (s !== undefined) problem(`${where}: ${s}`);
          }
        }
      }
    }

    // since / until
    const known = versions[api];
    for (const key of ['since', 'until'] as const) {
      const v = raw[key];
      if (v === undefined) continue;
      if (typeof v !== 'string') problem(`${where}: ${key} must be a quoted version string, got ${JSON.stringify(v)}`);
      else if (!VERSION_RE.test(v)) problem(`${where}: ${key} "${v}" does not look like a version`);
      else if (known !== undefined && known.length > 0 && !known.includes(v)) {
        problem(`${where}: ${key} "${v}" is not one of the ${api} versions of specs/README.md (${known.join(', ')})`);
      }
    }
    if (typeof raw.since === 'string' && typeof raw.until === 'string' && compareVersions(raw.since, raw.until) >= 0) {
      problem(`${where}: since ${raw.since} is not before until ${raw.until}`);
    }

    // features
    let features: string[] = [];
    if (raw.features !== undefined) {
      if (!Array.isArray(raw.features) || raw.features.length === 0 || raw.features.some((f) => typeof f !== 'string' || !FEATURE_RE.test(f))) {
        problem(`${where}: features must be a non-empty list of camelCase toggle names`);
      } else features = raw.features as string[];
    }

    if (typeof raw.observable !== 'boolean') problem(`${where}: observable must be true or false`);
    const why = raw.whyNotObservable;
    if (raw.observable === false && (typeof why !== 'string' || why.trim() === '')) problem(`${where}: a requirement that is not observable says why (whyNotObservable)`);
    if (raw.observable !== false && why !== undefined) problem(`${where}: whyNotObservable is only for requirements that are not observable`);

    entries.push({ id, api, level: level as Level, observable: raw.observable !== false, features });
  });
  return entries;
}

function derivedIds(ops: Record<Api, string[]>): string[] {
  const ids: string[] = [];
  for (const api of APIS) {
    for (const op of ops[api]) ids.push(`${api}.${kebab(op)}.response-schema`);
    for (const rule of ['documented-status', 'documented-content-type', 'no-server-error']) ids.push(`${api}.http.${rule}`);
  }
  ids.push(
    'ledger.errors.malformed-request-text-plain',
    'ledger.errors.canton-error-shape',
    'scan.errors.error-body',
    'validator.errors.error-body',
    'registry.errors.error-body',
  );
  return ids;
}

/** Every x-requirement value anywhere in an OpenAPI document. */
function xRequirements(node: unknown, out: Set<string>): void {
  if (Array.isArray(node)) for (const n of node) xRequirements(n, out);
  else if (isObj(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'x-requirement' && typeof v === 'string') out.add(v);
      else xRequirements(v, out);
    }
  }
}

function main(): void {
  const { ops, versions } = readReadme();

  const docHeadings = new Map<string, string[]>();
  const dir = docsDir();
  if (dir !== undefined) {
    docHeadings.set('SPEC.md', headings(join(dir, 'SPEC.md')));
    docHeadings.set('FACTS.md', headings(join(dir, 'FACTS.md')));
    for (const d of ['SPEC.md', 'FACTS.md']) {
      const text = readFileSync(join(dir, d), 'utf8');
      docTexts.set(d, foldWhitespace(text));
      docSections.set(d, sections(text));
    }
  } else {
    notes.push('SPEC.md and FACTS.md not found (pass --docs <dir>); source headings and quotes not verified');
  }

  const seen = new Map<string, string>();
  const all: Entry[] = [];
  for (const api of APIS) all.push(...checkFile(api, ops, versions, docHeadings, seen));

  const ids = new Set(all.map((e) => e.id));
  for (const id of derivedIds(ops)) if (!ids.has(id)) problem(`missing derived requirement ${id}`);

  for (const api of APIS) {
    const file = join(SPECS, `${api}.yaml`);
    if (!existsSync(file)) continue;
    const refs = new Set<string>();
    try {
      xRequirements(parseYaml(readFileSync(file, 'utf8')), refs);
    } catch (e) {
      notes.push(`specs/${api}.yaml: not parsed (${(e as Error).message}); x-requirement ids not verified`);
      continue;
    }
    for (const id of refs) if (!ids.has(id)) problem(`specs/${api}.yaml: x-requirement ${id} is not in the catalogue`);
  }

  // Report.
  const rows = APIS.map((api) => {
    const es = all.filter((e) => e.api === api);
    const n = (l: Level): number => es.filter((e) => e.level === l).length;
    return { api, MUST: n('MUST'), SHOULD: n('SHOULD'), MAY: n('MAY'), total: es.length, unobservable: es.filter((e) => !e.observable).length };
  });
  const total = { api: 'total', MUST: 0, SHOULD: 0, MAY: 0, total: 0, unobservable: 0 };
  for (const r of rows) for (const k of ['MUST', 'SHOULD', 'MAY', 'total', 'unobservable'] as const) total[k] += r[k];
  const pad = (s: string | number, w: number): string => String(s).padStart(w);
  console.log(`${'api'.padEnd(10)}${pad('MUST', 6)}${pad('SHOULD', 8)}${pad('MAY', 5)}${pad('total', 7)}${pad('unobservable', 14)}`);
  for (const r of [...rows, total]) {
    console.log(`${r.api.padEnd(10)}${pad(r.MUST, 6)}${pad(r.SHOULD, 8)}${pad(r.MAY, 5)}${pad(r.total, 7)}${pad(r.unobservable, 14)}`);
  }
  const features = [...new Set(all.flatMap((e) => e.features))].sort();
  console.log(`feature toggles used: ${features.length > 0 ? features.join(', ') : '(none)'}`);
  for (const n of notes) console.log(`note: ${n}`);

  if (problems.length > 0) {
    console.error(`\n${problems.length} problem(s):`);
    for (const p of problems) console.error(`  - ${p}`);
    process.exit(1);
  }
  console.log('catalogue OK');
}

// run as a script; imported (by the project's tests) it only exports its helpers
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
