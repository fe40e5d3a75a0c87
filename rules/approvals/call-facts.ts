import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { parseBoundedJson } from '../../lib/json-depth.js';
import { stableStringify } from '../../lib/stable-json.js';

/** What the approval rules read from a tool call: its tool, its command and its path, if it has them. */
export interface CallFacts {
  tool: string;
  /** The arguments parsed from JSON, or the raw text when they are not JSON. */
  args: unknown;
  command?: string;
  path?: string;
}

/**
 * The facts of a call as the model sent it. Arguments are hostile: anything
 * that is not a string where a command or path is expected is left out, so
 * a rule about commands or paths does not match it (and an allow rule never
 * lets it through).
 *
 * @example callFacts('run', '{"command":"npm  test"}') // { tool: 'run', args: {...}, command: 'npm test' }
 */
export function callFacts(tool: string, rawArgs: string): CallFacts {
  const args = parseArgs(rawArgs);
  const facts: CallFacts = { tool, args };
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    const { command, path } = args as Record<string, unknown>;
    if (typeof command === 'string') facts.command = command.trim().replace(/[ \t]+/g, ' ');
    if (typeof path === 'string' && path.length > 0) facts.path = normalizePath(path);
  }
  return facts;
}

function parseArgs(raw: string): unknown {
  try {
    return parseBoundedJson(raw);
  } catch {
    return raw;
  }
}

/** `./src//a.ts` → `src/a.ts`; `src/../../x` stays outside (`../x`), so a path rule for `src/**` never matches it. */
function normalizePath(path: string): string {
  const normal = posix.normalize(path.replace(/\\/g, '/'));
  return normal.startsWith('./') ? normal.slice(2) : normal;
}

/**
 * The hash an approval is bound to: the tool and its arguments (keys sorted),
 * so a decision given for one call can never be applied to a call with other
 * arguments, however the model orders its JSON.
 *
 * @example argsHash('run', '{"command":"ls"}') === argsHash('run', '{ "command": "ls" }') // true
 */
export function argsHash(tool: string, rawArgs: string): string {
  return createHash('sha256')
    .update(stableStringify({ tool, args: parseArgs(rawArgs) }))
    .digest('hex')
    .slice(0, 32);
}
