import { UsageError } from './errors.js';
import { compileLinear } from './linear-regex.js';

const compiled = new Map<string, RegExp>();

/**
 * A regular expression from the rules (a deny pattern, an approval rule's `commandRegex`, a check's `passPattern`),
 * compiled for V8's linear-time engine: a rules file, even a repository's untrusted one that may only add deny
 * patterns, can never make rein backtrack for minutes on a command or an output. A pattern the engine cannot run
 * (back-references, lookarounds, large nested repeats) is a usage error naming it, at load.
 *
 * @example compileRuleRegex('\\bterraform\\s+apply\\b').test('terraform apply') // true
 */
export function compileRuleRegex(pattern: string, flags = ''): RegExp {
  const key = `${flags}/${pattern}`;
  const known = compiled.get(key);
  if (known) return known;
  const regex = compileLinear(pattern, flags);
  if ('error' in regex) throw new UsageError(`the pattern /${pattern}/ ${ruleRegexProblem(regex.error)}`);
  compiled.set(key, regex);
  return regex;
}

/** Why a rules pattern is refused, or null when the linear-time engine runs it: for the rules schema's messages. */
export function ruleRegexIssue(pattern: string, flags = ''): string | null {
  const regex = compileLinear(pattern, flags);
  return 'error' in regex ? ruleRegexProblem(regex.error) : null;
}

function ruleRegexProblem(error: string): string {
  return /linear time/i.test(error)
    ? 'needs backtracking (a back-reference, a lookahead or lookbehind, or a large repeat of a group), which can take exponential time; rein runs rules patterns in linear time only'
    : `is not a valid regular expression (${error.replace(/^Invalid regular expression: /, '')})`;
}

/** The rules schema's message for a pattern rein refuses, or null: `expected a valid regular expression (…)` or why it needs backtracking. */
export function ruleRegexMessage(pattern: string, flags = ''): string | null {
  const regex = compileLinear(pattern, flags);
  if (!('error' in regex)) return null;
  return /linear time/i.test(regex.error)
    ? `expected a regular expression rein can run in linear time: this one ${ruleRegexProblem(regex.error)}`
    : `expected a valid regular expression (${regex.error.replace(/^Invalid regular expression: /, '')})`;
}
