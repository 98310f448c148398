/**
 * The status of each Allure result, from the check's verdict rather than from the shape of the error the test threw.
 * allure-vitest derives a status from the error (an assertion-like error is "failed", anything else "broken"), which
 * cannot tell a rule the target broke from a harness, transport or overload error, and it records no reason for a
 * skipped test. Issue 12 item 10: a fail is "failed", an error "broken", skipped and unsupported "skipped" with the
 * reason, a pass "passed". Each result names its check in the `conformanceCheck` label (set in conformance()).
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactText } from '../redact.js';
import type { CheckResultMeta, Verdict } from '../types.js';

export const CHECK_LABEL = 'conformanceCheck';

const STATUS: Record<Verdict, 'passed' | 'failed' | 'broken' | 'skipped'> = {
  pass: 'passed',
  fail: 'failed',
  error: 'broken',
  skipped: 'skipped',
  unsupported: 'skipped',
};

interface AllureResult {
  status?: string;
  statusDetails?: { message?: string; trace?: string };
  labels?: Array<{ name: string; value: string }>;
}

/** Rewrites the status of every result in `resultsDir` whose check has a verdict; returns how many were changed. */
export function settleAllureStatuses(resultsDir: string, checks: readonly CheckResultMeta[]): number {
  if (!existsSync(resultsDir)) return 0;
  const byId = new Map(checks.map((c) => [c.id, c]));
  let changed = 0;
  for (const name of readdirSync(resultsDir)) {
    if (!name.endsWith('-result.json')) continue;
    const file = join(resultsDir, name);
    let result: AllureResult;
    try {
      result = JSON.parse(readFileSync(file, 'utf8')) as AllureResult;
    } catch {
      continue;
    }
    const id = result.labels?.find((l) => l.name === CHECK_LABEL)?.value;
    if (id === undefined) continue;
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
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, JSON.stringify(result));
    renameSync(tmp, file);
    changed++;
  }
  return changed;
}
