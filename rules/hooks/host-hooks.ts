import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { UsageError } from '../../lib/errors.js';
import { commandWords } from './command-words.js';
import { HOOK_MOMENTS, type Hooks } from './schema.js';

/** `https://…`, `ssh://…`: an address, not a path. */
const URL_LIKE = /^[a-z][a-z\d+.-]*:\/\//i;

/**
 * The words of a host hook's command that name something inside the workspace: a relative path (one with a `/`,
 * or starting with `.`, and no blank; the hook's folder is the workspace), an absolute path under it (`~` and `$HOME` expanded),
 * or the name of a file or folder that exists there (`python3 check.py`). The value of `--opt=value` and of
 * curl's `@file` count as words. The agent can rewrite anything there, and a host hook runs it outside the sandbox.
 *
 * @example workspacePathsIn('sh ./policy.sh && notify-send done', '/w/repo') // ['./policy.sh']
 */
export function workspacePathsIn(command: string, workspace: string): string[] {
  const roots = realRoots(workspace);
  const found = commandWords(command).filter((word) => candidates(word).some((text) => namesWorkspacePath(text, roots)));
  return [...new Set(found)];
}

function candidates(word: string): string[] {
  const values = [word];
  const assigned = word.indexOf('=');
  if (assigned >= 0) values.push(word.slice(assigned + 1));
  if (word.startsWith('@')) values.push(word.slice(1));
  return values.filter((value) => value !== '' && !URL_LIKE.test(value));
}

function namesWorkspacePath(text: string, roots: readonly string[]): boolean {
  const expanded = text
    .replace(/^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/, homedir())
    // The hook's own variables for the workspace (CLAUDE_PROJECT_DIR is Claude Code's name for it): a path below them is inside.
    .replace(/^(?:\$(?:CLAUDE_PROJECT_DIR|REIN_WORKSPACE)|\$\{(?:CLAUDE_PROJECT_DIR|REIN_WORKSPACE)\})(?=\/|$)/, roots[0]!);
  if (isAbsolute(expanded)) return roots.some((root) => isInside(root, resolve(expanded)));
  // A word with blanks in it is a message or a pattern more often than a path; if it is a file there, it is found below.
  if (!/\s/.test(expanded) && (expanded.includes('/') || expanded.startsWith('.'))) return true;
  return existsSync(join(roots[0]!, expanded));
}

/** The workspace as given and as its real path: either spelling of a path below it counts. */
function realRoots(workspace: string): string[] {
  const given = resolve(workspace);
  try {
    return [...new Set([given, realpathSync(given)])];
  } catch {
    return [given];
  }
}

function isInside(root: string, file: string): boolean {
  const rel = relative(root, file);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Refuses hooks with `where: host` whose command names a path inside the workspace: such a script is one the
 * agent can rewrite in the sandbox and the host would then run. Checked when the rules are loaded and again when
 * a run starts. The message names the hook, the path and both ways out.
 *
 * @example checkHostHooks(rules.hooks, '/w/repo', 'rein.config.json') // throws for { command: './notify.sh', where: 'host' }
 */
export function checkHostHooks(hooks: Hooks, workspace: string, source = 'rules'): void {
  for (const moment of HOOK_MOMENTS)
    hooks[moment].forEach((spec, index) => {
      if (spec.where !== 'host' || spec.command === undefined) return;
      const paths = workspacePathsIn(spec.command, workspace);
      if (paths.length === 0) return;
      throw new UsageError(
        `${source}: hooks.${moment}[${index}] (\`${spec.command}\`) has where: host, and ${paths.map((path) => `\`${path}\``).join(', ')} ${paths.length === 1 ? 'is a path' : 'are paths'} inside the workspace ${workspace}, which the agent can rewrite from the sandbox and the host would then run. Move the script outside the repository (e.g. ~/.config/rein/hooks/) and name it by its absolute path, or drop \`where: host\` so the hook runs in the run's sandbox`,
      );
    });
}
