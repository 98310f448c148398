/** Writes a run's reports into reports/<run-id>/ and points reports/latest at it. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { createRequire } from 'node:module';
import { closeSync, existsSync, mkdirSync, rmdirSync, openSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync, lstatSync } from 'node:fs';
import type { TestResult, TestResultContainer } from 'allure-js-commons';
import type { Reporter, Vitest } from 'vitest/node';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../config.js';
import type { RunReport } from './model.js';
import { writeRequirementResults } from './allure-status.js';
import { V8_FLAGS } from '../../bin/v8-flags.mjs';
import { renderJunit } from './junit.js';
import { renderSummary } from './summary.js';
import { runSpan, type Span } from './spans.js';

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z').replace('T', '-');
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** The kernel's pseudo-filesystems: never a place for reports (Node's recursive mkdir loops forever under /proc). */
const PSEUDO_FS = ['/proc', '/sys'];
const underPseudoFs = (path: string) => PSEUDO_FS.find((p) => path === p || path.startsWith(`${p}/`));

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);

/**
 * Creates `dir` and its missing parents one level at a time (never `mkdirSync(..., { recursive: true })`, which loops
 * forever where mkdir answers ENOENT under an existing parent, as under /proc). Throws `fail(reason)` when a file is
 * in the way, a parent is not a directory, or a level cannot be created.
 */
function makeDirs(dir: string, fail: (why: string) => Error): string[] {
  const missing: string[] = [];
  let at = dir;
  for (;;) {
    let st;
    try {
      st = statSync(at);
    } catch (e) {
      const code = codeOf(e);
      if (code === 'ENOTDIR') {
        missing.unshift(at);
        at = dirname(at);
        continue;
      }
      if (code !== 'ENOENT') throw fail(`${at} cannot be read (${code})`);
      const up = dirname(at);
      if (up === at) throw fail(`its root ${at} does not exist`);
      missing.unshift(at);
      at = up;
      continue;
    }
    if (!st.isDirectory()) throw fail(at === dir ? 'it is not a directory (a file is in the way)' : `${at} is not a directory (a file is in the way)`);
    break;
  }
  // the deepest level that exists, with its symbolic links resolved: a link into /proc or /sys is refused too
  let real = at;
  try {
    real = realpathSync(at);
  } catch {
    // stat succeeded: a realpath that fails leaves the path as it is
  }
  const pseudo = underPseudoFs(real);
  if (pseudo !== undefined) throw fail(`${at === real ? at : `${at} (${real})`} is under ${pseudo}, a kernel pseudo-filesystem`);
  const created: string[] = [];
  for (const level of missing) {
    try {
      mkdirSync(level);
      created.push(level);
    } catch (e) {
      const code = codeOf(e);
      if (code === 'EEXIST' && statSync(level, { throwIfNoEntry: false })?.isDirectory() === true) continue;
      throw fail(code === 'ENOTDIR' || code === 'EEXIST' ? `${level} is not a directory (a file is in the way)` : `cannot create ${level} (${code})`);
    }
  }
  return created;
}

/**
 * Checks the reports directory before a run starts: under /proc or /sys, a file in the way, a directory
 * that cannot be created or is not writable (a file is created and removed in it) is a configuration error (exit 2)
 * naming the directory. Creates it when missing; returns its absolute path. Only stat, mkdir and a file created with
 * O_EXCL: nothing here blocks on a FIFO or reads a pseudo-file.
 */
