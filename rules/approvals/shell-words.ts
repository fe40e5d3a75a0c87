/** A command line read the way `sh` splits it, before any expansion. */
interface ParsedCommandLine {
  /** Each simple command's words, quotes removed (`g"it" 'diff'` → `git`, `diff`). */
  commands: string[][];
  /** Control operators between them (`;`, `&&`, `||`, `|`, `&`, a newline). */
  operators: string[];
  /** A `$(…)`, a backtick or a `<(…)`/`>(…)`: text that runs as a command of its own. */
  substitutions: boolean;
  /** A `<`, `>`, `>>`, `<<` or `&>`: a file read or written by the shell, not by the command. */
  redirections: boolean;
  /** Parameter expansions (`$X`, `${X}`) outside single quotes: the words are not what will run. */
  expansions: boolean;
  /** The line ended inside a quote: what it means is the shell's guess, and no allow rule should make one. */
  unterminated: boolean;
  /** A `*`, `?`, `[` or `{` outside quotes: the shell may expand the word into other words (file names). */
  globs: boolean;
}

const BLANKS = new Set([' ', '\t']);

/**
 * Splits a command line into simple commands and their words, the way the shell would before expansion, and says
 * what in it is more than words (operators, substitutions, redirections, expansions). It reads a command to judge
 * it, never to run it.
 *
 * @example parseCommandLine(`git diff && g"it" difftool -x 'sh -c id'`).commands // [['git', 'diff'], ['git', 'difftool', '-x', 'sh -c id']]
 */
export function parseCommandLine(text: string): ParsedCommandLine {
  const parsed: ParsedCommandLine = {
    commands: [],
    operators: [],
    substitutions: false,
    redirections: false,
    expansions: false,
    unterminated: false,
    globs: false,
  };
  let words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  const endWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  const endCommand = (operator: string) => {
    endWord();
    if (words.length > 0) parsed.commands.push(words);
    words = [];
    parsed.operators.push(operator);
  };
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    const next = text[index + 1];
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
      continue;
    }
    if (char === '\\' && next !== undefined) {
      if (next === '\n') {
        index++;
        continue;
      }
      if (quote === null || '"\\$`'.includes(next)) {
        word = (word ?? '') + next;
        index++;
        continue;
      }
    }
    if (char === '`' || (char === '$' && next === '(')) parsed.substitutions = true;
    else if (char === '$' && next !== undefined && /[A-Za-z_{0-9@*#?$!-]/.test(next)) parsed.expansions = true;
    if (quote === '"') {
      if (char === '"') quote = null;
      else word += char;
      continue;
    }
    if ('*?[{'.includes(char)) parsed.globs = true;
    if (char === "'" || char === '"') {
      quote = char;
      word ??= '';
    } else if (BLANKS.has(char)) endWord();
    else if (char === '\n' || char === ';') endCommand(char === '\n' ? '\\n' : ';');
    else if (char === '&' || char === '|') {
      if (char === '&' && next === '>') {
        parsed.redirections = true;
        endWord();
        index++;
      } else if (next === char) {
        endCommand(char + char);
        index++;
      } else endCommand(char);
    } else if (char === '<' || char === '>') {
      if (next === '(') parsed.substitutions = true;
      else parsed.redirections = true;
      endWord();
    } else if (char === '(' || char === ')') endCommand(char);
    else word = (word ?? '') + char;
  }
  if (quote !== null) parsed.unterminated = true;
  endWord();
  if (words.length > 0) parsed.commands.push(words);
  return parsed;
}

/** Leading `NAME=value` words: the environment a command is run with, which can change what it runs (`PAGER=…`). */
export function assignmentCount(words: readonly string[]): number {
  let count = 0;
  while (count < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[count]!)) count++;
  return count;
}
