/**
 * Suite files run in groups: a vitest worker runs its test files one after another, and a file holds its worker until
 * its slowest check ends, so a file whose one long check waits on a chain of slow requests (hundreds of party
 * allocations, a model of topology-speed updates) would leave the worker's other slots idle for seconds, and the run's
 * length would be set by how files fell on workers rather than by its chains. A conformance run therefore gives each worker
 * one group file (harness/groups/group-N.ts), which loads its share of the suite files, each in a describe block of its
 * own: every check of the group runs beside the others, whichever file it comes from (as many at once as the worker's
 * slots allow: conformance.ts, CheckSlots), and a file's checks that share target state still run one after another, in
 * their order, within its block. The groups are balanced by each file's time in the last complete run
 * (harness/run/file-order.ts), longest first. Each check still names its own suite file (conformance() reads it while the
 * group loads the file).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, inject, test } from 'vitest';
import { PACKAGE_ROOT } from './paths.js';
import type { FileWeight } from './run/file-order.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the suite files of each group, relative to the package (harness/run-groups.ts) */
    conformanceGroups?: string[][];
    /** the folder of the bundle the workers load the suite files from, natively (bin/build.mjs); unset: the sources */
    conformanceBundle?: string;
  }
}

/** The group files there are (harness/groups/): a run has at most this many groups. */
export const MAX_GROUPS = 8;

/** The path of group file `i`, relative to the package. */
export const groupFile = (i: number) => `harness/groups/group-${i}.ts`;

/** A glob of every group file (a run's vitest include). */
export const GROUP_GLOB = 'harness/groups/group-*.ts';

/**
 * `files` split into at most `k` groups of about equal time, each group's files longest first (a file with no recorded
 * time counts as the shortest recorded one). The files whose checks lock shared target state in the last run go to the
 * first group, together: their locked checks run one after another whatever the groups (the run's critical path), and
 * their other checks, which the locked ones of their files wait for, meet fewer checks of other files there. The other
 * files go longest first each to the group with the least time so far.
 */
export function planGroups(files: readonly string[], k: number, weights?: Record<string, FileWeight>): string[][] {
  const n = Math.max(1, Math.min(k, MAX_GROUPS, files.length));
  const known = files.map((f) => weights?.[f]?.ms).filter((w): w is number => w !== undefined);
  const fallback = known.length > 0 ? Math.min(...known) : 1;
  const weightOf = (f: string) => weights?.[f]?.ms ?? fallback;
  const order = files.map((f, i) => ({ f, i, w: weightOf(f) })).sort((a, b) => b.w - a.w || a.i - b.i);
  const groups = Array.from({ length: n }, () => ({ files: [] as Array<{ f: string; i: number; w: number }>, total: 0 }));
  const locking = (f: string) => n > 1 && (weights?.[f]?.shares?.length ?? 0) > 0;
  for (const x of order.filter((x) => locking(x.f))) {
    groups[0]!.files.push(x);
    groups[0]!.total += x.w;
  }
  for (const x of order.filter((x) => !locking(x.f))) {
    const g = groups.reduce((best, g) => (g.total < best.total ? g : best));
    g.files.push(x);
    g.total += x.w;
  }
  return groups.map((g) => g.files.sort((a, b) => b.w - a.w || a.i - b.i).map((x) => x.f));
}

/** The suite file being loaded by a group, while it loads (conformance() names its checks' file from it). */
let loading: string | undefined;
export const loadingSuiteFile = (): string | undefined => loading;

/**
 * Loads group `index`'s suite files (called by harness/groups/group-N.ts), each inside a describe block named for it.
 * A file that cannot be loaded becomes a failing test of that name (the run reports it as a run error), and the
 * group's other files still run.
 */
export async function loadGroup(index: number): Promise<void> {
  const plan = inject('conformanceGroups') ?? [];
  const bundle = inject('conformanceBundle');
  // from the bundle, each suite file's bundled module (which imports this bundle's harness, this module's copy too);
  // else the source, through vitest's module runner
  const moduleOf = (rel: string) => (bundle !== undefined ? pathToFileURL(join(bundle, rel.replace(/\.ts$/, '.mjs'))).href : join(PACKAGE_ROOT, rel));
  for (const rel of plan[index] ?? []) {
    describe(rel, async () => {
      // vitest collects a file's blocks one after another, each block's nested blocks right after its own callback:
      // the file's checks (declared in its nested blocks too) are all declared before the next file's block starts
      loading = rel;
      try {
        await import(moduleOf(rel));
      } catch (e) {
        test(`cannot load ${rel}`, () => {
          throw e;
        });
      }
    });
  }
}
