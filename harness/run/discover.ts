/** Finds every declared check without running it: vitest collects the suites and reads the wrapper's metadata. */
import { DEFAULT_RUN, type Config } from '../config.js';
import { PACKAGE_ROOT } from '../paths.js';
import { createSuiteVitest, suiteGlobs } from './suite-vitest.js';
import type { Api, CheckDeclaration } from '../types.js';
import { relative } from 'node:path';
import { checkFiles } from './vendor-checks.js';

export interface DiscoveredCheck extends CheckDeclaration {
  file: string;
}

/** The checks of the suites of `apis`, and of a checks folder (run.checksDir: harness/run/vendor-checks.ts) when given. */
export async function collectChecks(apis: readonly Api[], checksDir?: string): Promise<DiscoveredCheck[]> {
  const config: Config = { run: { ...DEFAULT_RUN, only: [...apis], ...(checksDir !== undefined ? { checksDir } : {}) }, targets: {}, reference: { faults: [] }, useReference: false, sources: [] };
  // a checks folder's files are named one by one, relative to the package (vitest's include is read from its root)
  const own = checksDir === undefined ? [] : checkFiles(checksDir).map((f) => relative(PACKAGE_ROOT, f).split('\\').join('/'));
  const vitest = await createSuiteVitest({ include: [...suiteGlobs(apis), ...own], reporters: [], config, allure: false });
  try {
    const { testModules } = await vitest.collect();
    const out: DiscoveredCheck[] = [];
    for (const m of testModules) {
      const errors = m.errors();
      if (errors.length > 0) throw new Error(`cannot load ${m.moduleId.replace(`${PACKAGE_ROOT}/`, '')}: ${errors[0]?.message}`);
      for (const t of m.children.allTests()) {
        const c = t.meta().conformance;
        if (c === undefined) continue;
        out.push({ id: c.id, title: c.title, api: c.api, operations: c.operations, requirements: c.requirements, ...(c.features ? { features: c.features } : {}), file: m.moduleId.replace(`${PACKAGE_ROOT}/`, '') });
      }
    }
    return out.sort((a, b) => a.id.localeCompare(b.id));
  } finally {
    await vitest.close();
  }
}
