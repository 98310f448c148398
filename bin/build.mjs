// The CLI's start path (harness/, reference/, generators/) bundled into one plain JavaScript module with esbuild, so a
// run loads no TypeScript through loader hooks (tsx's hooks also slow every import of vitest and the other packages).
// The bundle is built at install ("prepare", which `npm ci` runs) and again on the first start after any of its
// sources changed: it is kept under node_modules/.cache/canton-conformance/cli/ (never committed), named by a hash of the
// contents of every file that went into it, so an edited check or harness file is never run from a stale bundle.
// Packages stay outside the bundle (imported from node_modules). Where the bundle cannot be built (no esbuild, a
// read-only node_modules), the CLI is loaded through tsx. CC_NO_BUNDLE=1 forces that path.
// The suite files are entries of the same bundle, with the group loader and the recording setup of the suite workers:
// a run from the bundle has its workers import them natively (harness/run-groups.ts), not through vitest's module
// runner, which would transform and evaluate every suite and harness module in each worker (a group's files load in
// 280-420 ms instead of 390-630 ms, and the default run's peak RSS is about 20 MiB lower).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'node_modules', '.cache', 'canton-conformance', 'cli');
// the bundle names its sources by absolute path (see import.meta.url below): a node_modules shared by two copies of the
// package keeps a manifest for each
const MANIFEST = join(CACHE, `manifest-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.json`);
const ENTRY = 'harness/cli.ts';
const THREAD_ENTRY = 'reference/thread.ts';
/** what the suite workers import from the bundle: the group loader, the recording setup, and the suite files */
const WORKER_ENTRIES = ['harness/run-groups.ts', 'harness/observe/har-setup.ts'];
/** The suite files there are now (each an entry of the bundle): a file added or removed makes the bundle stale. */
function suiteEntries() {
  try {
    return readdirSync(join(ROOT, 'suites'), { recursive: true })
      .map((f) => `suites/${String(f).split('\\').join('/')}`)
      .filter((f) => f.endsWith('.test.ts'))
      .sort();
  } catch {
    return [];
  }
}
/** every entry of the bundle; each is written at its own path with .mjs (harness/cli.mjs, suites/x/y.test.mjs) */
const entries = () => [ENTRY, THREAD_ENTRY, ...WORKER_ENTRIES, ...suiteEntries()];
const outputOf = (entry) => entry.replace(/\.ts$/, '.mjs');
/** the configuration schema, whose validator is precompiled into the bundle (see precompiledConfigValidator) */
const CONFIG_SCHEMA = 'harness/config.schema.json';
/** besides the bundled files, what changes the bundle: this builder, the compiler options, the precompiled validator's inputs */
const ALWAYS = ['bin/build.mjs', 'tsconfig.json', CONFIG_SCHEMA, 'node_modules/ajv/package.json'];

const debug = process.env.CC_DEBUG !== undefined && process.env.CC_DEBUG !== '' ? (s) => process.stderr.write(`[build] ${s}\n`) : () => {};

/** The hash of the files' contents (and paths): the bundle's name. Undefined when one of them is gone. */
function keyOf(inputs) {
  const h = createHash('sha256').update(ROOT).update('\0');
  for (const rel of [...ALWAYS, ...inputs]) {
    let content;
    try {
      content = readFileSync(join(ROOT, rel));
    } catch {
      if (ALWAYS.includes(rel)) continue;
      return undefined;
    }
    h.update(rel).update('\0').update(content).update('\0');
  }
  return h.digest('hex').slice(0, 20);
}

/** the bundle's CLI module, in the bundle's folder with the other entries and the chunks they share */
const bundleFile = (key) => join(CACHE, key, outputOf(ENTRY));

/** The bundle of the current sources when one was built, else undefined. */
function current() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(manifest.inputs) || JSON.stringify(manifest.entries) !== JSON.stringify(entries())) return undefined;
  // a bundle is named by the hash of the files it was built from: one of that name is of these sources (an edit
  // undone finds its earlier bundle again)
  const key = keyOf(manifest.inputs);
  return key !== undefined && existsSync(bundleFile(key)) ? bundleFile(key) : undefined;
}

