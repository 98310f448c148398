/**
 * Every relative link in README.md, CHANGELOG.md and docs/**\/*.md resolves: the file or folder exists, and an anchor
 * (`#part`, alone or after a Markdown file) names a heading of that file as GitHub slugs it. Links inside code are not
 * links.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';

/** The text outside fenced code blocks and code spans, line by line (code replaced by spaces, so columns stay). */
function prose(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (f !== null) {
      if (fence === undefined) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = undefined;
      return '';
    }
    if (fence !== undefined) return '';
    return line.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length));
  });
}

/** GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to hyphens, repeats numbered. */
export function slugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const h = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h === null) continue;
    const text = h[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[`*_~]/g, (c) => (c === '_' ? '_' : ''));
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The broken relative links of the Markdown files, as "file:line: target (why)". */
export function brokenLinks(root: string, files: string[]): string[] {
  const problems: string[] = [];
  const headings = new Map<string, Set<string>>();
  const slugsOf = (file: string) => {
    let s = headings.get(file);
    if (s === undefined) headings.set(file, (s = slugs(readFileSync(file, 'utf8'))));
    return s;
  };
  for (const rel of files) {
    const file = join(root, rel);
    const lines = prose(readFileSync(file, 'utf8'));
    lines.forEach((line, i) => {
      const targets = [
        ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
        ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g)].map((m) => m[1]!),
        ...[...line.matchAll(/<a\s[^>]*href="([^"]+)"/g)].map((m) => m[1]!),
      ];
      for (const target of targets) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const dest = pathPart === '' ? file : join(dirname(file), decodeURIComponent(pathPart));
        const where = `${rel}:${i + 1}: ${target}`;
        if (!existsSync(dest)) {
          problems.push(`${where} (no such file: ${relative(root, dest)})`);
          continue;
        }
        if (anchor !== undefined && anchor !== '' && dest.endsWith('.md') && statSync(dest).isFile() && !slugsOf(dest).has(anchor.toLowerCase())) {
          problems.push(`${where} (no heading #${anchor} in ${relative(root, dest)})`);
        }
      }
    });
  }
  return problems;
}

/** README.md, CHANGELOG.md and every Markdown file under docs/ */
function documents(root: string): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'), { recursive: true })
        .map((f) => `docs/${String(f).split('\\').join('/')}`)
        .filter((f) => f.endsWith('.md'))
    : [];
  return ['README.md', ...(existsSync(join(root, 'CHANGELOG.md')) ? ['CHANGELOG.md'] : []), ...docs.sort()];
}

describe('links in README.md, CHANGELOG.md and docs/', () => {
  it('every relative link and anchor resolves', () => {
    const files = documents(PACKAGE_ROOT);
    expect(files.length).toBeGreaterThan(1);
    expect(brokenLinks(PACKAGE_ROOT, files)).toEqual([]);
  });
});

describe('the link checker', () => {
  it('slugs headings as GitHub does', () => {
    const s = slugs('# canton-conformance\n## Observing a live node (observe, judge, run --record)\n## `run`: how the run goes\n## Usage\n## Usage\n```\n# not a heading\n```\n');
    expect([...s]).toEqual(['canton-conformance', 'observing-a-live-node-observe-judge-run---record', 'run-how-the-run-goes', 'usage', 'usage-1']);
  });

  it('finds a missing file, a missing anchor, and leaves code and absolute URLs alone', () => {
    const root = mkdtempSync(join(tmpdir(), 'cc-links-'));
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'README.md'), '# Top\n[ok](docs/a.md#part-one) [self](#top) [web](https://example.com/x)\n[gone](docs/nope.md) `[code](nope.md)`\n```\n[block](nope.md)\n```\n[bad anchor](docs/a.md#part-two)\n');
    writeFileSync(join(root, 'docs', 'a.md'), '# A\n## Part one\n[up](../README.md#missing) [ref]\n\n[ref]: ./gone.md\n');
    expect(brokenLinks(root, documents(root))).toEqual([
      'README.md:3: docs/nope.md (no such file: docs/nope.md)',
      'README.md:7: docs/a.md#part-two (no heading #part-two in docs/a.md)',
      'docs/a.md:3: ../README.md#missing (no heading #missing in README.md)',
      'docs/a.md:5: ./gone.md (no such file: docs/gone.md)',
    ]);
  });
});
