// The single-file HTML report's rendering child (harness/reporting/write.ts, startAllureHtml): it loads the library at
// the lowest priority while the checks run and renders at the run's own priority; where the system does not allow
// raising a process's priority again (an ordinary user), a fresh child at the run's priority renders instead of the
// lowered one, which on a busy machine got almost no CPU and was killed at the time bound, leaving no report.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { atOwnPriority, mayRaiseAgain, startAllureHtml } from '../../harness/reporting/write.js';

/** the child is lowered, and its priority asked back, only where this process may raise it again (root here) */
const LOWERED = mayRaiseAgain() ? 1 : 0;

const tmp = mkdtempSync(join(tmpdir(), 'cc-html-render-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A run folder with one requirement's Allure result. */
function runDir(name: string): string {
  const dir = join(tmp, name);
  mkdirSync(join(dir, 'allure-results'), { recursive: true });
  const result = {
    uuid: '11111111-2222-3333-4444-555555555555',
    historyId: 'h-1',
    name: 'scan.list-items.response-schema (MUST)',
    fullName: 'canton-conformance:requirement:scan.list-items.response-schema',
    status: 'passed',
    stage: 'finished',
    labels: [{ name: 'epic', value: 'scan' }, { name: 'feature', value: 'listItems' }],
    steps: [],
    attachments: [],
    parameters: [],
    links: [],
    start: 1_700_000_000_000,
    stop: 1_700_000_000_100,
  };
  writeFileSync(join(dir, 'allure-results', `${result.uuid}-result.json`), JSON.stringify(result));
  return dir;
}

describe('the HTML report\'s rendering child', () => {
  it('renders at the run\'s priority: the loading child\'s priority raised again where the system allows it', async () => {
    const dir = runDir('raised');
    const asked: number[] = [];
    const note = await startAllureHtml(dir, 60_000, (child) => {
      asked.push(child.pid ?? -1);
      // no V8 flag on the child's command line, where one this Node's V8 lacks ends the process (Node 24 has no
      // --interrupt-budget): the script sets them itself, after the "--" that ends Node's options
      const options = child.spawnargs.slice(1, child.spawnargs.indexOf('--'));
      expect(options.filter((a) => a.startsWith('--'))).toEqual(['--input-type=module']);
      return atOwnPriority(child);
    }).render();
    expect(note).toBeUndefined();
    expect(readFileSync(join(dir, 'allure-report', 'index.html'), 'utf8')).toContain('<html');
    expect(asked).toHaveLength(LOWERED);
    for (const pid of asked) expect(pid).toBeGreaterThan(0);
  }, 70_000);

  it('renders in a fresh child at the run\'s priority where the lowered one cannot be raised again', async () => {
    const dir = runDir('fresh');
    const lowered: number[] = [];
    const html = startAllureHtml(dir, 60_000, (child) => {
      lowered.push(child.pid!);
      return false;
    });
    expect(await html.render()).toBeUndefined();
    expect(existsSync(join(dir, 'allure-report', 'index.html'))).toBe(true);
    expect(lowered).toHaveLength(LOWERED);
    // the lowered child is gone, not left loading beside the one that rendered
    for (const pid of lowered) {
      await expect.poll(() => {
        try {
          process.kill(pid, 0);
          return 'alive';
        } catch {
          return 'gone';
        }
      }, { timeout: 5000 }).toBe('gone');
    }
  }, 70_000);
});
