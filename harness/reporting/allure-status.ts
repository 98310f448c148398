/**
 * The Allure results the HTML report is rendered from: one result per requirement, with the requirement's own verdict.
 *
 * allure-vitest writes one result per test, that is per check, and derives its status from the error the test threw.
 * Each check's result gets the status of its verdict (a fail "failed", an error "broken", skipped and unsupported
 * "skipped" with the reason, a pass "passed"). A check judges several requirements, each with its own verdict in
 * conformance.json, so a check's result would paint every requirement of a failed check red and the HTML would count
 * checks: the check results are kept aside (in `allure-results/checks/`, which the renderer does not read, each still
 * given the status of its check's verdict), and the renderer reads one result per requirement of the
 * report: its verdict (pass "passed", fail "failed", error "broken", skipped and unsupported "skipped", untested
 * "unknown") with the reason, grouped by interface and the requirement's first operation (one group each, so that no
 * requirement is counted twice), and a step per check behind it (the check's own verdict on this requirement, its
 * property seed and time) holding the check's attachments for this requirement. The HTML's counts are then the
 * requirement counts of conformance.json, junit.xml and summary.md. A failed requirement carries what reproduces it
 * (the run seed, the command that reruns it, curl lines; a binary request body attached and saved under bodies/); one
 * not judged, why. Times are the checks' own spans (reporting/spans.ts).
 *
 * Built again from the check results and the report each time the reports are written: the requirement results and
 * their attachment copies of an earlier writing (a shard's, copied by `merge`) are replaced, never added to.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { redactText } from '../transport/redact.js';
import type { CheckResultMeta, RequirementVerdict, Verdict } from '../types.js';
import { bodyAttachmentName } from './bodies.js';
import type { RunReport } from './model.js';
import { binaryBodyOf, bodyFileName, curlLine, groupFailures, rerunCommand } from './reproduce.js';
import { checkSpans, requirementSpan, runSpan } from './spans.js';

/** names the check of an Allure result written by allure-vitest (set in conformance()) */
export const CHECK_LABEL = 'conformanceCheck';
/** names the requirement of a result written here */
export const REQUIREMENT_LABEL = 'conformanceRequirement';
/** where the checks' own results are kept, out of the renderer's sight (it reads the results directory's files only) */
export const CHECKS_DIR = 'checks';
/** the file names of what is written here: the requirement results and attachment copies (an attachment shown twice) */
const OWN_PREFIX = 'requirement-';

type Status = 'passed' | 'failed' | 'broken' | 'skipped' | 'unknown';

const STATUS: Record<RequirementVerdict, Status> = {
  pass: 'passed',
  fail: 'failed',
  error: 'broken',
  skipped: 'skipped',
  unsupported: 'skipped',
  untested: 'unknown',
};

interface Attachment {
  name: string;
  source: string;
  type?: string;
}

interface StepResult {
  name?: string;
  status?: string;
  statusDetails?: { message?: string; trace?: string };
  stage?: string;
  steps?: StepResult[];
  attachments?: Attachment[];
  parameters?: Array<{ name: string; value: string }>;
  start?: number;
  stop?: number;
}

interface AllureResult extends StepResult {
  uuid?: string;
  labels?: Array<{ name: string; value: string }>;
}

const readJson = (file: string): AllureResult | undefined => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as AllureResult;
  } catch {
    return undefined;
  }
};

const writeAtomic = (file: string, content: string) => {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
};

const labelOf = (r: AllureResult, name: string) => r.labels?.find((l) => l.name === name)?.value;

/**
 * Gives every check result in `resultsDir` the status of its check's verdict, rather than the one allure-vitest derived
 * from the shape of the error; returns how many were changed.
 */
export function settleAllureStatuses(resultsDir: string, checks: readonly CheckResultMeta[]): number {
  return settleDir(resultsDir, checks).changed;
}

