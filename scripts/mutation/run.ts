/**
 * One mutation run: copies the project into a temporary folder (never touching the project's own files), writes the
 * selected handler files there as mutant schemata (scripts/mutation/mutate.ts), runs the test command once without a
 * mutant (it must pass; it also records which mutants the tests reach), then once per reached mutant with CC_MUTANT set,
 * at most `concurrency` at a time, each bounded in time.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { findMutants, isFaultFile, type Mutant, type Operator, OPERATORS, schemataSource } from './mutate.js';

export const APIS = ['ledger', 'scan', 'validator', 'registry'] as const;
/** the handler folders mutated by default, each a group of the report */
export const GROUPS = ['ledger', 'scan', 'validator', 'registry', 'data'] as const;

export type Status = 'killed' | 'survived' | 'timeout' | 'no-coverage';

export interface MutantResult extends Mutant {
  group: string;
  status: Status;
  /** the test command's exit code (killed), or undefined */
  exitCode?: number;
  ms?: number;
  /** the triage reason when the survivor is listed as unobservable in the triage file */
  triaged?: string;
  /** what check is missing, when the survivor is listed as a known gap in the triage file */
  gap?: string;
  /** the pass that detected it (killed or timeout) */
  pass?: string;
  /** the passes it was run in, in order */
  passes?: string[];
  /** it timed out once and was run again alone */
  rerun?: boolean;
  /** its result comes from a later run merged in (--merge): where that run was made */
  rerunAt?: string;
}

export interface RunSettings {
  /** the project to mutate */
  root: string;
  /** files to mutate, relative to root; default every handler file of GROUPS (no *fault*.ts) */
  files?: string[];
  /** only these groups */
  only?: string[];
  limit?: number;
  sample?: number;
  seed?: number;
  /** the test command, split on spaces; {apis} and {reports} are replaced. Default: the suite through the CLI */
  command?: string;
  failOn: 'must' | 'should';
  timeoutMs: number;
  concurrency: number;
  /** copy the last commit (git archive HEAD) or the working tree as it is */
  source: 'head' | 'worktree';
  operators?: readonly Operator[];
  keep?: boolean;
  /** build a type checker for 'list-emptied' (default true; without it that operator finds nothing) */
  typeCheck?: boolean;
  /** list the mutants, run nothing */
  dryRun?: boolean;
  /** only these mutants: ids (as numbered for this selection of files and operators) or keys */
  mutants?: readonly string[];
  /** the passes per interface instead of PASSES (each list starting with the default pass) */
  passes?: Readonly<Record<string, readonly Pass[]>>;
  write: (s: string) => void;
}

export interface RunOutcome {
  startedAt: string;
  finishedAt: string;
  root: string;
  source: string;
  /** the files every mutant of which was made and run (no sample, limit or operator filter) */
  wholeFiles: string[];
  /** the commit copied (source head) */
  commit?: string;
  command: string;
  /** the default pass's run without a mutant */
  baselineMs: number;
  /** the passes made: each one's options, interfaces, run without a mutant, and how many mutants it reached */
  passes?: { name: string; apis: string[]; args: string[]; baselineMs: number; reached: number }[];
  /** how many mutants timed out and were run again alone */
  rerunTimeouts?: number;
  mutants: MutantResult[];
  workspace?: string;
  /** later runs merged in (--merge): the file, where it was made, how many mutants it gave and how many it had that this run lacks */
  merged?: { file: string; at: string; startedAt: string; mutants: number; unmatched: number }[];
}

export class MutationError extends Error {}

const slash = (p: string) => p.split('\\').join('/');

/** the group of a handler file: its folder under reference/ (or its parent folder's name elsewhere) */
export const groupOf = (file: string): string => slash(file).split('/').slice(-2, -1)[0] ?? '';

/** The handler files of the groups (every .ts file of reference/<group>/ but the fault-planting ones). */
export function handlerFiles(root: string, groups: readonly string[] = GROUPS): string[] {
  const out: string[] = [];
  for (const g of groups) {
    const dir = join(root, 'reference', g);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.ts') && !f.endsWith('.d.ts') && !isFaultFile(f)) out.push(`reference/${g}/${f}`);
  }
  return out;
}

