/**
 * The setup file of a suite worker when the run records its exchanges (run --record): this thread's exchanges go to a
 * part file of its own in the folder the run provides (harness/observe/har-record.ts).
 */
import { threadId } from 'node:worker_threads';
import { inject } from 'vitest';
import { registerSecretNames } from '../transport/redact.js';
import { installPartWriter } from './har-record.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** run --record: the folder of the HAR's part files */
    conformanceRecordDir: string;
  }
}

const dir = inject('conformanceRecordDir');
if (typeof dir === 'string' && dir !== '') {
  registerSecretNames((inject('conformanceConfig').run as { redactNames?: string[] }).redactNames);
  installPartWriter(dir, `worker-${process.pid}-${threadId}`, inject('conformanceConfig').run.maxResponseBytes);
}
