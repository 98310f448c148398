/**
 * The reports of a run with three planted faults, as a person reads them. The HTML report, loaded in headless Chromium
 * from a local server: it makes no request to any other host; each interface's counts are summary.md's; each failed
 * requirement shows the run seed, the command that reruns exactly it and a curl line (a binary upload's sent from its
 * saved file, its body attached); an untested requirement says why; the header's duration is the run's wall time.
 * summary.md: the failures come right after the outcome, the properties table last, the same exchange once. junit.xml:
 * no requirement takes longer than the run.
 *
 * One run of the CLI against the embedded reference with the HTML report (about 6 s); the Chromium part is skipped,
 * saying why, where /usr/bin/chromium (Debian package chromium) is not installed.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import type { RunReport } from '../../harness/reporting/model.js';
import { localOnlyHtml } from '../../harness/reporting/write.js';
import { chromiumMissing, openPage, type Page } from './headless-chromium.js';

const FAULTS: Record<string, string> = {
  'ledger-users-id-129-accepted': 'ledger.users.id-too-long-rejected',
  'scan-list-ans-entries-prefix-ignored': 'scan.list-ans-entries.name-prefix-match',
  'ledger-upload-package-non-archive-accepted': 'ledger.upload-package.invalid-archive-rejected',
};
const UPLOAD = 'ledger.upload-package.invalid-archive-rejected';

const tmp = mkdtempSync(join(tmpdir(), 'cc-html-report-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let dir: string;
let report: RunReport;
let summary: string;
let stdout: string;

beforeAll(() => {
  const reports = join(tmp, 'reports');
  const r = spawnSync(
    process.execPath,
    [join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs'), 'run', '--no-compare', '--reports-dir', reports, ...Object.keys(FAULTS).flatMap((f) => ['--fault', f])],
    { cwd: tmp, encoding: 'utf8', timeout: 150_000, env: { ...process.env, NO_COLOR: '1' } },
  );
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.status).toBe(1);
  stdout = r.stdout;
  dir = join(reports, 'latest');
  report = JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as RunReport;
  summary = readFileSync(join(dir, 'summary.md'), 'utf8');
}, 180_000);

/** summary.md's requirement counts of an interface (its "all" row): pass, fail, error, skipped, unsupported, untested */
function summaryCounts(api: string): Record<string, number> {
  const row = new RegExp(`^\\| ${api} \\| \\*\\*all\\*\\* \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\|$`, 'm').exec(summary);
  expect(row, `summary.md's row of ${api}`).not.toBeNull();
  const [, , pass, fail, error, skipped, unsupported, untested] = row!.map(Number);
  return { passed: pass!, failed: fail!, broken: error!, skipped: skipped! + unsupported!, unknown: untested! };
}

