/**
 * Which checks a run declares and which requirements its reports cover: --requirement, --check, --operation and
 * --exclude-requirement (run.requirements, run.checks, run.operations, run.excludeRequirements). The filters combine:
 * a check runs when it passes every filter given (cites a selected requirement, is a selected check, calls a selected
 * operation, cites a requirement not left out).
 */
import type { Catalogue } from '../judging/catalogue.js';
import type { RunConfig } from '../config.js';
import type { Api, CheckDeclaration } from '../types.js';

type Selection = Pick<RunConfig, 'requirements' | 'checks' | 'operations' | 'excludeRequirements' | 'checksDir'>;

const nonEmpty = (list: readonly string[] | undefined): list is readonly string[] => list !== undefined && list.length > 0;

/** True when the selection (the run settings above) keeps this check. */
export function checkSelected(decl: Pick<CheckDeclaration, 'id' | 'operations' | 'requirements'>, run: Selection): boolean {
  if (nonEmpty(run.requirements) && !decl.requirements.some((r) => run.requirements.includes(r))) return false;
  if (nonEmpty(run.checks) && !run.checks.includes(decl.id)) return false;
  if (nonEmpty(run.operations) && !decl.operations.some((o) => run.operations!.includes(o))) return false;
  if (nonEmpty(run.excludeRequirements) && decl.requirements.every((r) => run.excludeRequirements!.includes(r))) return false;
  return true;
}

/** True when the selection narrows the run by more than requirement ids (the reports then list their requirements). */
export const narrowed = (run: Selection): boolean => nonEmpty(run.checks) || nonEmpty(run.operations) || nonEmpty(run.excludeRequirements);

/**
 * The requirement ids the reports cover: with --requirement alone, those (an empty list: every requirement of the
 * selected interfaces). With --check or --operation, the requirements the checks that ran cite (with --operation alone,
 * also every catalogue requirement about one of the operations, so that one no check covers shows as untested), within
 * --requirement when given; always without those --exclude-requirement leaves out.
 */
export function reportedRequirements(run: Selection, catalogue: Catalogue, apis: readonly Api[], ran: ReadonlyArray<Pick<CheckDeclaration, 'requirements'>>): string[] {
  if (!narrowed(run)) return [...run.requirements];
  const cited = new Set(ran.flatMap((c) => c.requirements));
  const byOperation = nonEmpty(run.operations) && !nonEmpty(run.checks);
  return catalogue.requirements
    .filter((r) => apis.includes(r.api))
    .filter((r) => !nonEmpty(run.requirements) || run.requirements.includes(r.id))
    .filter((r) => !(run.excludeRequirements ?? []).includes(r.id))
    .filter((r) => (!nonEmpty(run.checks) && !nonEmpty(run.operations)) || cited.has(r.id) || (byOperation && r.operations.some((o) => run.operations!.includes(o))))
    .map((r) => r.id);
}

/** The selection in words, for the start line: "" when nothing but the interfaces is selected. */
export function describeSelection(run: Selection): string {
  const parts: string[] = [];
  const list = (xs: readonly string[]) => (xs.length <= 3 ? xs.join(', ') : `${xs.slice(0, 3).join(', ')} and ${xs.length - 3} more`);
  if (nonEmpty(run.checks)) parts.push(`${run.checks.length === 1 ? 'check' : `${run.checks.length} checks`} ${list(run.checks)}`);
  if (nonEmpty(run.requirements)) parts.push(`the checks of ${run.requirements.length === 1 ? 'requirement' : `${run.requirements.length} requirements`} ${list(run.requirements)}`);
  if (nonEmpty(run.operations)) parts.push(`the checks of ${run.operations.length === 1 ? 'operation' : `${run.operations.length} operations`} ${list(run.operations)}`);
  if (nonEmpty(run.excludeRequirements)) parts.push(`without ${run.excludeRequirements.length === 1 ? 'requirement' : `${run.excludeRequirements.length} requirements`} ${list(run.excludeRequirements)}`);
  return parts.join('; ');
}

/**
 * The interfaces whose checks a selection can reach, within `apis`: those of the selected requirements, of the selected
 * checks (a built-in check's id starts with its interface; a checks folder's could be any), and of the selected
 * operations; `apis` itself when nothing narrows it.
 */
export function selectionApis(run: Selection, apis: readonly Api[], catalogue: Catalogue, operations: () => Iterable<{ api: Api; operationId: string }>): Api[] {
  let out = [...apis];
  const keep = (reachable: ReadonlySet<Api> | undefined) => {
    if (reachable !== undefined) out = out.filter((a) => reachable.has(a));
  };
  if (nonEmpty(run.requirements)) keep(new Set(run.requirements.map((id) => catalogue.byId.get(id)?.api).filter((a): a is Api => a !== undefined)));
  if (nonEmpty(run.checks)) {
    const prefixes = run.checks.map((id) => apis.find((a) => id.startsWith(`${a}.`)));
    if (prefixes.every((a) => a !== undefined)) keep(new Set(prefixes as Api[]));
  }
  if (nonEmpty(run.operations)) {
    const ops = [...operations()];
    keep(new Set(ops.filter((o) => run.operations!.includes(o.operationId)).map((o) => o.api)));
  }
  return out;
}

/** The selection as the flags that make it (`--requirement a, b --check c`): "" when none is given. */
export function selectionFlags(run: Selection): string {
  const flag = (name: string, xs: readonly string[] | undefined) => (nonEmpty(xs) ? [`--${name} ${xs.join(', ')}`] : []);
  return [...flag('requirement', run.requirements), ...flag('check', run.checks), ...flag('operation', run.operations), ...flag('exclude-requirement', run.excludeRequirements)].join(' ');
}

