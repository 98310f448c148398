import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineOf } from '../../harness/setup/config-errors.js';
import { ConfigError, loadConfig } from '../../harness/config.js';

const dir = mkdtempSync(join(tmpdir(), 'cc-config-errors-'));

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('configuration errors', () => {
  it('names every problem of a file at once, each with its file and line, and the setting meant for an unknown one', () => {
    const file = join(dir, 'two.yaml');
    writeFileSync(file, 'targets:\n  ledger:\n    urll: http://127.0.0.1:7575\nrun:\n  sede: 3\n  runs: many\n');
    const message = errorOf(() => loadConfig({ flags: { config: file }, env: {} }));
    expect(message).toContain('invalid configuration, 4 problems');
    expect(message).toContain(`${file}:3: targets.ledger: unknown setting "urll" (did you mean "url"?)`);
    expect(message).toContain(`${file}:5: run: unknown setting "sede" (did you mean "seed"?)`);
    expect(message).toContain(`${file}:6: run.runs: must be integer`);
    expect(message).toContain('missing required setting "url"');
    // in the order of the file
    expect(message.indexOf('"urll"')).toBeLessThan(message.indexOf('"sede"'));
  });

  it('gives one problem on one line, and no line to a value a flag set', () => {
    const file = join(dir, 'one.json');
    writeFileSync(file, '{\n  "run": {\n    "seed": 1,\n    "concurency": 2\n  }\n}\n');
    expect(errorOf(() => loadConfig({ flags: { config: file }, env: {} }))).toBe(`invalid configuration: ${file}:4: run: unknown setting "concurency" (did you mean "concurrency"?)`);
    const flag = errorOf(() => loadConfig({ flags: { config: file, timeoutMs: '5' }, env: {} }));
    expect(flag).toContain('2 problems');
    expect(flag).toMatch(/\n {2}run\.timeoutMs: must be >= 100$/);
  });

  it('finds the line of a key or a value, in a mapping or a list', () => {
    const text = 'a:\n  b: 1\n  c:\n    - x\n    - y\n';
    expect(lineOf(text, ['a', 'b'], true)).toBe(2);
    expect(lineOf(text, ['a', 'c', '1'])).toBe(5);
    expect(lineOf(text, ['a', 'd'])).toBeUndefined();
  });
});
