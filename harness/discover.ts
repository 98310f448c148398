/** Finds every declared check without running it: vitest collects the suites and reads the wrapper's metadata. */
import { DEFAULT_RUN, type Config } from './config.js';
import { PACKAGE_ROOT } from './paths.js';
import { createSuiteVitest, suiteGlobs } from './suite-vitest.js';
import type { Api, CheckDeclaration } from './types.js';

export interface DiscoveredCheck extends CheckDeclaration {
  file: string;
}

export async function collectChecks(apis: readonly Api[]): Promise<DiscoveredCheck[]> {
  const config: Config = { run: { ...DEFAULT_RUN, only: [...apis] }, targets: {}, reference: { faults: [] }, useReference: false, sources: [] };
  const vitest = await createSuiteVitest({ include: suiteGlobs(apis), reporters: [], config, allure: false });
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
