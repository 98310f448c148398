#!/usr/bin/env node
// The CLI is TypeScript: it runs from a bundle built from the sources (bin/build.mjs: at install, and again whenever a
// source changed), or through tsx where no bundle can be built.
import { setFlagsFromString } from 'node:v8';
import { loadCli } from './build.mjs';

// V8 optimises a function once it has run about 8 times longer than by default: a run is short and loads its modules in
// four isolates (this thread, the embedded reference's, two suite workers), each compiling its own optimised code on
// V8's background threads (about 2.5 of the default run's 11 CPU-seconds). Set before the CLI loads, for every thread.
setFlagsFromString('--interrupt-budget=540672');

const main = await loadCli();
if (/(^|,)timing(,|$)/.test(process.env.CC_DEBUG ?? '')) {
  const mark = (label) => process.stderr.write(`[timing] ${performance.now().toFixed(0).padStart(6)} ms ${label}\n`);
  mark('CLI loaded');
  process.once('exit', () => mark('exit'));
}
process.exitCode = await main(process.argv.slice(2));
