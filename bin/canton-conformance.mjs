#!/usr/bin/env node
// The CLI is TypeScript: it runs from a bundle built from the sources (bin/build.mjs: at install, and again whenever a
// source changed), or through tsx where no bundle can be built.
import { loadCli } from './build.mjs';

const main = await loadCli();
if (/(^|,)timing(,|$)/.test(process.env.CC_DEBUG ?? '')) process.stderr.write(`[timing] ${performance.now().toFixed(0).padStart(6)} ms CLI loaded\n`);
process.exitCode = await main(process.argv.slice(2));