/** Edit distance (insertions, deletions, substitutions, adjacent swaps) between two strings. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

const words = (s: string) => new Set(s.toLowerCase().split(/[.\-_/:\s]+|(?<=[a-z])(?=[A-Z])/).filter(Boolean));

/**
 * The known names closest to `wanted`, best first, at most `max`: those a few edits away, and those sharing most of its
 * words (ids are dotted and dashed words: `ledger.create-user.id-too-long` is near `ledger.users.id-too-long-rejected`).
 */
export function closest(wanted: string, known: Iterable<string>, max = 3): string[] {
  const w = words(wanted);
  const scored: Array<{ k: string; score: number }> = [];
  for (const k of known) {
    const distance = editDistance(wanted.toLowerCase(), k.toLowerCase());
    const kw = words(k);
    const shared = [...w].filter((x) => kw.has(x)).length;
    const overlap = shared / Math.max(1, new Set([...w, ...kw]).size);
    const near = distance <= Math.max(2, Math.floor(wanted.length / 5));
    if (!near && overlap < 0.5) continue;
    // a near spelling first, then by the share of words in common, then by edits
    scored.push({ k, score: (near ? 1000 : 0) + overlap * 100 - distance / 100 });
  }
  return scored.sort((a, b) => b.score - a.score || a.k.localeCompare(b.k)).slice(0, max).map((s) => s.k);
}

/** ` (did you mean a, b?)`, or "" when nothing is close. */
export function didYouMean(wanted: string, known: Iterable<string>, max = 3): string {
  const near = closest(wanted, known, max);
  return near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : '';
}

export interface KnownCheck {
  id: string;
  api: Api;
  operations: string[];
  requirements: string[];
}

/**
 * Every problem of a selection, each in one line: unknown requirement, check and operation ids with the closest known
 * ones; a check id given as a requirement (and the reverse) named as such, with the flag that selects it; a check or
 * requirement of an interface the run leaves out. `checks` is asked for only when a check id must be known.
 */
export async function selectionProblems(
  run: Selection,
  apis: readonly Api[] | undefined,
  catalogue: Catalogue,
  operations: () => Iterable<{ api: Api; operationId: string }>,
  checks: () => Promise<KnownCheck[]>,
): Promise<string[]> {
  const problems: string[] = [];
  const requirementIds = [...catalogue.byId.keys()];
  let allChecks: KnownCheck[] | undefined;
  const checkList = async () => (allChecks ??= await checks());
  const asRequirement = async (flag: string, ids: readonly string[]) => {
    for (const id of ids) {
      const r = catalogue.byId.get(id);
      if (r !== undefined) {
        if (apis !== undefined && !apis.includes(r.api)) problems.push(`${flag} ${id} is a requirement of ${r.api}, but the run selects only ${apis.join(', ')} (--only, or the configured targets): select ${r.api} too, or drop it`);
        continue;
      }
      const check = (await checkList()).find((c) => c.id === id);
      if (check !== undefined) {
        problems.push(`${flag} ${id} is a check id, not a requirement id: select the check with --check ${id} (run.checks), or its requirement${check.requirements.length === 1 ? '' : 's'} with ${flag} ${check.requirements.join(',')}`);
      } else {
        problems.push(`${flag}: unknown requirement id ${id}${didYouMean(id, requirementIds)}; "canton-conformance list" shows them all`);
      }
    }
  };
  await asRequirement('--requirement', run.requirements ?? []);
  await asRequirement('--exclude-requirement', run.excludeRequirements ?? []);
  if (nonEmpty(run.checks)) {
    const list = await checkList();
    const byId = new Map(list.map((c) => [c.id, c]));
    for (const id of run.checks) {
      const c = byId.get(id);
      if (c === undefined) {
        const r = catalogue.byId.get(id);
        const checksOf = r === undefined ? [] : list.filter((x) => x.requirements.includes(id)).map((x) => x.id);
        problems.push(
          r !== undefined
            ? `--check ${id} is a requirement id, not a check id: select it with --requirement ${id} (run.requirements)${checksOf.length > 0 ? `; its checks: ${checksOf.slice(0, 5).join(', ')}${checksOf.length > 5 ? ` and ${checksOf.length - 5} more` : ''}` : ' (no check covers it)'}`
            : `--check: unknown check id ${id}${didYouMean(id, byId.keys())}; "canton-conformance list" shows every check under its requirements`,
        );
      } else if (apis !== undefined && !apis.includes(c.api)) {
        problems.push(`--check ${id} is a check of ${c.api}, but the run selects only ${apis.join(', ')} (--only, or the configured targets): select ${c.api} too, or drop it`);
      }
    }
  }
  if (nonEmpty(run.operations)) {
    const ops = [...operations()];
    for (const id of run.operations) {
      const found = ops.filter((o) => o.operationId === id);
      if (found.length === 0) problems.push(`--operation: unknown operationId ${id}${didYouMean(id, new Set(ops.map((o) => o.operationId)))} (the operationIds of specs/<api>.yaml)`);
      else if (apis !== undefined && !found.some((o) => apis.includes(o.api))) problems.push(`--operation ${id} is an operation of ${[...new Set(found.map((o) => o.api))].join(', ')}, but the run selects only ${apis.join(', ')}: select it too, or drop the operation`);
    }
  }
  return problems;
}