/** settleAllureStatuses, also giving the check results read, by check id */
function settleDir(resultsDir: string, checks: readonly CheckResultMeta[]): { changed: number; byCheck: Map<string, AllureResult> } {
  const byCheck = new Map<string, AllureResult>();
  if (!existsSync(resultsDir)) return { changed: 0, byCheck };
  const byId = new Map(checks.map((c) => [c.id, c]));
  let changed = 0;
  for (const name of readdirSync(resultsDir)) {
    if (!name.endsWith('-result.json') || name.startsWith(OWN_PREFIX)) continue;
    const file = join(resultsDir, name);
    const result = readJson(file);
    if (result === undefined) continue;
    const id = labelOf(result, CHECK_LABEL);
    if (id === undefined) continue;
    byCheck.set(id, result);
    const check = byId.get(id);
    // a check without a verdict (cut off by the test runner) did not finish: broken, whatever its error looked like
    const verdict: Verdict = check?.verdict ?? 'error';
    if (check === undefined && result.status !== 'failed') continue;
    const status = STATUS[verdict];
    const details = { ...(result.statusDetails ?? {}) };
    if (verdict === 'skipped' || verdict === 'unsupported') details.message = redactText(`${verdict}: ${check?.reason ?? 'no reason given'}`);
    else if (verdict === 'fail' && details.message === undefined) details.message = (check?.failures ?? []).map((f) => `[${f.requirement}] ${f.message}`).join('\n');
    else if (verdict === 'error' && details.message === undefined && check?.error !== undefined) details.message = check.error;
    if (result.status === status && JSON.stringify(details) === JSON.stringify(result.statusDetails ?? {})) continue;
    result.status = status;
    result.statusDetails = details;
    writeAtomic(file, JSON.stringify(result));
    changed++;
  }
  return { changed, byCheck };
}