/** A deterministic shuffle (mulberry32): the same seed picks the same sample. */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Copies the project into a new temporary folder; node_modules is linked package by package, its caches kept apart. */
export function makeWorkspace(root: string, source: 'head' | 'worktree'): string {
  const ws = mkdtempSync(join(tmpdir(), 'cc-mutation-'));
  if (source === 'head') {
    const archive = spawnSync('git', ['-C', root, 'archive', '--format=tar', 'HEAD'], { maxBuffer: 512 * 1024 * 1024 });
    if (archive.status !== 0) throw new MutationError(`cannot copy the last commit of ${root} (git archive HEAD: ${String(archive.stderr).trim() || `exit ${archive.status}`}); --source worktree copies the files as they are`);
    const untar = spawnSync('tar', ['-x', '-C', ws], { input: archive.stdout });
    if (untar.status !== 0) throw new MutationError(`cannot unpack the copy into ${ws}: ${String(untar.stderr).trim()}`);
  } else {
    cpSync(root, ws, {
      recursive: true,
      filter: (src) => {
        const rel = slash(relative(root, src));
        return rel === '' || !/^(node_modules|\.git|reports)(\/|$)/.test(rel);
      },
    });
  }
  // the CLI's bundle and vitest's caches live under node_modules/.cache: the copy has its own, so that neither a build
  // here nor one in the project removes the other's bundle
  const nm = join(root, 'node_modules');
  if (existsSync(nm)) {
    mkdirSync(join(ws, 'node_modules'), { recursive: true });
    for (const e of readdirSync(nm)) if (!e.startsWith('.') || e === '.bin') symlinkSync(join(nm, e), join(ws, 'node_modules', e));
  }
  return ws;
}

/** A program over the files, for the type checker ('list-emptied' needs to know which values are arrays). */
function programOf(ws: string, files: string[]): ts.Program {
  let options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, skipLibCheck: true, noEmit: true };
  const cfg = join(ws, 'tsconfig.json');
  if (existsSync(cfg)) {
    const read = ts.readConfigFile(cfg, ts.sys.readFile);
    if (read.error === undefined) options = ts.parseJsonConfigFileContent(read.config, ts.sys, ws).options;
  }
  return ts.createProgram(files.map((f) => join(ws, f)), { ...options, noEmit: true });
}

/** Which interfaces' suites a file's mutants are run with: its own, or those whose handlers import it. */
function apisOfFiles(ws: string, files: string[]): Map<string, string[]> {
  const importsOf = new Map<string, string[]>();
  const all = (dir: string): string[] => {
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { recursive: true }).map((f) => slash(join(relative(ws, dir), String(f)))).filter((f) => f.endsWith('.ts'));
  };
  const ref = all(join(ws, 'reference'));
  for (const f of ref) {
    const text = readFileSync(join(ws, f), 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) deps.push(slash(join(dirname(f), m[1]!.replace(/\.js$/, '.ts'))));
    importsOf.set(f, deps);
  }
  const reach = (start: string): Set<string> => {
    const seen = new Set<string>();
    const todo = [start];
    while (todo.length > 0) {
      const f = todo.pop()!;
      if (seen.has(f)) continue;
      seen.add(f);
      // reference/index.ts starts every interface: not a way from one interface's handlers to a shared file
      for (const d of importsOf.get(f) ?? []) if (d !== 'reference/index.ts' && d !== 'reference/thread.ts') todo.push(d);
    }
    return seen;
  };
  const reached = new Map<string, Set<string>>();
  for (const api of APIS) {
    const s = new Set<string>();
    for (const f of ref.filter((x) => x.startsWith(`reference/${api}/`))) for (const r of reach(f)) s.add(r);
    reached.set(api, s);
  }
  const out = new Map<string, string[]>();
  for (const f of files) {
    const g = groupOf(f);
    if ((APIS as readonly string[]).includes(g)) out.set(f, [g]);
    else {
      const apis = APIS.filter((a) => reached.get(a)!.has(f));
      out.set(f, apis.length > 0 ? apis : [...APIS]);
    }
  }
  return out;
}

interface Exec {
  code: number | undefined;
  timedOut: boolean;
  ms: number;
  tail: string;
}

/** the process groups of the test commands running now (each is started detached, in a group of its own) */
const running = new Set<number>();
const killGroup = (pid: number) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
};