async function loadEsbuild() {
  try {
    return await import('esbuild');
  } catch {
    // tsx depends on esbuild: take the one it uses when none is reachable from the package root
    const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx'));
    return await import(pathToFileURL(fromTsx.resolve('esbuild')).href);
  }
}

/** Writes a file whole or not at all (a temporary file renamed), so concurrent starts never read half a bundle. */
function writeAtomic(file, content) {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

const CONFIG_TS = 'harness/config.ts';
const PRECOMPILED_MARK = 'const PRECOMPILED_VALIDATOR: ValidateFunction | undefined = undefined;';
let validatorSource;

/**
 * The configuration's validator as the source of a module (ajv standalone code), compiled here at build time with the
 * options harness/config.ts compiles it with (its CONFIG_AJV_OPTIONS), so a run never compiles the schema (0.3 s).
 * Undefined when config.ts no longer has the marker or the options: it then compiles the schema on first use.
 */
export function precompiledConfigValidator(configTs) {
  const options = /export const CONFIG_AJV_OPTIONS = (\{[^}]*\}) as const;/.exec(configTs)?.[1];
  if (options === undefined || !configTs.includes(PRECOMPILED_MARK)) return undefined;
  const require = createRequire(join(ROOT, 'package.json'));
  const { Ajv2020 } = require('ajv/dist/2020.js');
  const standalone = require('ajv/dist/standalone').default;
  const ajv = new Ajv2020({ ...new Function(`return (${options});`)(), code: { source: true, esm: true } });
  const code = standalone(ajv, ajv.compile(JSON.parse(readFileSync(join(ROOT, CONFIG_SCHEMA), 'utf8'))));
  // the runtime helpers the generated code requires (ucs2length, equal) are loaded from the package's ajv
  return `import { createRequire as __ccCreateRequire } from 'node:module';\nconst require = __ccCreateRequire(${JSON.stringify(pathToFileURL(join(ROOT, CONFIG_TS)).href)});\n${code.replace(/^"use strict";/, '')}`;
}

