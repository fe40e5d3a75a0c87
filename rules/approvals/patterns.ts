import { compileLinear } from '../../lib/linear-regex.js';
import type { ApprovalRuleObject } from './schema.js';

/**
 * Turns a wildcard pattern into an anchored regular expression: `**` matches
 * anything, `*` anything but `/` when `slashes` is false (paths), anything at
 * all otherwise (tool names, commands), `?` one character.
 *
 * @example wildcard('mcp__github__*').test('mcp__github__create_issue') // true
 */
export function wildcard(pattern: string, options: { slashes: boolean } = { slashes: true }): RegExp {
  const key = `${options.slashes ? 's' : 'p'}:${pattern}`;
  let compiled = compiledWildcards.get(key);
  if (!compiled) {
    // Linear time: a rules file's `*a*a*a*a*b` must not backtrack for minutes on a long command.
    const linear = compileLinear(wildcardSource(pattern, options), 's');
    compiled = 'error' in linear ? new RegExp(wildcardSource(pattern, options), 's') : linear;
    compiledWildcards.set(key, compiled);
  }
  return compiled;
}

const compiledWildcards = new Map<string, RegExp>();

function wildcardSource(pattern: string, options: { slashes: boolean }): string {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '*' && pattern[index + 1] === '*') {
      // `dir/**` also matches `dir` itself; `**/x` matches `x` at the top.
      if (pattern[index + 2] === '/') {
        source += '(?:.*/)?';
        index += 2;
      } else {
        source += '.*';
        index += 1;
      }
    } else if (char === '*') source += options.slashes ? '.*' : '[^/]*';
    else if (char === '?') source += options.slashes ? '.' : '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return `^${source}$`;
}

/** A rule string as an object: `"run(npm test*)"` is a command pattern, `"edit_file(src/**)"` a path glob, anything else a tool pattern. */
export function parseRuleString(rule: string): ApprovalRuleObject {
  const match = /^([^()]+)\((.*)\)$/s.exec(rule.trim());
  if (!match) return { tool: rule.trim() };
  const tool = match[1]!.trim();
  const inside = match[2]!;
  return COMMAND_TOOLS.has(tool) ? { tool, command: inside } : { tool, path: inside };
}

/** Tools whose argument a `tool(...)` rule string is a command pattern for. */
const COMMAND_TOOLS = new Set(['run', 'job']);