/** Runs argv in cwd with env added, killed with its process group after timeoutMs. */
function exec(argv: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<Exec> {
  const t0 = performance.now();
  return new Promise((done) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    if (child.pid !== undefined) running.add(child.pid);
    let tail = '';
    const keep = (b: Buffer) => {
      tail = (tail + b.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) killGroup(child.pid);
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      if (child.pid !== undefined) running.delete(child.pid);
      done({ code: 127, timedOut: false, ms: performance.now() - t0, tail: `${tail}\n${e.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (child.pid !== undefined) running.delete(child.pid);
      done({ code: code ?? undefined, timedOut, ms: performance.now() - t0, tail });
    });
  });
}

/** One pass of the suite over a mutant: the embedded reference at some version. */
export interface Pass {
  name: string;
  /** added to the test command (options of the suite's `run`) */
  args: readonly string[];
}

export const DEFAULT_PASS: Pass = { name: 'default', args: [] };

/**
 * The passes each interface's mutants are run in, in this order; the first that detects a mutant ends its runs, and a
 * mutant is run only in the passes whose run without a mutant reached it. Some handler code is reached, or behaves
 * differently, only at another version of the reference: a scan before 0.6.8 serves POST /v0/activities; a 3.6
 * participant serves neither transaction-by-offset nor GET /v2/package-vetting, a 3.4 one no traffic endpoint and no
 * user's primaryPartyAuthentication; a registry before 0.6.11 serves no allocation-instruction endpoint. Every
 * interface's first pass is `default` (the reference's default versions); a shared file's mutants (reference/data/)
 * run the default pass of all their interfaces at once, then each interface's other passes. Every pass's run without
 * a mutant must pass.
 */
export const PASSES: Readonly<Record<string, readonly Pass[]>> = {
  ledger: [DEFAULT_PASS, { name: 'ledger 3.6', args: ['--ledger-version', '3.6'] }, { name: 'ledger 3.4', args: ['--ledger-version', '3.4'] }],
  scan: [
    DEFAULT_PASS,
    { name: 'scan 0.6.7', args: ['--scan-version', '0.6.7'] },
    // the first release without POST /v0/activities (the version gate's boundary): only the checks of that endpoint
    { name: 'scan 0.6.8', args: ['--scan-version', '0.6.8', '--operation', 'listActivities'] },
    // a variant that pages licenses without look-ahead (FACTS.md allows both forms): only the license checks
    { name: 'scan variant 1', args: ['--reference-variant', '1', '--operation', 'listValidatorLicenses'] },
  ],
  validator: [DEFAULT_PASS],
  registry: [DEFAULT_PASS, { name: 'registry 0.6.10', args: ['--registry-version', '0.6.10'] }],
};

/** A pass as this run makes it: the interfaces it runs, its run without a mutant and the mutants that run reached. */
interface PassRun extends Pass {
  apis: string[];
  reached: Set<number>;
  baselineMs: number;
  /** the longest one mutant's run of this pass may take */
  timeoutMs: number;
}

/** The argv of the test command; `{pass}` (a word of its own in --command) stands for the pass's options. */
function commandOf(s: RunSettings, apis: string[], reports: string, args: readonly string[] = []): string[] {
  if (s.command !== undefined) return s.command.trim().split(/\s+/).flatMap((a) => (a === '{pass}' ? [...args] : [a.replaceAll('{apis}', apis.join(',')).replaceAll('{reports}', reports)]));
  return [process.execPath, 'bin/canton-conformance.mjs', 'run', '--no-html', '--no-compare', '--only', apis.join(','), '--fail-on', s.failOn, '--reports-dir', reports, ...args];
}

/** The passes of a run over these interfaces: the default over all of them, then each interface's others. */
function passesOf(table: Readonly<Record<string, readonly Pass[]>>, apis: readonly string[]): { name: string; args: readonly string[]; apis: string[] }[] {
  const out = [{ ...DEFAULT_PASS, apis: [...apis] }];
  for (const api of apis) {
    for (const p of table[api] ?? [DEFAULT_PASS]) {
      if (p.name === DEFAULT_PASS.name) continue;
      const same = out.find((q) => q.name === p.name);
      if (same === undefined) out.push({ ...p, apis: [api] });
      else if (same.args.join(' ') !== p.args.join(' ')) throw new MutationError(`two passes are named "${p.name}" with different options`);
      else same.apis.push(api);
    }
  }
  return out;
}

/** Picks the mutants --mutant names, by id (as numbered for this selection) or by key. */
function pickMutants(all: Mutant[], wanted: readonly string[], files: readonly string[]): Mutant[] {
  const picked = new Map<number, Mutant>();
  for (const w of wanted) {
    const hit = /^\d+$/.test(w) ? all.find((m) => m.id === Number(w)) : all.find((m) => m.key === w);
    if (hit === undefined) {
      throw new MutationError(/^\d+$/.test(w)
        ? `no mutant #${w}: this selection has ${all.length} (${files.join(', ')}); an id is the one --dry-run prints for the same --only, --file and --operator`
        : `no mutant with the key ${w} in ${files.join(', ')}${all.length > 0 ? '' : ' (none made)'}: the code changed, or the key is mistyped`);
    }
    picked.set(hit.id, hit);
  }
  return [...picked.values()].sort((a, b) => a.id - b.id);
}

/** Finds, builds and runs the mutants. */
export async function runMutation(s: RunSettings): Promise<RunOutcome> {
  const startedAt = new Date().toISOString();
  const root = resolve(s.root);
  const only = s.only ?? [...GROUPS];
  // --mutant by keys alone: the keys name their files
  const keyFiles = s.files === undefined && s.mutants !== undefined && s.mutants.length > 0 && s.mutants.every((m) => !/^\d+$/.test(m)) ? [...new Set(s.mutants.map((m) => m.split('#')[0]!))] : undefined;
  const files = (s.files ?? keyFiles ?? handlerFiles(root, only)).map(slash).filter((f) => only.includes(groupOf(f)) || s.files !== undefined || keyFiles !== undefined);
  for (const f of files) if (!existsSync(join(root, f))) throw new MutationError(`no such file: ${f} (paths are relative to ${root})`);
  if (files.length === 0) throw new MutationError(`no handler file to mutate (groups: ${only.join(', ')})`);
  const ws = makeWorkspace(root, s.source);
  const rev = s.source === 'head' ? spawnSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout?.trim() : undefined;
  const commit = rev !== undefined && /^[0-9a-f]{40}$/.test(rev) ? { commit: rev } : {};
  // an interrupt stops the test commands (in process groups of their own, the terminal's signal does not reach them)
  // and removes the copy
  const onSignal = (sig: NodeJS.Signals) => {
    for (const pid of running) killGroup(pid);
    if (s.keep !== true) rmSync(ws, { recursive: true, force: true });
    s.write(`\nmutation: stopped by ${sig}; no report written\n`);
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const f of files) if (!existsSync(join(ws, f))) throw new MutationError(`${f} is not in the ${s.source === 'head' ? 'last commit' : 'working tree'}: commit it, or use --source worktree`);
    // the type checker takes seconds to build, and only 'list-emptied' asks it anything
    const program = s.typeCheck === false || !(s.operators ?? OPERATORS).includes('list-emptied') ? undefined : programOf(ws, files);
    const checker = program?.getTypeChecker();
    let all: Mutant[] = [];
    for (const f of files) {
      const sf = program?.getSourceFile(join(ws, f));
      const text = readFileSync(join(ws, f), 'utf8');
      all.push(...findMutants({ file: f, text, ...(sf !== undefined && checker !== undefined ? { sourceFile: sf, checker } : {}) }, s.operators ?? OPERATORS));
    }
    all = all.map((m, i) => ({ ...m, id: i + 1 }));
    let selected = all;
    if (s.mutants !== undefined) selected = pickMutants(all, s.mutants, files);
    if (s.sample !== undefined) selected = shuffled(selected, s.seed ?? 1).slice(0, s.sample).sort((a, b) => a.id - b.id);
    if (s.limit !== undefined) selected = selected.slice(0, s.limit);
    s.write(`${all.length} mutants in ${files.length} files; ${selected.length} selected\n`);
    if (selected.length === 0) throw new MutationError(`no mutation point in ${files.join(', ')}${s.operators !== undefined ? ` for the operators ${s.operators.join(', ')}` : ''} (fault-planting files and fault code are never mutated)`);
    const apisOf = apisOfFiles(ws, files);
    const results: MutantResult[] = selected.map((m) => ({ ...m, group: groupOf(m.file), status: 'no-coverage' as Status }));
    const whole = s.sample === undefined && s.limit === undefined && s.operators === undefined && s.mutants === undefined ? files : [];
    const apis = [...new Set(selected.flatMap((m) => apisOf.get(m.file) ?? []))].sort((a, b) => APIS.indexOf(a as never) - APIS.indexOf(b as never));
    // a test command of one's own runs the passes only where it takes their options (a word {pass})
    const table = s.passes ?? (s.command === undefined || s.command.split(/\s+/).includes('{pass}') ? PASSES : {});
    const plannedPasses = passesOf(table, apis);
    const outcome = (baselineMs: number, passes: PassRun[], rerun: number): RunOutcome => ({
      startedAt,
      finishedAt: new Date().toISOString(),
      root,
      source: s.source,
      wholeFiles: whole,
      ...commit,
      command: commandOf(s, ['{apis}'], '{reports}').join(' '),
      baselineMs,
      passes: passes.map((p) => ({ name: p.name, apis: p.apis, args: [...p.args], baselineMs: p.baselineMs, reached: results.filter((r) => p.reached.has(r.id)).length })),
      rerunTimeouts: rerun,
      mutants: results,
      ...(s.keep === true && s.dryRun !== true ? { workspace: ws } : {}),
    });
    if (s.dryRun === true) return outcome(0, plannedPasses.map((p) => ({ ...p, reached: new Set<number>(), baselineMs: 0, timeoutMs: 0 })), 0);

    for (const f of files) {
      const mine = selected.filter((m) => m.file === f);
      if (mine.length > 0) writeFileSync(join(ws, f), schemataSource(readFileSync(join(ws, f), 'utf8'), mine));
    }
    // each pass without a mutant: the first builds the copy's bundle; each must pass, and records which mutants it
    // reaches
    const passes: PassRun[] = plannedPasses.map((p) => ({ ...p, reached: new Set<number>(), baselineMs: 0, timeoutMs: s.timeoutMs }));
    s.write(`the tests without a mutant (${apis.join(', ')}${passes.length > 1 ? `; passes: ${passes.map((p) => p.name).join(', ')}` : ''}), recording which mutants they reach ...\n`);
    const baseline = async (p: PassRun, i: number) => {
      const coverage = join(ws, `.mutant-coverage-${i}`);
      writeFileSync(coverage, '');
      const base = await exec(commandOf(s, p.apis, join(ws, '.reports', `baseline-${i}`), p.args), ws, { CC_MUTANT: '0', CC_MUTANT_PASS: p.name, CC_MUTANT_COVERAGE: coverage }, Math.max(s.timeoutMs, 180_000));
      if (base.timedOut || base.code !== 0) {
        throw new MutationError(`the tests fail without any mutant${passes.length > 1 ? ` in the pass "${p.name}"${p.args.length > 0 ? ` (${p.args.join(' ')})` : ''}` : ''} (${base.timedOut ? 'timed out' : `exit ${base.code}`}), so no mutant can be judged; the end of their output:\n${base.tail}`);
      }
      p.reached = new Set(readFileSync(coverage, 'utf8').split('\n').filter((l) => l !== '').map(Number));
      p.baselineMs = Math.round(base.ms);
      p.timeoutMs = Math.max(s.timeoutMs, Math.ceil(base.ms * 3));
    };
    // the first alone: it builds the copy's CLI bundle, which the others then load
    await baseline(passes[0]!, 0);
    await pool(passes.slice(1).map((p, i) => () => baseline(p, i + 1)), s.concurrency);
    /** the passes a mutant runs in: those of its interfaces that reached it, in order */
    const planOf = (r: MutantResult): PassRun[] => {
      const mine = apisOf.get(r.file) ?? [...APIS];
      return passes.filter((p) => p.reached.has(r.id) && (p.name === DEFAULT_PASS.name || p.apis.some((a) => mine.includes(a))));
    };
    const todo = results.filter((r) => planOf(r).length > 0);
    const runs = todo.reduce((n, r) => n + planOf(r).length, 0);
    const perPass = passes.length > 1 ? ` (${passes.map((p) => `${p.name}: ${results.filter((r) => p.reached.has(r.id)).length} reached, ${(p.baselineMs / 1000).toFixed(1)} s`).join('; ')})` : '';
    s.write(`without a mutant: passed in ${(passes[0]!.baselineMs / 1000).toFixed(1)} s; ${todo.length} of ${results.length} mutants reached by the tests${perPass}, each run at most ${(Math.max(...passes.map((p) => p.timeoutMs)) / 1000).toFixed(0)} s, ${s.concurrency} at a time, at most ${runs} runs\n`);

    /** one run of the test command with the mutant switched on, in one pass */
    const runIn = async (r: MutantResult, p: PassRun): Promise<Exec> => {
      const reports = join(ws, '.reports', `${r.id}-${passes.indexOf(p)}`);
      const apisHere = p.name === DEFAULT_PASS.name ? (apisOf.get(r.file) ?? [...APIS]) : p.apis;
      const e = await exec(commandOf(s, apisHere, reports, p.args), ws, { CC_MUTANT: String(r.id), CC_MUTANT_PASS: p.name }, p.timeoutMs);
      rmSync(reports, { recursive: true, force: true });
      return e;
    };
    /**
     * Runs the mutant's passes from `from` on, up to the first that detects it. A run that times out is judged only
     * when `alone`: else the index of its pass is returned, to run again alone once the others are done.
     */
    const judge = async (r: MutantResult, from: number, alone: boolean): Promise<number | undefined> => {
      const plan = planOf(r);
      for (let i = from; i < plan.length; i++) {
        const p = plan[i]!;
        const e = await runIn(r, p);
        r.ms = (r.ms ?? 0) + Math.round(e.ms);
        if (e.timedOut && !alone) return i;
        r.passes = [...(r.passes ?? []), p.name];
        if (e.timedOut) {
          r.status = 'timeout';
          r.pass = p.name;
          return undefined;
        }
        if (e.code !== 0) {
          r.status = 'killed';
          r.pass = p.name;
          if (e.code !== undefined) r.exitCode = e.code;
          return undefined;
        }
      }
      r.status = 'survived';
      return undefined;
    };
    let done = 0;
    const progress = (r: MutantResult, total: number) => {
      done++;
      const by = r.pass !== undefined && (planOf(r).length > 1 || r.pass !== DEFAULT_PASS.name) ? ` in ${r.pass}` : r.status === 'survived' && (r.passes?.length ?? 0) > 1 ? ` (${r.passes!.join(', ')})` : '';
      s.write(`[${done}/${total}] #${r.id} ${r.status}${r.exitCode !== undefined ? ` (exit ${r.exitCode})` : ''}${by}${r.rerun === true ? ' (run again alone)' : ''} ${((r.ms ?? 0) / 1000).toFixed(1)} s  ${r.file}:${r.line} ${r.operator}\n`);
    };
    const again: { r: MutantResult; from: number }[] = [];
    await pool(todo.map((r) => async () => {
      const from = await judge(r, 0, false);
      if (from === undefined) progress(r, todo.length);
      else {
        again.push({ r, from });
        s.write(`#${r.id} timed out in ${planOf(r)[from]!.name}: run again alone at the end\n`);
      }
    }), s.concurrency);
    // a loaded machine is not a detection: a mutant that timed out is run again, with nothing else of this run beside it
    if (again.length > 0) s.write(`${again.length} mutant${again.length === 1 ? '' : 's'} timed out: each run again alone ...\n`);
    for (const { r, from } of again.sort((a, b) => a.r.id - b.r.id)) {
      r.rerun = true;
      await judge(r, from, true);
      progress(r, todo.length);
    }
    return outcome(passes[0]!.baselineMs, passes, again.length);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (s.keep !== true) rmSync(ws, { recursive: true, force: true });
    else s.write(`the mutated copy is kept in ${ws}\n`);
  }
}

/** Runs the tasks, at most `concurrency` at a time; after a failure no task starts, and it is thrown once the running ones end. */
async function pool(tasks: (() => Promise<void>)[], concurrency: number): Promise<void> {
  let next = 0;
  let failed: { e: unknown } | undefined;
  const worker = async () => {
    while (next < tasks.length && failed === undefined) {
      try {
        await tasks[next++]!();
      } catch (e) {
        failed ??= { e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, worker));
  if (failed !== undefined) throw failed.e;
}