/** Builds the bundle of the current sources and returns its file. */
export async function build() {
  const t0 = performance.now();
  const { build: esbuild } = await loadEsbuild();
  const entryPoints = entries();
  const result = await esbuild({
    absWorkingDir: ROOT,
    // the CLI, the reference server's thread (harness/run/runner.ts starts it in a worker thread from this bundle), and
    // what the suite workers import (harness/run-groups.ts)
    entryPoints,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outdir: join(CACHE, 'out'),
    // each entry at its source's path: harness/cli.mjs, reference/thread.mjs, suites/ledger/x.test.mjs
    outbase: ROOT,
    entryNames: '[dir]/[name]',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/chunk-[hash]',
    // the modules a command imports on demand stay separate chunks: `run` loads the reference server beside vitest
    splitting: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    banner: { js: '// generated by bin/build.mjs from harness/, reference/ and generators/: do not edit' },
    plugins: [
      {
        // files found beside a module (the config schema, the Allure config, the package root) stay where the
        // sources are: import.meta.url is the source file's URL, not the bundle's
        name: 'source-import-meta-url',
        setup(b) {
          b.onResolve({ filter: /^cc-precompiled:config-validator$/ }, (args) => ({ path: args.path, namespace: 'cc-precompiled' }));
          b.onLoad({ filter: /.*/, namespace: 'cc-precompiled' }, () => ({ contents: validatorSource, loader: 'js', resolveDir: join(ROOT, 'harness') }));
          b.onLoad({ filter: /\.ts$/ }, (args) => {
            let src = readFileSync(args.path, 'utf8');
            if (args.path === join(ROOT, CONFIG_TS)) {
              validatorSource = precompiledConfigValidator(src);
              if (validatorSource !== undefined) src = `import __ccConfigValidator from 'cc-precompiled:config-validator';\n${src.replace(PRECOMPILED_MARK, 'const PRECOMPILED_VALIDATOR: ValidateFunction | undefined = __ccConfigValidator as ValidateFunction;')}`;
            }
            return { contents: src.includes('import.meta.url') ? src.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)) : src, loader: 'ts' };
          });
        },
      },
    ],
  });
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/') && !f.includes(':')).sort();
  const key = keyOf(inputs);
  if (key === undefined) throw new Error('a source file disappeared while the bundle was built');
  const file = bundleFile(key);
  // written whole into a folder of this process, then renamed into place (where a concurrent start may have put the
  // same bundle already)
  const tmp = join(CACHE, `tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  for (const out of result.outputFiles) {
    const file = join(tmp, relative(join(CACHE, 'out'), out.path));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, out.contents);
  }
  try {
    renameSync(tmp, join(CACHE, key));
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(file)) throw e;
  }
  writeAtomic(MANIFEST, `${JSON.stringify({ key, entry: ENTRY, entries: entryPoints, inputs }, null, 1)}\n`);
  // earlier bundles go (but those written in the last minute: a concurrent start may be loading one)
  for (const f of readdirSync(CACHE)) {
    const p = join(CACHE, f);
    if (/^[0-9a-f]{20}$/.test(f) && f !== key) {
      try {
        if (Date.now() - statSync(p).mtimeMs > 60_000) rmSync(p, { recursive: true, force: true });
      } catch {
        // another start removed it
      }
    }
  }
  debug(`built ${file} from ${inputs.length} files in ${(performance.now() - t0).toFixed(0)} ms`);
  return file;
}

/** The CLI's `main`: from the bundle of the current sources (built when missing or stale), else through tsx. */
export async function loadCli() {
  if (process.env.CC_NO_BUNDLE !== '1') {
    let file;
    try {
      file = current() ?? (await build());
    } catch (e) {
      debug(`no bundle (${e instanceof Error ? e.message : String(e)}): loading the TypeScript sources through tsx`);
    }
    if (file !== undefined) {
      // where a run starts the embedded reference's thread from, and where its suite workers load the suites from
      // (harness/run/runner.ts)
      const dir = dirname(dirname(file)); // <CACHE>/<key>/harness/cli.mjs
      const thread = join(dir, outputOf(THREAD_ENTRY));
      if (existsSync(thread)) process.env.CC_REFERENCE_THREAD = thread;
      if (existsSync(join(dir, outputOf(WORKER_ENTRIES[0])))) process.env.CC_SUITE_BUNDLE = dir;
      else delete process.env.CC_SUITE_BUNDLE;
      return (await import(pathToFileURL(file).href)).main;
    }
  }
  // a run through tsx serves the embedded reference in process, and its workers load the suites' sources: never from
  // a bundle named by a parent process
  delete process.env.CC_REFERENCE_THREAD;
  delete process.env.CC_SUITE_BUNDLE;
  const { register } = await import('tsx/esm/api');
  register();
  return (await import('../harness/cli.ts')).main;
}

// `node bin/build.mjs` (the package's "prepare" script): builds the bundle now; a failure only means the first run
// builds it (or loads the sources through tsx), so it never fails the install
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const file = current() ?? (await build());
    process.stdout.write(`canton-conformance: CLI bundle ${file.slice(ROOT.length)}\n`);
    // the first run's work done now (harness/cli.ts, prepareCaches): a failure only leaves it to that run
    try {
      const { prepareCaches } = await import(pathToFileURL(file).href);
      if (typeof prepareCaches === 'function' && (await prepareCaches())) process.stdout.write('canton-conformance: response validators precompiled\n');
    } catch (e) {
      process.stdout.write(`canton-conformance: the response validators were not precompiled (${e instanceof Error ? e.message : String(e)}); the first run compiles them\n`);
    }
  } catch (e) {
    process.stdout.write(`canton-conformance: the CLI bundle was not built (${e instanceof Error ? e.message : String(e)}); the CLI will load its TypeScript sources through tsx\n`);
  }
}
