/** Characters that end a word outside quotes: blanks and the shell's operators. */
const SEPARATORS = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>', '`']);

/**
 * The words of a shell command as `sh` would split them before expansion: quotes removed, a backslash escaping
 * the next character, operators (`;`, `&&`, `|`, `<`, `>`, `$(`, backticks) splitting words. It reads a command to
 * find the paths it names, not to run it: expansions (`$VAR`, globs) stay as written.
 *
 * @example commandWords(`sh "./my checks/policy.sh" && echo 'ok'`) // ['sh', './my checks/policy.sh', 'echo', 'ok']
 */
export function commandWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index]!;
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
    } else if (char === '\\' && index + 1 < command.length && (quote === null || '"\\$`'.includes(command[index + 1]!))) {
      word = (word ?? '') + command[index + 1];
      index += 1;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= '';
    } else if (SEPARATORS.has(char)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + char;
    }
  }
  if (word !== null) words.push(word);
  return words;
}