/** A UUID-shaped id that is the same for the same text: a requirement's result keeps its file from one writing to the next. */
function uuidOf(text: string): string {
  const h = createHash('md5').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** The attachments of a result and of its steps, at any depth. */
function attachmentsOf(r: StepResult): Attachment[] {
  return [...(r.attachments ?? []), ...(r.steps ?? []).flatMap(attachmentsOf)];
}

/** Passing checks listed one by one under a requirement; more are summed up in one step. */
const LISTED_PASSES = 25;

/**
 * Moves the check results out of the renderer's sight (into `checks/`), gives them the status of their verdicts, and
 * writes one result per requirement of the report in their place. Returns how many requirement results were written.
 */
export function writeRequirementResults(resultsDir: string, report: RunReport): number {
  if (!existsSync(resultsDir)) return 0;
  const checksDir = join(resultsDir, CHECKS_DIR);
  mkdirSync(checksDir, { recursive: true });
  // what an earlier writing left (this run's, or the shards' copied by merge): the requirement results and attachment
  // copies are written again below; the check results (allure-vitest's) are moved aside
  for (const name of readdirSync(resultsDir)) {
    const file = join(resultsDir, name);
    if (name.startsWith(OWN_PREFIX)) rmSync(file, { force: true });
    // every other result is a test's, that is a check's (and a container groups tests): only requirements are rendered
    else if (name.endsWith('-result.json') || name.endsWith('-container.json')) renameSync(file, join(checksDir, name));
  }
  const checkResults = settleDir(checksDir, report.checks).byCheck;
  const checks = new Map(report.checks.map((c) => [c.id, c]));
  const known = new Map((report.baseline?.known ?? []).map((e) => [e.requirement, e.reason]));
  // an attachment file shows in one result only (the renderer links a file once): a second use gets a copy
  const used = new Set<string>();
  const attach = (a: Attachment, owner: string): Attachment | undefined => {
    if (!existsSync(join(resultsDir, a.source))) return undefined;
    if (!used.has(a.source)) {
      used.add(a.source);
      return a;
    }
    const copy = `${OWN_PREFIX}${md5(`${owner}\n${a.source}`)}-${a.source.replace(/^.*?-attachment/, 'attachment')}`;
    copyFileSync(join(resultsDir, a.source), join(resultsDir, copy));
    return { ...a, source: copy };
  };
  const run = runSpan(report);
  const spans = checkSpans(report);
  // the binary request bodies of the failures, saved beside the reports for their curl lines (RunReport.bodies)
  const bodiesDir = join(dirname(resultsDir), 'bodies');
  const saveBody = (a: Attachment) => {
    const bytes = readFileSync(join(resultsDir, a.source));
    const sha = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
    const name = `bodies/${bodyFileName(sha)}`;
    if (report.bodies?.[sha] === undefined) {
      mkdirSync(bodiesDir, { recursive: true });
      writeFileSync(join(dirname(resultsDir), name), bytes);
      report.bodies = { ...(report.bodies ?? {}), [sha]: name };
    }
  };

  let written = 0;
  for (const q of report.requirements) {
    const steps: StepResult[] = [];
    let passes = 0;
    for (const ref of q.checks) {
      const raw = checkResults.get(ref.id);
      const span = spans.get(ref.id);
      if (ref.verdict === 'pass' && ++passes > LISTED_PASSES) continue;
      const check = checks.get(ref.id);
      const own = q.failures.filter((f) => f.checkId === ref.id);
      const status: Status = ref.blocked === true ? 'skipped' : STATUS[ref.verdict];
      const message =
        own.length > 0 ? own.map((f) => f.message).join('\n')
        : ref.blocked === true ? `not decided: the check stopped at a failure of another requirement (${(check?.failures ?? []).map((f) => f.requirement).join(', ')})`
        : ref.verdict === 'error' ? check?.error ?? ref.reason
        : ref.verdict === 'pass' ? undefined
        : ref.reason !== undefined ? `${ref.verdict}: ${ref.reason}` : undefined;
      // the check's attachments for this requirement: the exchange of each of its failures; of an errored check, its last exchanges
      const found = raw !== undefined ? attachmentsOf(raw) : [];
      for (const a of found) if (own.length > 0 && a.name === bodyAttachmentName(q.id) && existsSync(join(resultsDir, a.source))) saveBody(a);
      const attachments = found
        .filter((a) => (own.length > 0 && (a.name === `${q.id} exchange` || a.name === bodyAttachmentName(q.id))) || (ref.verdict === 'error' && a.name === 'recent exchanges'))
        .flatMap((a) => attach(a, q.id) ?? []);
      steps.push({
        name: `${ref.id}: ${ref.title}`,
        status,
        ...(message !== undefined ? { statusDetails: { message: redactText(message) } } : {}),
        stage: 'finished',
        steps: [],
        attachments,
        // the check's own property seed, derived from the run seed: --seed takes the run seed (the result's parameter)
        parameters: (raw?.parameters ?? []).filter((p) => p.name === 'seed').map((p) => ({ name: `property seed (derived from --seed ${report.seed})`, value: p.value })),
        ...(span !== undefined ? { start: span.start, stop: span.end } : {}),
      });
    }
    // a requirement no check judged says why in its body, where a check's step would be
    if (q.checks.length === 0) steps.push({ name: `${q.verdict}: ${redactText(q.reason ?? 'no reason given')}`, status: STATUS[q.verdict], stage: 'finished', steps: [], attachments: [], parameters: [] });
    if (passes > LISTED_PASSES) steps.push({ name: `and ${passes - LISTED_PASSES} more checks that kept this requirement (conformance.json lists every one)`, status: 'passed', stage: 'finished', steps: [], attachments: [], parameters: [] });

    const why = known.get(q.id);
    const failureLines = q.failures.map((f) => `[${f.checkId}] ${f.message}`);
    const message =
      q.verdict === 'fail' ? `${why !== undefined ? `known failure (baseline: ${why})\n` : ''}${failureLines.join('\n')}`
      : q.verdict === 'pass' ? undefined
      : `${q.verdict}: ${q.reason ?? 'no reason given'}`;
    const uuid = uuidOf(`requirement ${q.id}`);
    const id = md5(`requirement ${q.id}`);
    // one group per requirement: a requirement of several operations under each of them was counted once per operation
    // in the interface's counts; it sits under its first operation, and the description names them all
    const labels = [
      { name: 'epic', value: q.api },
      { name: 'feature', value: q.operations[0] ?? 'no single operation' },
      { name: 'story', value: q.id },
      { name: 'requirement', value: q.id },
      { name: REQUIREMENT_LABEL, value: q.id },
      { name: 'tag', value: q.level },
      ...(q.verdict === 'untested' ? [{ name: 'tag', value: 'untested' }] : []),
      { name: 'severity', value: q.level === 'MUST' ? 'critical' : q.level === 'SHOULD' ? 'normal' : 'minor' },
    ];
    const span = requirementSpan(q.checks.map((c) => c.id), spans);
    const checkList = q.checks.length === 0 ? '' : `\n\nJudged by ${q.checks.length} check${q.checks.length === 1 ? '' : 's'}: ${q.checks.map((c) => `\`${c.id}\` (${c.blocked === true ? 'not decided' : c.verdict})`).slice(0, 50).join(', ')}${q.checks.length > 50 ? ', ...' : ''}.`;
    const result = {
      uuid,
      historyId: id,
      testCaseId: id,
      name: `${q.id} (${q.level})`,
      fullName: `canton-conformance:requirement:${q.id}`,
      status: STATUS[q.verdict],
      ...(message !== undefined ? { statusDetails: { message: redactText(message), ...(q.verdict === 'fail' ? { trace: redactText(reproduction(report, q)) } : {}) } } : {}),
      stage: 'finished',
      description: `**${q.id}** (${q.level}): ${q.statement}\n\nSource: ${q.source}.${verdictText(report, q, why)}${checkList}`,
      steps,
      attachments: [],
      parameters: generated(report) ? [{ name: 'run seed (--seed)', value: String(report.seed) }] : [],
      labels,
      links: [],
      start: span?.start ?? run.start,
      stop: span?.end ?? run.start,
    };
    writeAtomic(join(resultsDir, `${OWN_PREFIX}${uuid}-result.json`), JSON.stringify(result));
    written++;
  }
  return written;
}

const fenced = (s: string, lang = '') => `\n\n\`\`\`${lang}\n${s.replace(/```/g, '`\u200b``')}\n\`\`\`\n`;

