#!/usr/bin/env node
// The CLI is TypeScript: it runs from a bundle built from the sources (bin/build.mjs: at install, and again whenever a
// source changed), or through tsx where no bundle can be built.
import { setFlagsFromString } from 'node:v8';
import { loadCli } from './build.mjs';
import { V8_FLAGS } from './v8-flags.mjs';

// set before the CLI loads, for every thread of the process
setFlagsFromString(V8_FLAGS);

// a reader that goes away (`canton-conformance list | head`) stops what it reads, not the command: no stack trace, the
// exit code and the reports stay the command's own
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
  });
}

const main = await loadCli();
if (/(^|,)timing(,|$)/.test(process.env.CC_DEBUG ?? '')) {
  const mark = (label) => process.stderr.write(`[timing] ${performance.now().toFixed(0).padStart(6)} ms ${label}\n`);
  mark('CLI loaded');
  process.once('exit', () => mark('exit'));
}
process.exitCode = await main(process.argv.slice(2));
