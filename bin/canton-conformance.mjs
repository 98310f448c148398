#!/usr/bin/env node
// The CLI is TypeScript; tsx loads it without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../harness/cli.ts');
process.exitCode = await main(process.argv.slice(2));
