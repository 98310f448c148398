/**
 * The mutator of `npm run mutation` (scripts/mutation/) on a tiny fixture project: it finds the mutation points of a
 * handler outside its fault code, the mutant schema builds and keeps the handler's behaviour with no mutant switched on,
 * and a whole run with a small fake suite in place of the conformance suite gets one mutant killed, one surviving
 * (reported, and left out of the second score once triaged) and one never reached. The full run over the reference
 * is long and is not part of npm test.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { findMutants, schemataSource } from '../scripts/mutation/mutate.js';
import { applyTriage, loadTriage, markdownReport, scores, textReport } from '../scripts/mutation/report.js';
import { main as mutationMain } from '../scripts/mutation.js';
import { DEFAULT_PASS, MutationError, type MutantResult, runMutation, type RunOutcome } from '../scripts/mutation/run.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const HANDLER = `import { F } from './faults-demo.js';
export interface Faults { has(n: string): boolean }
/** the first n items of a listing, the expired ones left out */
export function listItems(items: { id: number; expired: boolean }[], n: number, faults: Faults): number[] {
  if (faults.has(F.everything)) return items.map((i) => i.id);
  const live = items.filter((i) => !i.expired);
  const page = live.slice(0, n).map((i) => i.id);
  if (page.length > 100) return [];
  return page;
}
/** fault checks combined with other conditions, and an option built from a fault check */
export function guarded(a: number, faults: Faults): number {
  if (a < 7 && !faults.has(F.everything)) return 1;
  if (a === 8 && faults.has(F.everything)) return 2;
  return strictly(a, { strict: faults.has(F.everything) });
}
function strictly(a: number, o: { strict: boolean }): number {
  return o.strict === true && a > 9 ? 3 : 4;
}
/** a listing handed out whole */
export function listing(items: number[]): { entries: number[] } {
  const entries = items.map((i) => i * 2);
  return { entries };
}
/** never called by the fake suite */
export function unused(a: number): boolean {
  return a === 3;
}
`;
const FAULTS = `export const F = { everything: 'everything' } as const;\nexport const planted = (x: number) => x > 1 && [1, 2].length === 2;\n`;
/** the fake suite: one rule on the listing (expired items are left out); it says nothing of the page size */
const CHECK = `import { listItems } from './reference/demo/handler.ts';
const got = listItems([{ id: 1, expired: false }, { id: 2, expired: true }, { id: 3, expired: false }], 5, { has: () => false });
process.exit(got.includes(2) ? 1 : 0);
`;

/** handler code of which one part is reached only at an older version, and one bound is checked only there */
const VERSIONS = `/** served only by older versions */
export function activities(items: number[]): number[] {
  return items.filter((i) => i > 0);
}
/** a page size, capped at 10 */
export function capped(n: number): number {
  return n > 10 ? 10 : n;
}
`;
/** the fake suite of two passes: the default, and the pass "old" (option --old), which also lists activities */
const VERSIONS_CHECK = `import { activities, capped } from './reference/demo/versions.ts';
const old = process.argv.includes('--old');
let ok = capped(3) === 3;
if (old) ok = ok && activities([1, -1]).length === 1 && capped(11) === 10;
process.exit(ok ? 0 : 1);
`;
const TWO_PASSES = { ledger: [DEFAULT_PASS, { name: 'old', args: ['--old'] }] };

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function fixtureProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-mutation-test-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'reference', 'demo'), { recursive: true });
  writeFileSync(join(dir, 'reference', 'demo', 'handler.ts'), HANDLER);
  writeFileSync(join(dir, 'reference', 'demo', 'faults-demo.ts'), FAULTS);
  writeFileSync(join(dir, 'check.mjs'), CHECK);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

describe('mutation testing', () => {
  it('finds mutation points outside the fault code and leaves the fault-planting file alone', () => {
    const ms = findMutants({ file: 'reference/demo/handler.ts', text: HANDLER });
    const ops = new Set(ms.map((m) => m.operator));
    for (const op of ['filter-removed', 'slice-removed', 'boundary', 'length', 'number', 'equality', 'condition'] as const) expect(ops, op).toContain(op);
    // the branch a fault check guards, and the fault check itself, are not mutated
    expect(ms.filter((m) => m.original.includes('faults') || m.original.includes('items.map'))).toEqual([]);
    expect(new Set(ms.map((m) => m.key)).size).toBe(ms.length);
    expect(findMutants({ file: 'reference/demo/faults-demo.ts', text: FAULTS })).toEqual([]);
    // beside a negated fault check the other condition decides with the fault off: mutated; beside a fault check that
    // decides alone with the fault off (a === 8 && fault, an option set from a fault), nothing is
    expect(ms.filter((m) => m.original === 'a < 7').map((m) => m.mutated)).toEqual(['a <= 7']);
    expect(ms.filter((m) => /a === 8|a > 9|o\.strict|^7$|^8$|^9$/.test(m.original)).map((m) => `${m.original} -> ${m.mutated}`)).toEqual(['7 -> 8', '7 -> 6']);
  });

  it('keeps a mutant key when lines are added above it', () => {
    const keys = (t: string) => findMutants({ file: 'reference/demo/handler.ts', text: t }).map((m) => m.key);
    expect(keys(`// a comment\n\n${HANDLER}`)).toEqual(keys(HANDLER));
  });

  it('builds the mutant schema, which behaves as the original without a mutant and as the mutant with one', async () => {
    const dir = fixtureProject();
    const ms = findMutants({ file: 'reference/demo/handler.ts', text: HANDLER }).map((m, i) => ({ ...m, id: i + 1 }));
    const file = join(dir, 'reference', 'demo', 'handler.ts');
    writeFileSync(file, schemataSource(HANDLER, ms));
    const out = join(dir, 'out.mjs');
    await build({ entryPoints: [file], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'silent' });
    const filter = ms.find((m) => m.operator === 'filter-removed')!;
    const call = (id: number) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', `import { listItems } from ${JSON.stringify(out)}; console.log(JSON.stringify(listItems([{ id: 1, expired: false }, { id: 2, expired: true }], 5, { has: () => false })));`], {
        env: { ...process.env, CC_MUTANT: String(id) },
        encoding: 'utf8',
      }).stdout.trim();
    expect(call(0)).toBe('[1]');
    expect(call(filter.id)).toBe('[1,2]');
  });

  it('empties an array-typed property, a shorthand one included, where a type checker is at hand', async () => {
    const dir = fixtureProject();
    const file = join(dir, 'reference', 'demo', 'handler.ts');
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, strict: true, noEmit: true, skipLibCheck: true });
    const ms = findMutants({ file: 'reference/demo/handler.ts', text: HANDLER, sourceFile: program.getSourceFile(file)!, checker: program.getTypeChecker() }).map((m, i) => ({ ...m, id: i + 1 }));
    const shorthand = ms.find((m) => m.operator === 'list-emptied' && m.original === 'entries');
    expect(shorthand).toBeDefined();
    writeFileSync(file, schemataSource(HANDLER, ms));
    const out = join(dir, 'out.mjs');
    await build({ entryPoints: [file], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'silent' });
    const call = (id: number) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', `import { listing } from ${JSON.stringify(out)}; console.log(JSON.stringify(listing([1, 2])));`], { env: { ...process.env, CC_MUTANT: String(id) }, encoding: 'utf8' }).stdout.trim();
    expect(call(0)).toBe('{"entries":[2,4]}');
    expect(call(shorthand!.id)).toBe('{"entries":[]}');
  });

  it('runs each mutant against the tests: one killed, one surviving, one not reached; a triaged survivor leaves the second score', async () => {
    const dir = fixtureProject();
    const lines: string[] = [];
    const out = await runMutation({
      root: dir,
      only: ['demo'],
      command: `${process.execPath} --import tsx check.mjs`,
      failOn: 'must',
      timeoutMs: 60_000,
      concurrency: 2,
      source: 'worktree',
      operators: ['filter-removed', 'slice-removed', 'equality'],
      write: (s) => lines.push(s),
    });
    const by = (op: string) => out.mutants.find((m) => m.operator === op)!;
    expect(by('filter-removed').status).toBe('killed');
    // a page cut after n items or not: the fake suite asks for fewer items than it has
    expect(by('slice-removed').status).toBe('survived');
    expect(by('equality').status).toBe('no-coverage');
    expect(lines.join('')).toMatch(/\[\d\/2\] #\d+ killed/);
    // the project's files are untouched, the copy is gone
    expect(readFileSync(join(dir, 'reference', 'demo', 'handler.ts'), 'utf8')).toBe(HANDLER);
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith('cc-mutation-') && !f.startsWith('cc-mutation-test-') && existsSync(join(tmpdir(), f, 'check.mjs')))).toEqual([]);

    const triageFile = join(dir, 'triage.yaml');
    writeFileSync(triageFile, `unobservable:\n  - key: ${JSON.stringify(by('slice-removed').key)}\n    reason: the fake suite never asks for a short page\n  - key: "reference/demo/handler.ts#gone#equality#0123456789#0"\n    reason: a mutant made no more\ngaps:\n  - key: ${JSON.stringify(by('equality').key)}\n    reason: no check calls unused()\n`);
    // a run with an operator filter makes only some mutants of the file: an entry matching none is not judged
    expect(out.wholeFiles).toEqual([]);
    expect(applyTriage(structuredClone(out.mutants), loadTriage(triageFile), out.wholeFiles).stale).toEqual([]);
    // where every mutant of the file was made, it is stale
    expect(applyTriage(out.mutants, loadTriage(triageFile), ['reference/demo/handler.ts']).stale.map((t) => t.reason)).toEqual(['a mutant made no more']);
    // a known gap is explained, and stays in both scores
    expect(by('equality').gap).toBe('no check calls unused()');
    const [demo] = scores(out.mutants);
    expect(demo).toMatchObject({ group: 'demo', mutants: 3, killed: 1, survived: 1, noCoverage: 1, triaged: 1, score: 33.3, scoreObservable: 50 });
  });

  it('stops with a clear message when the tests fail without a mutant', async () => {
    const dir = fixtureProject();
    writeFileSync(join(dir, 'check.mjs'), 'process.exit(1);\n');
    await expect(runMutation({ root: dir, only: ['demo'], command: `${process.execPath} check.mjs`, failOn: 'must', timeoutMs: 60_000, concurrency: 1, source: 'worktree', typeCheck: false, write: () => undefined })).rejects.toThrow(/the tests fail without any mutant \(exit 1\)/);
  });

  it('stops on SIGINT: the running test commands are killed, the copy removed, exit 130', async () => {
    const dir = fixtureProject();
    const pids = join(dir, 'pids');
    mkdirSync(pids);
    // the mutants' runs never end on their own
    writeFileSync(join(dir, 'check.mjs'), `import { writeFileSync } from 'node:fs';\n${CHECK.split('\n').slice(0, 2).join('\n')}\nif (process.env.CC_MUTANT !== '0') { writeFileSync(${JSON.stringify(pids)} + '/' + process.pid, ''); setInterval(() => {}, 1000); }\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'mutation.ts'), '--root', dir, '--file', 'reference/demo/handler.ts', '--operator', 'filter-removed,slice-removed', '--source', 'worktree', '--command', `${process.execPath} --import tsx check.mjs`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    // both mutants' runs started (each wrote its pid)
    for (let i = 0; i < 400 && readdirSync(pids).length < 2 && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
    expect(readdirSync(pids)).toHaveLength(2);
    const copy = /cc-mutation-[A-Za-z0-9]+/.exec(readdirSync(tmpdir()).filter((f) => f.startsWith('cc-mutation-') && existsSync(join(tmpdir(), f, 'check.mjs')) && readFileSync(join(tmpdir(), f, 'check.mjs'), 'utf8').includes(pids)).join(' '))?.[0];
    expect(copy).toBeDefined();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(err).toContain('stopped by SIGINT');
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    // SIGKILL is delivered asynchronously: wait (bounded) for the processes to be gone
    const left = () => readdirSync(pids).filter((p) => alive(Number(p)));
    for (let i = 0; i < 100 && left().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(left()).toEqual([]);
    expect(existsSync(join(tmpdir(), copy!))).toBe(false);
  });

  it('stops with a clear message when the selection has no mutation point', async () => {
    const dir = fixtureProject();
    await expect(runMutation({ root: dir, files: ['reference/demo/faults-demo.ts'], command: `${process.execPath} check.mjs`, failOn: 'must', timeoutMs: 60_000, concurrency: 1, source: 'worktree', typeCheck: false, write: () => undefined })).rejects.toThrow(/no mutation point in reference\/demo\/faults-demo.ts/);
  });

  it('rejects a triage entry without a reason', () => {
    const dir = fixtureProject();
    writeFileSync(join(dir, 't.yaml'), 'unobservable:\n  - key: a#b\n');
    expect(() => loadTriage(join(dir, 't.yaml'))).toThrow(/unobservable entry 1 needs a "key" and a "reason"/);
    writeFileSync(join(dir, 't.yaml'), 'unobservable:\n  - key: a#b\n    reason: x\ngaps:\n  - key: a#b\n    reason: y\n');
    expect(() => loadTriage(join(dir, 't.yaml'))).toThrow(/a#b is listed twice/);
  });

  it('reads a triage folder: every YAML file in it, a key listed in two files refused', () => {
    const dir = join(fixtureProject(), 'triage');
    mkdirSync(dir);
    writeFileSync(join(dir, 'scan.yaml'), 'unobservable:\n  - key: s#1\n    reason: x\n');
    writeFileSync(join(dir, 'ledger.yaml'), 'gaps:\n  - key: l#1\n    reason: y\n');
    writeFileSync(join(dir, 'README.md'), 'not read');
    expect(loadTriage(dir).map((t) => `${t.kind} ${t.key}`)).toEqual(['gap l#1', 'unobservable s#1']);
    writeFileSync(join(dir, 'validator.yaml'), 'gaps:\n  - key: s#1\n    reason: z\n');
    expect(() => loadTriage(dir)).toThrow(/s#1 is listed twice \(also in .*scan\.yaml\)/);
  });
  it('runs a mutant in every pass that reaches it, in order, up to the first that detects it, and says which did', async () => {
    const dir = fixtureProject();
    writeFileSync(join(dir, 'reference', 'demo', 'versions.ts'), VERSIONS);
    writeFileSync(join(dir, 'versions-check.mjs'), VERSIONS_CHECK);
    const lines: string[] = [];
    const out = await runMutation({
      root: dir,
      files: ['reference/demo/versions.ts'],
      command: `${process.execPath} --import tsx versions-check.mjs {pass}`,
      passes: TWO_PASSES,
      failOn: 'must',
      timeoutMs: 60_000,
      concurrency: 2,
      source: 'worktree',
      operators: ['filter-removed', 'boundary', 'condition'],
      write: (x) => lines.push(x),
    });
    const one = (op: string, mutated?: string) => out.mutants.find((m) => m.operator === op && (mutated === undefined || m.mutated === mutated))!;
    // reached only in the pass "old", and detected there
    expect(one('filter-removed')).toMatchObject({ status: 'killed', pass: 'old', passes: ['old'] });
    // reached in both: detected by the default pass, the pass "old" never run
    expect(one('condition', 'true')).toMatchObject({ status: 'killed', pass: 'default', passes: ['default'] });
    // reached in both, detected only by the second
    expect(one('condition', 'false')).toMatchObject({ status: 'killed', pass: 'old', passes: ['default', 'old'] });
    // run in both, detected by neither; run in the only pass that reaches it, not detected
    expect(one('boundary', 'n >= 10')).toMatchObject({ status: 'survived', passes: ['default', 'old'] });
    expect(one('boundary', 'n >= 10').pass).toBeUndefined();
    expect(one('boundary', 'i >= 0')).toMatchObject({ status: 'survived', passes: ['old'] });
    expect(out.passes?.map((p) => [p.name, p.args.join(' '), p.reached])).toEqual([['default', '', 3], ['old', '--old', 5]]);
    const text = textReport(out, []);
    expect(text).toMatch(/default: 3 reached, 1 detected/);
    expect(text).toMatch(/old \(--old; ledger\): 5 reached, 2 detected/);
    expect(markdownReport(out, [])).toMatch(/Detected only in a later pass \(2\)/);
    // a survivor is listed with its id (for --mutant) and the passes it was run in
    expect(text).toContain(`#${one('boundary', 'n >= 10').id} reference/demo/versions.ts:7:10 boundary (run in default, old)`);
    expect(lines.join('')).toMatch(/#\d+ killed \(exit 1\) in old/);
  });

  it('stops naming the pass whose run without a mutant fails', async () => {
    const dir = fixtureProject();
    writeFileSync(join(dir, 'reference', 'demo', 'versions.ts'), VERSIONS);
    writeFileSync(join(dir, 'versions-check.mjs'), `import './reference/demo/versions.ts';\nprocess.exit(process.argv.includes('--old') ? 1 : 0);\n`);
    await expect(runMutation({ root: dir, files: ['reference/demo/versions.ts'], command: `${process.execPath} --import tsx versions-check.mjs {pass}`, passes: TWO_PASSES, failOn: 'must', timeoutMs: 60_000, concurrency: 1, source: 'worktree', typeCheck: false, write: () => undefined }))
      .rejects.toThrow(/the tests fail without any mutant in the pass "old" \(--old\) \(exit 1\)/);
  });

  it('runs a mutant that timed out once more alone before counting it a timeout', async () => {
    const dir = fixtureProject();
    writeFileSync(join(dir, 'reference', 'demo', 'versions.ts'), VERSIONS);
    const marks = join(dir, 'marks');
    mkdirSync(marks);
    // mutant 2 hangs on its first run only, then fails (detected); mutant 3 hangs every time
    writeFileSync(join(dir, 'versions-check.mjs'), `import { existsSync, writeFileSync } from 'node:fs';
import { capped } from './reference/demo/versions.ts';
capped(3);
const id = process.env.CC_MUTANT;
if (id === '0') process.exit(0);
const mark = ${JSON.stringify(marks)} + '/' + id;
const seen = existsSync(mark);
writeFileSync(mark, '');
if (id === '2' && seen) process.exit(1);
setInterval(() => {}, 1000);
`);
    const lines: string[] = [];
    const out = await runMutation({ root: dir, files: ['reference/demo/versions.ts'], command: `${process.execPath} --import tsx versions-check.mjs`, failOn: 'must', timeoutMs: 1000, concurrency: 2, source: 'worktree', operators: ['boundary', 'condition'], mutants: ['2', '3'], typeCheck: false, write: (x) => lines.push(x) });
    expect(out.mutants.map((m) => [m.id, m.status, m.rerun])).toEqual([[2, 'killed', true], [3, 'timeout', true]]);
    expect(out.rerunTimeouts).toBe(2);
    expect(lines.join('')).toMatch(/2 mutants timed out: each run again alone/);
    expect(textReport(out, [])).toMatch(/2 timed out and were run again alone: 1 timed out again, 1 killed, 0 survived/);
  });

  it('selects single mutants by id or by key (keys alone select their files); an unknown one is refused', async () => {
    const dir = fixtureProject();
    const base = { root: dir, command: `${process.execPath} check.mjs`, failOn: 'must' as const, timeoutMs: 60_000, concurrency: 1, source: 'worktree' as const, typeCheck: false, dryRun: true, write: () => undefined };
    const everything = await runMutation({ ...base, only: ['demo'] });
    const [a, b] = [everything.mutants[2]!, everything.mutants[5]!];
    const byId = await runMutation({ ...base, only: ['demo'], mutants: [String(b.id), String(a.id)] });
    expect(byId.mutants.map((m) => m.key)).toEqual([a.key, b.key]);
    expect(byId.wholeFiles).toEqual([]);
    const byKey = await runMutation({ ...base, mutants: [b.key] });
    expect(byKey.mutants.map((m) => m.key)).toEqual([b.key]);
    await expect(runMutation({ ...base, only: ['demo'], mutants: ['9999'] })).rejects.toThrow(MutationError);
    await expect(runMutation({ ...base, only: ['demo'], mutants: ['9999'] })).rejects.toThrow(/no mutant #9999: this selection has \d+/);
    await expect(runMutation({ ...base, mutants: ['reference/demo/handler.ts#nope#equality#0123456789#0'] })).rejects.toThrow(/no mutant with the key reference\/demo\/handler.ts#nope/);
  });

  it('merges a later run of some mutants into an earlier whole run: each takes its later result, by key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-mutation-test-'));
    dirs.push(dir);
    const mutant = (id: number, status: MutantResult['status'], extra: Partial<MutantResult> = {}): MutantResult => ({ id, file: 'reference/demo/handler.ts', line: id, column: 1, operator: 'equality', original: 'a === b', mutated: 'a !== b', key: `reference/demo/handler.ts#f#equality#000000000${id}#0`, start: 0, end: 1, group: 'demo', status, ...extra });
    const run = (commit: string, mutants: MutantResult[]): RunOutcome => ({ startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T01:00:00.000Z', root: dir, source: 'head', wholeFiles: [], commit, command: 'x', baselineMs: 1000, mutants });
    mkdirSync(join(dir, 'base'));
    writeFileSync(join(dir, 'base', 'mutation.json'), JSON.stringify(run('a'.repeat(40), [mutant(1, 'killed', { exitCode: 1, pass: 'default' }), mutant(2, 'survived', { passes: ['default', 'old'] }), mutant(3, 'survived')])));
    writeFileSync(join(dir, 'later.json'), JSON.stringify(run('b'.repeat(40), [mutant(2, 'killed', { exitCode: 1, pass: 'old', passes: ['default', 'old'] }), mutant(9, 'killed')])));
    writeFileSync(join(dir, 'triage.yaml'), 'unobservable: []\n');
    const args = ['--from-json', join(dir, 'base', 'mutation.json'), '--triage', join(dir, 'triage.yaml')];
    expect(await mutationMain([...args.slice(2), '--merge', join(dir, 'later.json')])).toBe(2); // --merge needs --from-json
    expect(await mutationMain([...args, '--merge', join(dir, 'later.json')])).toBe(0);
    const merged = JSON.parse(readFileSync(join(dir, 'base', 'mutation.json'), 'utf8')) as RunOutcome & { scores: unknown };
    expect(merged.mutants.map((m) => [m.id, m.status, m.pass, m.rerunAt])).toEqual([[1, 'killed', 'default', undefined], [2, 'killed', 'old', 'commit bbbbbbbbbbbb'], [3, 'survived', undefined, undefined]]);
    expect(merged.merged).toMatchObject([{ at: 'commit bbbbbbbbbbbb', mutants: 1, unmatched: 1 }]);
    expect(merged.scores).toMatchObject([{ group: 'demo', mutants: 3, killed: 2, survived: 1 }]);
    expect(readFileSync(join(dir, 'base', 'mutation.md'), 'utf8')).toMatch(/## Runs merged in[\s\S]*\| commit bbbbbbbbbbbb \| 1 \| 1 \| 1 \|/);
    // a later file that is not a mutation.json is refused with a clear message
    writeFileSync(join(dir, 'bad.json'), '{"nope": 1}');
    expect(await mutationMain([...args, '--merge', join(dir, 'bad.json')])).toBe(2);
  });

  it('refuses a --pass that names no pass or leaves out the default one', async () => {
    expect(await mutationMain(['--pass', 'nope', '--dry-run', '--only', 'validator'])).toBe(2);
    expect(await mutationMain(['--pass', 'ledger 3.6', '--dry-run', '--only', 'validator'])).toBe(2);
  });
});