/**
 * What the description says of the verdict: a failure's run seed, the command that reruns exactly this requirement and a
 * curl line for each distinct failing exchange (a binary body sent from its file, saved in the run's directory and
 * attached); a requirement not judged, why.
 */
function verdictText(report: RunReport, q: RunReport['requirements'][number], known: string | undefined): string {
  const ops = q.operations.length > 1 ? `\n\nOperations: ${q.operations.map((o) => `\`${o}\``).join(', ')}.` : '';
  if (q.verdict === 'pass') return ops;
  if (q.verdict !== 'fail') {
    const what = q.verdict === 'untested' ? 'Untested' : q.verdict === 'error' ? 'Not decided (error)' : q.verdict === 'unsupported' ? 'Unsupported' : 'Skipped';
    return `${ops}\n\n**${what}:** ${q.reason ?? 'no reason given'}`;
  }
  const lines: string[] = [ops, '\n\n### Reproduce', '\n'];
  if (generated(report)) lines.push(`\n- run seed: **${report.seed}** (\`--seed ${report.seed}\`)`);
  if (known !== undefined) lines.push(`\n- known failure of the baseline: ${known}`);
  if (generated(report)) lines.push(`\n- rerun exactly this requirement:${fenced(rerunCommand(report, q), 'sh')}`);
  const groups = groupFailures(q.failures).filter((g) => g.failure.exchange !== undefined).slice(0, 3);
  for (const { failure: f } of groups) {
    const x = f.exchange!;
    const binary = binaryBodyOf(x);
    const file = binary !== undefined ? report.bodies?.[binary.sha256] : undefined;
    const note = binary === undefined ? '' : file !== undefined ? ` (its ${binary.bytes}-byte body is attached as "${bodyAttachmentName(q.id)}" and saved as \`${file}\` in the run's directory, where the command runs)` : ` (its ${binary.bytes}-byte body was not kept)`;
    lines.push(`\n- curl for \`${f.checkId}\`${note}:${fenced(curlLine(x, file), 'sh')}`);
  }
  if (groups.length === 0) lines.push('\n- no single request shows this failure: the checks below say what they compared');
  const tokenEnv = `${q.api.toUpperCase()}_TOKEN`;
  if (groups.some((g) => g.failure.exchange?.request.headers.authorization !== undefined)) lines.push(`\nThe curl lines read the bearer token from \`$${tokenEnv}\`.`);
  return lines.join('');
}

/** The error's trace of a failed requirement: the run seed, the command that reruns it and its first curl line. */
function reproduction(report: RunReport, q: RunReport['requirements'][number]): string {
  const x = groupFailures(q.failures).find((g) => g.failure.exchange !== undefined)?.failure.exchange;
  const binary = x !== undefined ? binaryBodyOf(x) : undefined;
  const file = binary !== undefined ? report.bodies?.[binary.sha256] : undefined;
  return [
    ...(generated(report) ? [`run seed: ${report.seed}`, `rerun exactly this requirement: ${rerunCommand(report, q)}`] : []),
    ...(x !== undefined ? [`curl${file !== undefined ? " (from the run's directory)" : ''}: ${curlLine(x, file)}`] : []),
  ].join('\n');
}

/**
 * Whether the report is of a run that sent its own requests from a seed: a passive judgement (observe, judge: its
 * report carries `observed`) generated nothing, and a seed or a rerun command means nothing there.
 */
const generated = (report: RunReport) => !('observed' in report);
