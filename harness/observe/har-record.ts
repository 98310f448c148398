/**
 * `run --record FILE.har`: every exchange of a run, as HAR 1.2, redacted like every other output. The exchanges happen
 * in the suite's worker threads: each thread appends its entries, one JSON line each, to a part file of its own (the
 * tap of harness/transport/http.ts, installed by the setup file har-setup.ts in the workers and here in the main thread); at the
 * end of the run the parts are merged into one HAR, oldest entry first, and removed.
 */
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, renameSync, rmSync, writeSync, createReadStream } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError } from '../config.js';
import { setExchangeTap } from '../transport/http.js';
import { PACKAGE_ROOT } from '../paths.js';
import { harCreator, harEntryOf } from './har.js';

/** The vitest setup file that installs a part writer in each suite worker (given the parts folder by provide). */
export const RECORD_SETUP_FILE = join(PACKAGE_ROOT, 'harness', 'observe', 'har-setup.ts');

const WRITERS = Symbol.for('canton-conformance.har-part-writers');

/**
 * Makes this thread append every exchange it sends to `<dir>/<name>.jsonl`; once per thread and folder (a setup file
 * runs before each test file). Returns a function that removes the tap and closes the part.
 */
export function installPartWriter(dir: string, name: string, maxBodyBytes: number): () => void {
  const g = globalThis as Record<symbol, Map<string, () => void> | undefined>;
  const writers = (g[WRITERS] ??= new Map());
  const known = writers.get(dir);
  if (known !== undefined) return known;
  const fd = openSync(join(dir, `${name}.jsonl`), 'a');
  let open = true;
  setExchangeTap((x) => {
    if (!open) return;
    // one write per entry, whole: a thread cut off mid-run leaves at most its last line unfinished (the merge skips it)
    writeSync(fd, `${JSON.stringify(harEntryOf(x, maxBodyBytes))}\n`);
  });
  const stop = () => {
    if (!open) return;
    open = false;
    setExchangeTap(undefined);
    writers.delete(dir);
    closeSync(fd);
  };
  writers.set(dir, stop);
  return stop;
}

interface Indexed {
  at: string;
  part: number;
  offset: number;
  length: number;
}

/** Where each entry of a part file lies, and when it started (read from the line's start: no entry is parsed). */
async function indexPart(file: string, part: number, out: Indexed[]): Promise<void> {
  let offset = 0;
  let lineStart = 0;
  let head = '';
  let last = -1;
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, from)) {
      if (head.length < 64) head += chunk.subarray(from, Math.min(nl, from + 64)).toString('latin1');
      last = nl > 0 ? chunk[nl - 1]! : last;
      const end = offset + nl;
      const at = /^\{"startedDateTime":"([^"]+)"/.exec(head)?.[1];
      // a line cut short (a thread stopped mid-write) does not end its object: left out
      if (at !== undefined && last === 0x7d) out.push({ at, part, offset: lineStart, length: end - lineStart });
      lineStart = end + 1;
      head = '';
      from = nl + 1;
    }
    if (head.length < 64 && from < chunk.length) head += chunk.subarray(from, Math.min(chunk.length, from + 64)).toString('latin1');
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
    offset += chunk.length;
  }
}

/** Merges the part files of `dir` into the HAR `file` (written whole: a temporary file renamed); returns the entries. */
export async function mergeHarParts(dir: string, file: string, version: string): Promise<number> {
  const parts = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort().map((f) => join(dir, f));
  const index: Indexed[] = [];
  for (const [i, p] of parts.entries()) await indexPart(p, i, index);
  index.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.part - b.part || a.offset - b.offset));
  const tmp = `${file}.tmp-${process.pid}`;
  const out = openSync(tmp, 'w');
  const fds = parts.map((p) => openSync(p, 'r'));
  try {
    writeSync(out, `{"log":{"version":"1.2","creator":${JSON.stringify(harCreator(version))},"pages":[],"entries":[\n`);
    let buf = Buffer.alloc(64 * 1024);
    index.forEach((e, i) => {
      if (buf.length < e.length) buf = Buffer.alloc(e.length);
      readSync(fds[e.part]!, buf, 0, e.length, e.offset);
      if (i > 0) writeSync(out, ',\n');
      writeSync(out, buf, 0, e.length);
    });
    writeSync(out, '\n]}}\n');
  } finally {
    closeSync(out);
    for (const fd of fds) closeSync(fd);
  }
  renameSync(tmp, file);
  return index.length;
}

export interface Recording {
  /** the parts folder the workers write to */
  dir: string;
  /** Stops this thread's part writer, merges every part into the HAR, removes the parts; returns the entries written. */
  finish(version: string): Promise<number>;
  /** Removes the parts without writing the HAR (the run failed before it started). */
  discard(): void;
}

/** Starts recording a run into `file`: the parts folder beside it, and this thread's own part writer. */
export function startRecording(file: string, maxBodyBytes: number): Recording {
  const target = resolve(file);
  const dir = mkdtempSync(join(dirname(target), `.${basename(target)}.parts-`));
  const stop = installPartWriter(dir, 'main', maxBodyBytes);
  return {
    dir,
    finish: async (version) => {
      stop();
      try {
        return await mergeHarParts(dir, target, version);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    discard: () => {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** run --record FILE: the folder FILE goes in must exist and take files (a configuration error, exit 2, before the run). */
export function checkRecordFile(file: string): void {
  const dir = dirname(resolve(file));
  try {
    rmSync(mkdtempSync(join(dir, '.record-check-')), { recursive: true });
  } catch (e) {
    throw new ConfigError(`--record ${file}: cannot write in ${dir} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}
