/**
 * judge on a capture whose bodies were left out, as browsers and proxies save them (a HAR without content, Playwright's
 * content "omit" and "attach", a sanitized capture's comment): the recording of a clean run, its bodies taken out, is
 * still exit 0 with no observed failure; the body rules are not judged (not observed) and the report says for how many
 * exchanges; the rules a status decides are judged as before. No seed line in a passive report.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, targetsFromBlock, type Config } from '../../harness/config.js';
import { judgeHar } from '../../harness/observe/commands.js';
import { BODY_LEFT_OUT } from '../../harness/observe/har.js';
import type { ObservedReport } from '../../harness/observe/report.js';
import { runConformance } from '../../harness/run/runner.js';
import type { Api } from '../../harness/types.js';
import { startReference, type ReferenceServer } from '../../reference/index.js';

const APIS_RUN: Api[] = ['ledger', 'scan'];
const dir = mkdtempSync(join(tmpdir(), 'cc-judge-bodyless-'));
let reference: ReferenceServer;
let full: ObservedReport;
let bodyless: ObservedReport;
let bodylessDir: string;
let leftOut = 0;

interface Entry {
  response: { status: number; content: { size: number; text?: string; _file?: string; comment?: string } };
}

const config = (name: string): Config => ({ run: { ...DEFAULT_RUN, only: APIS_RUN, html: false, compare: false, reportsDir: join(dir, name), timeoutMs: 20_000 }, targets: {}, reference: { faults: [] }, useReference: false, sources: ['test'] });

beforeAll(async () => {
  reference = await startReference({});
  const targets = targetsFromBlock(reference.targetConfig(), 'the reference');
  const har = join(dir, 'clean.har');
  const run = await runConformance({ ...config('run'), targets }, { write: () => undefined, record: har });
  expect(run.report.exitCode).toBe(0);
  ({ report: full } = await judgeHar(har, { ...config('full'), targets }, 20));
  const doc = JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: Entry[] } };
  // three ways a capture leaves a body out, in turn: no text (omit), a file of its own (attach), a sanitizer's comment
  doc.log.entries.forEach((e, i) => {
    const c = e.response.content;
    if (e.response.status > 0 && c.size !== 0) leftOut++;
    if (i % 3 === 0) delete c.text;
    else if (i % 3 === 1) {
      delete c.text;
      c._file = `${i}.json`;
    } else {
      if (c.size !== 0) c.text = '';
      c.comment = 'body removed by the capture tool';
    }
  });
  const stripped = join(dir, 'bodyless.har');
  writeFileSync(stripped, JSON.stringify(doc));
  ({ report: bodyless, dir: bodylessDir } = await judgeHar(stripped, { ...config('bodyless'), targets }, 20));
}, 180_000);

afterAll(async () => {
  await reference?.close();
  rmSync(dir, { recursive: true, force: true });
});

const verdict = (r: ObservedReport, id: string) => r.observed.requirements.find((q) => q.id === id)?.verdict;

describe('judge on a capture without bodies', () => {
  it('is exit 0 with no observed failure on the recording of a clean run', () => {
    expect(full.exitCode).toBe(0);
    expect(bodyless.exitCode).toBe(0);
    expect(bodyless.observed.requirements.filter((q) => q.verdict === 'observed fail')).toEqual([]);
    expect(bodyless.outcome).toMatch(/^OBSERVED PASS/);
  });

  it('does not judge the body rules, and says for how many exchanges', () => {
    const bodyRules = full.observed.requirements.filter((q) => q.verdict === 'observed pass' && /\.response-schema$|\.error-body$/.test(q.id)).map((q) => q.id);
    expect(bodyRules.length).toBeGreaterThan(10);
    expect(bodyRules.filter((id) => verdict(bodyless, id) !== 'not observed')).toEqual([]);
    expect(leftOut).toBeGreaterThan(50);
    // every body left out, but those of requests not in the specification (not judged at all)
    const count = bodyless.observed.notJudged.find((n) => n.reason === `body not judged: ${BODY_LEFT_OUT}`)?.count ?? 0;
    expect(count).toBeLessThanOrEqual(leftOut);
    expect(count).toBeGreaterThanOrEqual(leftOut - full.observed.notInSpecification.total);
    expect(full.observed.notJudged.some((n) => n.reason.includes(BODY_LEFT_OUT))).toBe(false);
    const summary = readFileSync(join(bodylessDir, 'summary.md'), 'utf8');
    expect(summary).toContain(`- body not judged: ${BODY_LEFT_OUT}: ${count}`);
  });

  it('judges the rules a status decides as on the whole capture', () => {
    for (const id of ['ledger.http.documented-status', 'ledger.http.no-server-error', 'scan.http.documented-status', 'scan.http.no-server-error']) {
      expect(verdict(full, id), id).toBe('observed pass');
      expect(verdict(bodyless, id), id).toBe('observed pass');
    }
  });

  it('prints no seed and no "rerun with --seed" in a passive summary', () => {
    const summary = readFileSync(join(bodylessDir, 'summary.md'), 'utf8');
    expect(summary).not.toMatch(/--seed/);
    expect(summary).not.toMatch(/generation: seed/);
  });
});
