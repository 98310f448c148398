/**
 * The reference's modules import each other without a circle: the route and data modules take the types and constants
 * they share from reference/types.ts, not from reference/index.ts, which assembles the server from them.
 * The graph is read from the import and export statements of reference/**.ts (type-only imports included: a circle of
 * types is still a circle for a reader), resolved to files, and its strongly connected components are the circles.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const REFERENCE = join(ROOT, 'reference');

type Graph = Map<string, string[]>;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each file under `dir` (relative to it) with the files under `dir` it imports or re-exports from. */
function importGraph(dir: string): Graph {
  const files = tsFiles(dir);
  const known = new Set(files);
  const graph: Graph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
      .filter((target) => known.has(target))
      .map((target) => relative(dir, target));
    graph.set(relative(dir, file), [...new Set(targets)]);
  }
  return graph;
}

/** The circles of a graph: its strongly connected components of more than one file, or of one that imports itself. */
function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

describe('import circles in the reference', () => {
  it('finds a circle when there is one, and none in a tree', () => {
    const withCircle: Graph = new Map([
      ['index.ts', ['a/routes.ts']],
      ['a/routes.ts', ['a/http.ts']],
      ['a/http.ts', ['index.ts']],
      ['types.ts', []],
    ]);
    expect(circles(withCircle)).toEqual([['a/http.ts', 'a/routes.ts', 'index.ts']]);
    const tree: Graph = new Map([
      ['index.ts', ['a/routes.ts', 'types.ts']],
      ['a/routes.ts', ['types.ts']],
      ['types.ts', []],
    ]);
    expect(circles(tree)).toEqual([]);
    expect(circles(new Map([['a.ts', ['a.ts']]]))).toEqual([['a.ts']]);
  });

  it('reads the reference modules and their imports', () => {
    const graph = importGraph(REFERENCE);
    expect(graph.get('index.ts')).toEqual(expect.arrayContaining(['ledger/routes.ts', 'scan/routes.ts']));
  });

  it('no module of the reference imports, directly or through others, the index that imports it', () => {
    const through = circles(importGraph(REFERENCE)).filter((c) => c.includes('index.ts'));
    expect(through).toEqual([]);
  });

  it('no module of the reference imports, directly or through others, a module that imports it', () => {
    expect(circles(importGraph(REFERENCE))).toEqual([]);
  });
});
