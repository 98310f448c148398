/**
 * The examples in README.md and docs/**\/*.md are current: every `canton-conformance` command of a shell code block
 * exists with the flags it shows (checked against the CLI's own command tree, as the CI examples are), every
 * `npm run` names a script of package.json, and every YAML code block parses and, when it is a configuration
 * (`run`, `targets`, `reference`), passes the configuration schema.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { commandLine } from '../../harness/cli.js';
import { CONFIG_AJV_OPTIONS } from '../../harness/config.js';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { checkScripts } from '../ci-commands.js';

interface Block {
  file: string;
  line: number;
  lang: string;
  text: string;
}

/** The fenced code blocks of a Markdown text, with their language and first line. */
export function codeBlocks(file: string, text: string): Block[] {
  const out: Block[] = [];
  let open: Block | undefined;
  text.split('\n').forEach((line, i) => {
    const fence = /^\s*```\s*(\S*)/.exec(line);
    if (fence === null) {
      if (open !== undefined) open.text += `${line}\n`;
    } else if (open === undefined) open = { file, line: i + 1, lang: fence[1] ?? '', text: '' };
    else {
      out.push(open);
      open = undefined;
    }
  });
  return out;
}

function documents(): string[] {
  const docs = readdirSync(join(PACKAGE_ROOT, 'docs'), { recursive: true })
    .map((f) => `docs/${String(f).split('\\').join('/')}`)
    .filter((f) => f.endsWith('.md'));
  return ['README.md', ...docs.sort()].filter((f) => existsSync(join(PACKAGE_ROOT, f)));
}

const blocks = documents().flatMap((f) => codeBlocks(f, readFileSync(join(PACKAGE_ROOT, f), 'utf8')));

let program: Command;
beforeAll(async () => {
  program = (await commandLine({ out: () => undefined, err: () => undefined })).program;
});

describe('the examples in README.md and docs/', () => {
  it('run canton-conformance commands and flags that exist, and npm scripts that exist', () => {
    const shell = blocks.filter((b) => ['sh', 'bash', 'shell', 'console'].includes(b.lang));
    expect(shell.length).toBeGreaterThan(5);
    const checked = shell.map((b) => ({ b, ...checkScripts([b.text], program) }));
    expect(checked.flatMap((c) => c.problems.map((p) => `${c.b.file}:${c.b.line}: ${p}`))).toEqual([]);
    expect(checked.flatMap((c) => c.uses).length).toBeGreaterThan(10);
  });

  it('show YAML that parses, and configurations the schema accepts', () => {
    const schema = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'harness', 'config.schema.json'), 'utf8')) as object;
    const validate = new Ajv2020({ ...CONFIG_AJV_OPTIONS, allErrors: true }).compile(schema);
    const yaml = blocks.filter((b) => ['yaml', 'yml'].includes(b.lang));
    expect(yaml.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const b of yaml) {
      let value: unknown;
      try {
        value = parse(b.text);
      } catch (e) {
        problems.push(`${b.file}:${b.line}: ${(e as Error).message.split('\n')[0]}`);
        continue;
      }
      const isConfig = typeof value === 'object' && value !== null && Object.keys(value).some((k) => ['run', 'targets', 'reference'].includes(k));
      if (isConfig && validate(value) !== true) problems.push(`${b.file}:${b.line}: ${(validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`).join('; ')}`);
    }
    expect(problems).toEqual([]);
  });
});

describe('the example checker', () => {
  it('finds a flag that does not exist in a docs code block', () => {
    const [block] = codeBlocks('x.md', '# x\n```sh\nnpx canton-conformance run --no-such-flag\n```\n');
    expect(checkScripts([block!.text], program).problems).toEqual([expect.stringContaining('run has no flag --no-such-flag')]);
  });
});