export function checkReportsDir(reportsDir: string, setting = 'run.reportsDir, --reports-dir'): string {
  const dir = resolve(reportsDir);
  const fail = (why: string) => new ConfigError(`the reports directory ${dir} (${setting}) cannot be used: ${why}`);
  const pseudo = underPseudoFs(dir);
  if (pseudo !== undefined) throw fail(`it is under ${pseudo}, a kernel pseudo-filesystem`);
  const created = makeDirs(dir, fail);
  const probe = join(dir, `.write-check-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  try {
    const fd = openSync(probe, 'wx');
    try {
      writeSync(fd, 'ok\n');
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw fail(`it is not writable (${codeOf(e)})`);
  } finally {
    rmSync(probe, { force: true });
    // what the check made is taken away again: a run refused later (bad shards, a bad baseline) leaves no directory
    for (const level of created.reverse()) {
      try {
        rmdirSync(level);
      } catch {
        // not empty (another process wrote there meanwhile): kept
      }
    }
  }
  return dir;
}

export function createRunDir(reportsDir: string, runId: string): string {
  const dir = resolve(reportsDir, runId);
  makeDirs(join(dir, 'allure-results'), (why) => new ConfigError(`cannot create the report directory ${dir} (run.reportsDir): ${why}`));
  return dir;
}

/** Writes each file atomically (temp file, then rename), so a report already written is never left half-replaced. */
function writeAtomic(file: string, content: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

export function writeReports(dir: string, report: RunReport): string[] {
  writeRequirementResultsOf(dir, report);
  return writeRunReports(dir, report);
}

/**
 * The Allure results the HTML report is rendered from: one result per requirement, with its verdict: fail "failed",
 * error "broken", skipped and unsupported "skipped", untested "unknown" (the checks' own results are kept in
 * allure-results/checks). A failure to write them is a note of the reports.
 */
function writeRequirementResultsOf(dir: string, report: RunReport): void {
  try {
    writeRequirementResults(join(dir, 'allure-results'), report);
  } catch (e) {
    report.notes.push(`the Allure results of the requirements could not be written: ${(e as Error).message}`);
  }
}

/** conformance.json, junit.xml and summary.md, and reports/latest pointed at the run. */
function writeRunReports(dir: string, report: RunReport): string[] {
  const files = {
    'conformance.json': `${JSON.stringify(report, null, 2)}\n`,
    'junit.xml': renderJunit(report),
    'summary.md': renderSummary(report),
  };
  for (const [name, content] of Object.entries(files)) writeAtomic(join(dir, name), content);
  pointLatest(dir);
  return Object.keys(files).map((f) => join(dir, f));
}

/**
 * Writes every report of a run (summary.md, junit.xml, conformance.json) and, with `html` (true, or a rendering started
 * ahead with startAllureHtml), renders the Allure HTML; a rendering that fails is noted in the reports, which are then
 * written again. Returns the files written. `onWritten` is called once summary.md, junit.xml and conformance.json are
 * written (from then on a process that must end loses no report). The HTML is rendered from the requirements' Allure
 * results, written first: its child renders while this thread writes the other reports (about 0.15 s of the default
 * run's end, on the other core).
 */
export async function writeEveryReport(dir: string, report: RunReport, html: boolean | AllureHtml, onWritten?: () => void): Promise<string[]> {
  writeRequirementResultsOf(dir, report);
  const rendering = html === false ? undefined : (html === true ? startAllureHtml(dir) : html).render(runSpan(report));
  const files = writeRunReports(dir, report);
  onWritten?.();
  if (rendering === undefined) return files;
  const note = await rendering;
  if (note === undefined) return [...files, join(dir, 'allure-report', 'index.html')];
  report.notes.push(note);
  return writeRunReports(dir, report);
}

/** reports/latest -> the newest run, replaced atomically (a symlink renamed over the old one). */
function pointLatest(dir: string): void {
  const parent = dirname(dir);
  const link = join(parent, 'latest');
  const tmp = join(parent, `.latest-${process.pid}`);
  try {
    rmSync(tmp, { force: true });
    symlinkSync(dir.slice(parent.length + 1), tmp, 'dir');
    if (existsSync(link) && !lstatSync(link).isSymbolicLink()) rmSync(link, { recursive: true, force: true });
    renameSync(tmp, link);
  } catch {
    writeFileSync(join(parent, 'LATEST'), `${dir}\n`);
  }
}

const require = createRequire(import.meta.url);

/**
 * allure-vitest's reporter, writing the Allure results without the fsync its file writer makes for every result and
 * attachment (about a second of the main thread, which also serves the embedded reference, at the end of a default
 * run). Each file is still written whole (a temporary file renamed); the results are the same.
 */
export async function allureResultsReporter(resultsDir: string): Promise<Reporter> {
  const [{ default: AllureVitestReporter }, { FileSystemWriter }] = await Promise.all([import('allure-vitest/reporter'), import('allure-js-commons/sdk/reporter')]);
  const put = (name: string, content: string | Buffer) => {
    const file = join(resultsDir, name);
    const tmp = join(resultsDir, `.${name}.tmp-${process.pid}`);
    writeFileSync(tmp, content);
    renameSync(tmp, file);
  };
  class UnsyncedWriter extends FileSystemWriter {
    override writeResult(result: TestResult): void {
      put(`${result.uuid}-result.json`, JSON.stringify(result));
    }
    override writeGroup(result: TestResultContainer): void {
      put(`${result.uuid}-container.json`, JSON.stringify(result));
    }
    override writeAttachment(name: string, content: Buffer): void {
      put(name, content);
    }
    override writeAttachmentFromPath(name: string, from: string): void {
      put(name, readFileSync(from));
    }
  }
  mkdirSync(resultsDir, { recursive: true });
  return new (class extends AllureVitestReporter {
    override onInit(vitest: Vitest): void {
      super.onInit(vitest);
      const runtime = (this as unknown as { allureReporterRuntime?: { writer: unknown } }).allureReporterRuntime;
      if (runtime !== undefined) runtime.writer = new UnsyncedWriter({ resultsDir });
    }
  })({ resultsDir });
}

/**
 * What the child process runs: the steps of `allure generate` (its config read the same way, the results read, the
 * report written), taken from the library (@allurereport/core) rather than through the `allure` CLI, whose entry
 * point imports every command it has. It loads the library and its config at once, then reads the results when told
 * to ("go" on its standard input): the run's other reports are written meanwhile. Without "go" (the run failed, or
 * its process ended) it exits without rendering.
 */
const RENDER_SCRIPT = `
const [v8Flags, core, results, config, output] = process.argv.slice(1);
// set as the CLI sets them (bin/canton-conformance.mjs): a flag this Node's V8 does not know is ignored here, where on
// the command line it would end the process before it starts (Node 24 has no --interrupt-budget)
(await import('node:v8')).setFlagsFromString(v8Flags);
let input = '';
const go = new Promise((resolve) => {
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => (input += d));
  process.stdin.on('end', () => resolve(input.trim() === 'go'));
});
try {
  const { readConfig, AllureReport } = await import(core);
  const report = new AllureReport(await readConfig(process.cwd(), config, { output }));
  await report.restoreState([]);
  await report.start();
  if (!(await go)) process.exit(0);
  await report.readDirectory(results);
  await report.done();
} catch (e) {
  process.stderr.write(String(e?.message ?? e) + '\\n');
  process.exit(1);
}
`;

/**
 * The rendered HTML made to load nothing from anywhere when opened: Allure's generator adds Google Analytics (a script
 * from www.googletagmanager.com sent the report's id, with no setting to switch it off), taken out here with any other
 * script or style sheet from an http(s) URL. With `run`, the header's duration is the run's wall time. Throws when an
 * element that loads from an http(s) URL is left (the report is then not kept).
 */
export function localOnlyHtml(html: string, run?: Span): string {
  let out = html
    .replace(/<script\b[^>]*\ssrc\s*=\s*["']?(?:https?:)?\/\/[^>]*>\s*<\/script>/gi, '')
    // an inline script that calls gtag (the analytics' set-up): each script's text read in runs between "<"s
    .replace(/<script\b[^>]*>([^<]*(?:<(?!\/script>)[^<]*)*)<\/script>/gi, (whole, text: string) => (/\bgtag\s*\(/.test(text) ? '' : whole))
    .replace(/<link\b[^>]*\shref\s*=\s*["']?(?:https?:)?\/\/[^>]*>/gi, '');
  if (run !== undefined) {
    const start = Math.round(run.start);
    const stop = Math.round(run.end);
    out = out.replace(/"start":\d+,"stop":\d+,"duration":\d+/g, `"start":${start},"stop":${stop},"duration":${Math.max(0, stop - start)}`);
  }
  const left = /<(?:script|link|img|iframe|source|embed|object)\b[^>]*\s(?:src|href|data)\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/i.exec(out);
  if (left !== null) throw new Error(`it would load ${left[1]} when opened`);
  return out;
}

/** An HTML rendering started ahead (its library loading while the checks run). */
export interface AllureHtml {
  /**
   * Renders the run's Allure results, once; returns a note when rendering failed. `run`: the run's span, which the
   * report's header then shows as its duration (Allure's own is the results' earliest start to their latest stop).
   */
  render(run?: Span): Promise<string | undefined>;
  /** Ends the child without rendering (the run failed before its reports). */
  cancel(): void;
}

/**
 * Starts rendering allure-results into a single-file HTML report with the `allure` package's report library, in a
 * child process: it loads the library now and renders on `render()`, bounded in time from then. The other reports
 * stand whatever the rendering's outcome. Started with the run, the child loads the library (about 0.75 s of CPU) at
 * the lowest priority, on what the checks leave of the cores, rather than after them. At `render()` the rendering is
 * what the run waits for: the child gets the run's own priority back. On a machine kept busy by other work, a child
 * left at the lowest priority got almost no CPU and was killed at the time bound, without a report: so the child is
 * lowered only where this process may raise it again (mayRaiseAgain), and should raising fail all the same, a new
 * child at the run's priority loads and renders.
 */
export function startAllureHtml(dir: string, timeoutMs = 60_000, raisePriority = atOwnPriority): AllureHtml {
  const results = join(dir, 'allure-results');
  let core: string;
  try {
    // the library the allure CLI renders with, as the allure package resolves it
    core = pathToFileURL(createRequire(require.resolve('allure')).resolve('@allurereport/core')).href;
  } catch {
    return { render: async () => 'the allure package is not installed, so no HTML report was rendered', cancel: () => undefined };
  }
  const config = fileURLToPath(new URL('./allurerc.mjs', import.meta.url));
  const out = join(dir, 'allure-report');
  let renderer = spawnRenderer([core, results, config, out], dir, true);
  let rendered: Promise<string | undefined> | undefined;
  return {
    cancel: () => {
      if (rendered === undefined) renderer.child.kill();
    },
    render: (run?: Span) =>
      (rendered ??= (async () => {
        if (renderer.lowered && !raisePriority(renderer.child)) {
          renderer.child.kill();
          renderer = spawnRenderer([core, results, config, out], dir, false);
        }
        const { child, ended } = renderer;
        child.ref();
        for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { ref?: () => void }).ref?.();
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        if (!existsSync(results) || readdirSync(results).length === 0) {
          child.kill();
          await ended;
          clearTimeout(timer);
          return 'no Allure results were written, so no HTML report was rendered';
        }
        child.stdin.end('go\n');
        const r = await ended;
        clearTimeout(timer);
        if (r instanceof Error) return `the HTML report could not be rendered: ${r.message}`;
        if (r.code === 0 && existsSync(join(out, 'index.html'))) {
          const file = join(out, 'index.html');
          try {
            writeAtomic(file, localOnlyHtml(readFileSync(file, 'utf8'), run));
          } catch (e) {
            rmSync(file, { force: true });
            return `the HTML report was not kept: ${(e as Error).message}`;
          }
          return undefined;
        }
        return `the HTML report could not be rendered (${r.signal ?? `exit ${r.code}`}): ${renderer.stderr().trim().split('\n').slice(-3).join(' ')}`;
      })()),
  };
}

interface Renderer {
  child: ChildProcessWithoutNullStreams;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null } | Error>;
  /** the last 2 000 characters the child wrote to its standard error */
  stderr: () => string;
  /** whether it runs at the lowest priority */
  lowered: boolean;
}

/** The child that renders (RENDER_SCRIPT with `args`), at the lowest priority when `low` and the system allows it. */
function spawnRenderer(args: string[], cwd: string, low: boolean): Renderer {
  // V8 optimises later, as in the CLI's threads (bin/v8-flags.mjs): the rendering runs its code about once (reading
  // and rendering 15% faster, 0.47-0.57 s against 0.56-0.69 s, three runs each); the script sets the flags itself
  const child = spawn(process.execPath, ['--input-type=module', '-e', RENDER_SCRIPT, '--', V8_FLAGS, ...args], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  // until render() the child does not keep this process alive: if it ends first, the child's input closes without "go"
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
  child.stdin.on('error', () => undefined);
  // a process that exits meanwhile (process.exit after a stop) takes its rendering with it: no child left rendering
  const killOnExit = () => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('close', () => process.off('exit', killOnExit));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  child.stdout.resume();
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null } | Error>((resolve) => {
    child.on('error', (e) => resolve(e));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  let lowered = false;
  if (low && mayRaiseAgain()) {
    try {
      if (child.pid !== undefined) {
        setPriority(child.pid, 19);
        lowered = true;
      }
    } catch {
      // not allowed here: it loads at the usual priority
    }
  }
  return { child, ended, stderr: () => stderr, lowered };
}

/**
 * Whether this process may give a child its own priority back once lowered: as root, or where its nice limit
 * (RLIMIT_NICE, /proc/self/limits "Max nice priority") reaches its own priority. An ordinary user may only lower a
 * priority: there the child loads at the run's priority from the start, which costs the checks a little CPU rather
 * than leave the rendering at the lowest priority when the run waits for it.
 */
export function mayRaiseAgain(): boolean {
  try {
    if (process.geteuid?.() === 0) return true;
    const limit = /^Max nice priority\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    if (limit === undefined) return false;
    return limit === 'unlimited' || 20 - Number(limit) <= getPriority();
  } catch {
    return false;
  }
}

/** Gives a lowered child this process's priority back; false where the system does not allow it. */
export function atOwnPriority(child: ChildProcessWithoutNullStreams): boolean {
  try {
    if (child.pid === undefined || child.exitCode !== null) return false;
    setPriority(child.pid, getPriority());
    return true;
  } catch {
    return false;
  }
}
