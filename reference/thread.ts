/**
 * The embedded reference server in a worker thread of the CLI's process (harness/run/runner.ts, startEmbeddedReference):
 * it starts on the second core while the main thread imports vitest and starts the suite's workers, and serves the run
 * from there, off the thread that carries vitest's messages and reporters. Started with the reference's options as
 * workerData; answers { ready } (what the harness reads of the server) or { error }; on 'close' it closes the server
 * and answers 'closed'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startReference, type ReferenceOptions, type ReferenceServer } from './index.js';

export interface ReferenceThreadReady {
  targetConfig: ReturnType<ReferenceServer['targetConfig']>;
  options: Pick<ReferenceServer['options'], 'faults' | 'ledgerVersion' | 'scanVersion' | 'registryVersion'>;
  variant?: ReferenceServer['variant'];
}

const port = parentPort;
if (port !== null) {
  let server: ReferenceServer | undefined;
  try {
    server = await startReference(workerData as ReferenceOptions);
    const o = server.options;
    const ready: ReferenceThreadReady = {
      targetConfig: server.targetConfig(),
      options: { faults: o.faults, ledgerVersion: o.ledgerVersion, scanVersion: o.scanVersion, registryVersion: o.registryVersion },
      ...(server.variant !== undefined ? { variant: server.variant } : {}),
    };
    port.postMessage({ ready });
  } catch (e) {
    port.postMessage({ error: e instanceof Error ? e.message : String(e) });
  }
  port.on('message', (m: unknown) => {
    if (m !== 'close') return;
    void (async () => {
      await server?.close().catch(() => undefined);
      port.postMessage('closed');
      port.close();
    })();
  });
}
