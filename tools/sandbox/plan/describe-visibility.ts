import type { GitVisibility } from './git-mounts.js';
import { isWithin } from './hidden-paths.js';
import { PRIVATE_DIRS, type VisibilityPlan } from './visibility.js';

/** What the trace's `start` line records about the sandbox's file system. */
export interface VisibilitySummary {
  system: string[];
  workspace: string;
  privateDirs: string[];
  toolchains: string[];
  caches: string[];
  readable: string[];
  writable: string[];
  missing: string[];
  masked: { credentials: number; workspace: number; elsewhere: number };
  /** Folders too large to check all of for hidden files. */
  unchecked: string[];
  network: boolean;
  /** How git looks to commands: a private copy of `.git`, the real one read-only, or none; nested repositories read-only. */
  git: GitVisibility | null;
}

/**
 * The plan as data for the trace.
 *
 * @example summarizeVisibility(plan).toolchains // ['/home/me/.pyenv']
 */
export function summarizeVisibility(plan: VisibilityPlan): VisibilitySummary {
  return {
    system: plan.system,
    workspace: plan.root,
    privateDirs: [...PRIVATE_DIRS, ...(plan.privateHome ? [plan.home] : [])],
    toolchains: plan.toolchains,
    caches: plan.caches,
    readable: plan.readable,
    writable: plan.writable,
    missing: plan.missing,
    masked: { credentials: plan.masked.credentials, workspace: plan.masked.workspace, elsewhere: plan.masked.elsewhere },
    unchecked: plan.masked.truncated,
    network: plan.network,
    git: plan.git,
  };
}

/**
 * What commands can see, in one line, with home paths shortened to `~`, e.g.
 * `visible: system (/usr /bin /etc /opt …), the workspace (writable), a private /tmp and ~, toolchains ~/.pyenv ~/.cargo; hidden: the rest of the disk, 2 credential paths, 1 workspace file (.env*)`.
 *
 * @example describeVisibility(plan)
 */
export function describeVisibility(plan: VisibilityPlan): string {
  const short = (dir: string) => (isWithin(plan.home, dir) ? `~${dir.slice(plan.home.length) || ''}` : dir);
  const list = (dirs: string[], max = 6) => dirs.slice(0, max).map(short).join(' ') + (dirs.length > max ? ` (+${dirs.length - max} more)` : '');
  const visible = [
    `system (${plan.system.filter((dir) => !['/lib32', '/libx32', '/sbin'].includes(dir)).join(' ')})`,
    'the workspace (writable)',
    `a private /tmp${plan.privateHome ? ` and ${short(plan.home)}` : ''}`,
  ];
  if (plan.toolchains.length > 0) visible.push(`toolchains ${list(plan.toolchains)}`);
  if (plan.caches.length > 0) visible.push(`caches ${list(plan.caches, 3)}`);
  if (plan.readable.length > 0) visible.push(`readable ${list(plan.readable)}`);
  // Job logs in the run directory inside the workspace are part of it as far as the agent can tell.
  const writableOutside = plan.writable.filter((dir) => !isWithin(plan.root, dir));
  if (writableOutside.length > 0) visible.push(`job logs ${list(writableOutside, 2)} (writable)`);
  const hidden = ['the rest of the disk'];
  if (plan.masked.credentials > 0) hidden.push(`${plan.masked.credentials} credential path${plan.masked.credentials === 1 ? '' : 's'}`);
  if (plan.masked.workspace > 0) hidden.push(`${plan.masked.workspace} workspace file${plan.masked.workspace === 1 ? '' : 's'} (.env* and permissions.hidden)`);
  if (plan.masked.elsewhere > 0) hidden.push(`${plan.masked.elsewhere} more (.env* and permissions.hidden)`);
  const notes = [
    ...(plan.git ? [describeGit(plan.git)].filter((line) => line !== '') : []),
    ...(plan.missing.length > 0 ? [`not found: ${list(plan.missing)}`] : []),
    ...(plan.masked.truncated.length > 0 ? [`too large to check for .env files: ${list(plan.masked.truncated)}`] : []),
  ];
  return `visible: ${visible.join(', ')}; hidden: ${hidden.join(', ')}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`;
}

/**
 * What commands can do with git, e.g. `git: .git is a private copy (commits stay in the sandbox), 2 nested repositories read-only`.
 * Empty when there is nothing to say (no repository, nothing nested).
 */
function describeGit(git: GitVisibility): string {
  const parts: string[] = [];
  if (git.repository === 'copy') parts.push('.git is a private copy (commits stay in the sandbox; the real one is never written)');
  if (git.repository === 'read-only') parts.push('.git read-only');
  if (git.nested > 0) parts.push(`${git.nested} nested repositor${git.nested === 1 ? 'y' : 'ies'} read-only`);
  if (git.configNamed > 0) parts.push(`${git.configNamed} path${git.configNamed === 1 ? '' : 's'} your git configuration names (hooks, includes) read-only`);
  if (git.unchecked) parts.push('the workspace was too large to look through for nested repositories');
  return parts.length > 0 ? `git: ${parts.join(', ')}` : '';
}