describe('summary.md and junit.xml of a failing run', () => {
  it('gives the outcome, then the failures and errors, then the rest, the properties table last', () => {
    const headings = [...summary.matchAll(/^## (.+?)(?: \(|$)/gm)].map((m) => m[1]);
    expect(headings[0]).toBe('Requirements per interface');
    expect(headings[1]).toBe('Failures');
    expect(headings.at(-1)).toBe('Properties');
    expect(summary.indexOf('## Failures')).toBeLessThan(summary.indexOf('## Skipped and unsupported'));
    for (const requirement of Object.values(FAULTS)) {
      const section = summary.split(`\n### ${requirement} (MUST)`)[1]?.split('\n### ')[0] ?? '';
      expect(section, requirement).toContain(`Rerun it alone: \`canton-conformance run --seed 42 --requirement ${requirement} --only ${requirement.split('.')[0]}`);
      expect(section).toMatch(/```sh\ncurl -sS -X /);
    }
  });

  it('shows one exchange once per failure: no failed requirement repeats a message with the same request', () => {
    for (const section of summary.split('\n### ').slice(1)) {
      const told = [...section.matchAll(/^- what: (.*)\n- request: (.*)$/gm)].map((m) => `${m[1]}\n${m[2]}`);
      const responses = [...section.matchAll(/^- what: (.*)\n- request: (.*)\n(?:[\s\S]*?)^- response: (.*)$/gm)].map((m) => `${m[1]}\n${m[2]}\n${m[3]}`);
      expect(new Set(responses).size, section.split('\n')[0]).toBe(responses.length);
      expect(told.length).toBeLessThanOrEqual(3);
    }
  });

  it('gives each requirement of junit.xml a time within the run\'s wall time (a span, never a sum of checks)', () => {
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    const times = [...xml.matchAll(/<testcase [^>]*time="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(times.length).toBe(report.requirements.length);
    for (const t of times) expect(t).toBeLessThanOrEqual(report.durationMs / 1000 + 0.001);
    for (const m of xml.matchAll(/<testsuite name="(\w+)"[^>]*time="([\d.]+)"/g)) expect(Number(m[2]), m[1]).toBeLessThanOrEqual(report.durationMs / 1000 + 0.001);
  });

  it('saves the binary body of a failed upload beside the reports, which its curl line sends', () => {
    const x = report.requirements.find((q) => q.id === UPLOAD)!.failures.find((f) => f.exchange !== undefined)!.exchange!;
    const digest = /sha256 ([0-9a-f]+)>$/.exec(x.request.body ?? '')?.[1];
    expect(digest).toBeDefined();
    const file = report.bodies?.[digest!];
    expect(file).toMatch(/^bodies\/request-body-[0-9a-f]+\.bin$/);
    expect(createHash('sha256').update(readFileSync(join(dir, file!))).digest('hex').slice(0, 32)).toBe(digest);
    expect(summary).toContain(`--data-binary @${file}`);
    expect(stdout).toMatch(new RegExp(`--data-binary @\\S*${file!.replace(/\./g, '\\.')}`));
  });
});

describe('the rendered HTML made local', () => {
  // the block Allure 3's awesome generator writes into every report, with the report's id
  const page = `<html><head><link rel="icon" href="data:image/svg+xml,x"><script>window.allureReportOptions = {"runSummary":{"start":1000,"stop":60000,"duration":59000}}</script></head><body>
    <script async src="https://www.googletagmanager.com/gtag/js?id=G-LNDJ3J7WT0"></script>
    <script>
        window.dataLayer = window.dataLayer || [];
        function gtag(){dataLayer.push(arguments);}
        gtag('js', new Date());
        gtag('config', 'G-LNDJ3J7WT0', { "reportUuid": "abc" });
    </script>
    <script src="data:text/javascript;base64,AAAA"></script></body></html>`;

  it('takes Google Analytics out and gives the header the run\'s wall time', () => {
    const out = localOnlyHtml(page, { start: 2000, end: 33_000 });
    expect(out).not.toMatch(/googletagmanager|gtag|dataLayer/);
    expect(out).toContain('"runSummary":{"start":2000,"stop":33000,"duration":31000}');
    expect(out).toContain('<script src="data:text/javascript;base64,AAAA"></script>');
    expect(out).toContain('<link rel="icon" href="data:image/svg+xml,x">');
  });

  it('refuses a page that would still load from elsewhere', () => {
    expect(() => localOnlyHtml('<img src="https://example.com/pixel.gif">')).toThrow(/would load https:\/\/example\.com\/pixel\.gif/);
    expect(localOnlyHtml('<link rel="stylesheet" href="https://fonts.example/x.css"><p>ok</p>')).toBe('<p>ok</p>');
  });
});

const missing = chromiumMissing();

describe.skipIf(missing !== undefined)(`the HTML report in headless Chromium${missing !== undefined ? ` (skipped: ${missing})` : ''}`, () => {
  let server: Server;
  let origin: string;
  let page: Page;
  /** every path the local server was asked for */
  const served: string[] = [];
  /** the report's embedded test results (Allure 3 awesome, single file): id and requirement of each */
  let results: Array<{ id: string; status: string; requirement: string }>;

  beforeAll(async () => {
    const html = readFileSync(join(dir, 'allure-report', 'index.html'));
    const data = [...html.toString('utf8').matchAll(/\bd\("(data\/test-results\/[^"]+\.json)","([A-Za-z0-9+/=]*)"\)/g)].map(([, , b64]) => JSON.parse(Buffer.from(b64!, 'base64').toString('utf8')) as { id: string; status: string; labels: Array<{ name: string; value: string }> });
    results = data.map((t) => ({ id: t.id, status: t.status, requirement: t.labels.find((l) => l.name === 'requirement')?.value ?? '' }));
    server = createServer((req, res) => {
      served.push(req.url ?? '');
      if (req.url === '/index.html' || req.url?.startsWith('/index.html#') === true) {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(html);
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    page = await openPage();
    await page.navigate(`${origin}/index.html`);
    await page.waitFor('document.querySelectorAll("[data-testid=tree-section-title]").length >= 4', 60_000);
  }, 90_000);

  afterAll(async () => {
    await page?.close();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  });

  /** Opens a requirement's result; the page's text and its description's. */
  async function open(requirement: string): Promise<{ text: string; description: string }> {
    const id = results.find((r) => r.requirement === requirement)?.id;
    expect(id, `${requirement} in the HTML report`).toBeDefined();
    await page.evaluate(`location.hash = ${JSON.stringify(id)}`);
    await page.waitFor(`document.body.innerText.includes(${JSON.stringify(`canton-conformance:requirement:${requirement}`)}) && document.querySelector('[data-testid=test-result-description-frame]')?.contentDocument?.body?.innerText.length > 0`, 30_000);
    const text = await page.evaluate<string>('document.body.innerText');
    const description = await page.evaluate<string>('document.querySelector("[data-testid=test-result-description-frame]").contentDocument.body.innerText');
    return { text, description };
  }

  it('has each interface\'s requirement counts equal to summary.md\'s', async () => {
    const groups = await page.evaluate<Record<string, Record<string, number>>>(`(() => {
      const out = {};
      for (const section of document.querySelectorAll('[data-testid=tree-section]')) {
        const title = section.querySelector(':scope > [data-testid=tree-section-title]')?.textContent ?? '';
        if (!['ledger', 'scan', 'validator', 'registry'].includes(title)) continue;
        const counts = {};
        for (const item of section.querySelectorAll(':scope > [class*=tree-status-bar] > [class*=tree-status-bar-item]')) {
          const status = /_(failed|broken|passed|skipped|unknown)__/.exec(item.className)?.[1];
          if (status) counts[status] = Number(item.textContent);
        }
        out[title] = counts;
      }
      return out;
    })()`);
    expect(Object.keys(groups).sort()).toEqual(Object.keys(report.counts).sort());
    for (const [api, counts] of Object.entries(groups)) {
      const expected = Object.fromEntries(Object.entries(summaryCounts(api)).filter(([, n]) => n > 0));
      expect(counts, api).toEqual(expected);
    }
  });

  it('gives the run\'s wall time as the header\'s duration', async () => {
    const summary = await page.evaluate<{ start: number; stop: number; duration: number }>('window.allureReportOptions.runSummary');
    expect(summary).toEqual({ start: Date.parse(report.startedAt), stop: Date.parse(report.startedAt) + report.durationMs, duration: report.durationMs });
    const text = await page.evaluate<string>('document.querySelector("[data-testid=report-data]")?.innerText ?? document.body.innerText');
    const s = Math.floor(report.durationMs / 1000);
    // as the header writes it under a minute ("(16s 314ms)")
    if (s < 60 && report.durationMs % 1000 !== 0) expect(text).toContain(`(${s > 0 ? `${s}s ` : ''}${report.durationMs % 1000}ms)`);
  });

  it('shows the run seed, a rerun command and a curl line for each failed requirement', async () => {
    const failed = report.requirements.filter((q) => q.verdict === 'fail');
    expect(failed.map((q) => q.id)).toEqual(expect.arrayContaining(Object.values(FAULTS)));
    for (const q of failed) {
      const { description } = await open(q.id);
      expect(description, q.id).toContain(`run seed: ${report.seed} (--seed ${report.seed})`);
      expect(description).toContain(`canton-conformance run --seed ${report.seed} --requirement ${q.id} --only ${q.api}${Object.keys(FAULTS).map((f) => ` --fault ${f}`).join('')}`);
      if (q.failures.some((f) => f.exchange !== undefined)) expect(description).toMatch(/^curl -sS -X (GET|POST|PATCH|PUT|DELETE) '/m);
    }
  });

  it('sends a binary upload\'s body from its file, attached to the requirement', async () => {
    const { text, description } = await open(UPLOAD);
    expect(description).toMatch(/--data-binary @bodies\/request-body-[0-9a-f]+\.bin/);
    expect(description).not.toContain('bytes of binary data, sha256');
    expect(text).toContain(`${UPLOAD} request body`);
  });

  it('says why a requirement is untested or skipped', async () => {
    const untested = report.requirements.find((q) => q.verdict === 'untested' && q.reason !== undefined)!;
    const u = await open(untested.id);
    expect(u.text).toContain(`untested: ${untested.reason}`);
    expect(u.description).toContain(`Untested: ${untested.reason}`);
    const skipped = report.requirements.find((q) => q.verdict === 'skipped' && q.reason !== undefined)!;
    const s = await open(skipped.id);
    expect(s.description).toContain(`Skipped: ${skipped.reason}`);
  });

  it('makes no request to any host but the local server', () => {
    const foreign = page.requests.filter((u) => !u.startsWith(`${origin}/`) && !/^(data|blob|about):/.test(u));
    expect(foreign).toEqual([]);
    expect(page.requests.some((u) => u.startsWith(`${origin}/index.html`))).toBe(true);
    expect(existsSync(join(dir, 'allure-report', 'index.html'))).toBe(true);
    expect(readFileSync(join(dir, 'allure-report', 'index.html'), 'utf8')).not.toContain('googletagmanager');
  });
});
