/**
 * What each group file (group-N.ts) calls: harness/run-groups.ts's loadGroup, from the suites' bundle when the run
 * provides one (the workers then load the suites and the harness natively, one copy of each), else from the source.
 */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { inject } from 'vitest';

export async function loadGroup(index: number): Promise<void> {
  const bundle = inject('conformanceBundle');
  const groups: typeof import('../run-groups.js') = bundle !== undefined ? await import(pathToFileURL(join(bundle, 'harness', 'run-groups.mjs')).href) : await import('../run-groups.js');
  await groups.loadGroup(index);
}
