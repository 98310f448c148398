#!/usr/bin/env node
// The CLI is TypeScript; tsx loads it without a build step.
import { setFlagsFromString } from 'node:v8';
import { register } from 'tsx/esm/api';

// Memory (issue 13): V8 lets each heap grow far past what it keeps alive (a snapshot of a suite worker finds 25-35 MiB
// live under a 70-200 MiB heap: parsed response bodies waiting for a collection). Smaller young generations and a heap
// that grows 35% past its live size per full collection keep every thread created from here on (tsx's loader, the suite
// workers) and this one's old generation near their live size: peak RSS of the default run 527 -> 371 MiB at the same
// CPU time (paired runs). Set before any thread starts.
setFlagsFromString('--max-semi-space-size=4');
setFlagsFromString('--heap-growing-percent=35');

register();
const { main } = await import('../harness/cli.ts');
process.exitCode = await main(process.argv.slice(2));
