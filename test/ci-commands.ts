/**
 * Reading the CI examples of docs/ci/, shared by test/ci-examples.test.ts (the commands exist, with their flags) and
 * test/package.test.ts (they run in a project that installed the package).
 */

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
