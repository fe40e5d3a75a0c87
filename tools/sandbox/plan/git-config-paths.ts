import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Keys whose value is a path git reads as configuration or runs as hooks. */
const PATH_KEYS: Record<string, 'dir' | 'file'> = {
  'core.hookspath': 'dir',
  'include.path': 'file',
  'core.attributesfile': 'file',
  'core.worktree': 'dir',
};

/**
 * Paths inside the workspace that a git configuration outside the sandbox's reach names as code or configuration:
 * `core.hooksPath` (husky points it at `.husky/`), `include.path` and `includeIf.<cond>.path`,
 * `core.attributesFile`, `core.worktree`, read from the repository's `.git/config` and the user's and the system's
 * configuration. What they name inside the workspace, the agent could otherwise write, and the user's next git command
 * would run or obey.
 *
 * @example gitConfigPaths('/w/repo', { HOME: '/home/me' }) // [{ path: '/w/repo/.husky', kind: 'dir' }]
 */
export function gitConfigPaths(root: string, env: NodeJS.ProcessEnv = process.env): Array<{ path: string; kind: 'dir' | 'file' }> {
  const home = env.HOME || os.homedir();
  const files = [
    path.join(root, '.git', 'config'),
    path.join(home, '.gitconfig'),
    path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'git', 'config'),
    '/etc/gitconfig',
  ];
  const found: Array<{ path: string; kind: 'dir' | 'file' }> = [];
  for (const file of files) {
    for (const { key, value } of readConfig(file)) {
      const kind = PATH_KEYS[key] ?? (/^includeif\..*\.path$/.test(key) ? 'file' : undefined);
      if (!kind) continue;
      // A relative hooks path is taken from the top of the worktree; an include from the file that names it.
      const base = key === 'core.hookspath' || key === 'core.worktree' ? root : path.dirname(file);
      const resolved = path.resolve(base, value.startsWith('~/') ? path.join(home, value.slice(2)) : value);
      if (isWithin(root, resolved) && resolved !== root) found.push({ path: resolved, kind });
    }
  }
  return found;
}

/** The `section.key = value` lines of a git config file, keys lower-cased (subsection names kept); nothing when unreadable. */
function readConfig(file: string): Array<{ key: string; value: string }> {
  let text: string;
  try {
    if (!fs.statSync(file).isFile()) return [];
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const found: Array<{ key: string; value: string }> = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)[#;].*$/, '').trim();
    const header = /^\[\s*([^\s\]"]+)(?:\s+"([^"]*)")?\s*\]$/.exec(line);
    if (header) {
      section = header[2] !== undefined ? `${header[1]!.toLowerCase()}.${header[2]}` : header[1]!.toLowerCase();
      continue;
    }
    const pair = /^([A-Za-z][\w-]*)\s*=\s*(.*)$/.exec(line);
    if (pair && section) found.push({ key: `${section}.${pair[1]!.toLowerCase()}`, value: pair[2]!.replace(/^"(.*)"$/, '$1') });
  }
  return found;
}

function isWithin(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
