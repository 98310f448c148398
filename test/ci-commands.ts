/**
 * Reading the shell commands of the CI examples of docs/ci/ and of the docs' code blocks, shared by
 * test/ci-examples.test.ts (the commands exist, with their flags), test/package.test.ts (they run in a project that
 * installed the package) and test/docs/examples.test.ts (the commands the docs show exist).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { PACKAGE_ROOT } from '../harness/paths.js';

const scripts = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/**
 * The simple commands of a shell script, each as its words: lines joined at a trailing backslash, comments dropped,
 * split at && || ; | and newlines, quotes removed, redirections dropped with their target.
 */
export function shellCommands(script: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  let redirect = false;
  const endWord = () => {
    if (word !== undefined) {
      if (redirect) redirect = false;
      else words.push(word);
    }
    word = undefined;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  const text = script.replace(/\\\n/g, ' ');
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else word = (word ?? '') + ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (ch === '#' && word === undefined) {
      while (i < text.length && text[i] !== '\n') i++;
      endCommand();
    } else if (ch === '\n' || ch === ';' || ch === '&' || ch === '|') {
      endCommand();
    } else if (ch === '>') {
      endWord();
      if (text[i + 1] === '>') i++;
      redirect = true;
    } else if (ch === ' ' || ch === '\t') {
      endWord();
    } else word = (word ?? '') + ch;
  }
  endCommand();
  return commands;
}

export interface CliUse {
  command: string;
  /** flag name -> value (true for a flag without one) */
  flags: Map<string, string | true>;
  operands: string[];
}

/**
 * Checks one command of a CI script: a canton-conformance command against the CLI's command tree, an npm command
 * against npm's commands and package.json's scripts. Returns the canton-conformance use, problems as messages.
 */
export function checkCommand(words: string[], program: Command, problems: string[]): CliUse | undefined {
  const line = words.join(' ');
  let w = words;
  if (w[0] === 'npx') w = w.slice(1).filter((x) => !['--no-install', '--yes', '-y', '--no'].includes(x));
  if (w[0] === 'npm') {
    const sub = w[1];
    if (sub === 'run' || sub === 'run-script') {
      if (w[2] === undefined || !(w[2] in scripts)) problems.push(`${line}: package.json has no script ${w[2]}`);
    } else if (!['ci', 'install', 'test', 'start'].includes(sub ?? '')) problems.push(`${line}: not an npm command this example should need`);
    else if ((sub === 'test' || sub === 'start') && !(sub in scripts)) problems.push(`${line}: package.json has no ${sub} script`);
    return undefined;
  }
  if (w[0] !== 'canton-conformance') return undefined;
  const cmd = program.commands.find((c) => c.name() === w[1]);
  if (cmd === undefined) {
    problems.push(`${line}: canton-conformance has no command ${w[1]}`);
    return undefined;
  }
  const use: CliUse = { command: cmd.name(), flags: new Map(), operands: [] };
  for (let i = 2; i < w.length; i++) {
    const arg = w[i]!;
    if (!arg.startsWith('-')) {
      use.operands.push(arg);
      continue;
    }
    const [name, inline] = arg.split('=', 2) as [string, string | undefined];
    const opt = cmd.options.find((o) => o.long === name || o.short === name);
    if (opt === undefined) {
      problems.push(`${line}: ${cmd.name()} has no flag ${name}`);
      continue;
    }
    if (opt.required || opt.optional) {
      const value = inline ?? w[i + 1];
      if (inline === undefined) i++;
      if (value === undefined && opt.required) problems.push(`${line}: ${name} needs a value`);
      use.flags.set(name, value ?? true);
    } else {
      if (inline !== undefined) problems.push(`${line}: ${name} takes no value`);
      use.flags.set(name, true);
    }
  }
  const needed = cmd.registeredArguments.filter((a) => a.required).length;
  if (use.operands.length < needed) problems.push(`${line}: ${cmd.name()} needs ${cmd.registeredArguments.map((a) => a.name()).join(' ')}`);
  if (use.operands.length > 0 && cmd.registeredArguments.length === 0) problems.push(`${line}: ${cmd.name()} takes no operand (${use.operands.join(' ')})`);
  return use;
}

export function checkScripts(scripts: string[], program: Command): { uses: CliUse[]; problems: string[] } {
  const problems: string[] = [];
  const uses = scripts.flatMap((s) => shellCommands(s)).map((c) => checkCommand(c, program, problems)).filter((u): u is CliUse => u !== undefined);
  return { uses, problems };
}
