import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the repository's real objects are shown, read-only, inside the sandbox: the copy's alternates name it. */
export const SANDBOX_GIT_OBJECTS = '/run/rein/git-objects';

/** What git needs of a repository to show, stage and commit, copied: everything else it reads from the real objects. */
const COPIED = ['HEAD', 'config', 'config.worktree', 'packed-refs', 'index', 'shallow', 'refs', 'info', 'FETCH_HEAD', 'ORIG_HEAD', 'description'];

/** A private copy of a workspace's `.git` for one run's sandbox: what commands see at `<workspace>/.git`. */
export interface GitCopy {
  /** The copy (outside the workspace, in the temp folder); shown writable at `<workspace>/.git`. */
  dir: string;
  /** The real `.git/objects`, shown read-only at SANDBOX_GIT_OBJECTS. */
  objects: string;
  /** Object stores the real one borrows from (its `objects/info/alternates`), shown read-only where they are. */
  alternates: string[];
  /** The real `.git/modules` (submodules' repositories), shown read-only inside the copy, if there is one. */
  modules: string | null;
}

/**
 * Copies what git needs to work in `<root>/.git` (HEAD, refs, the index, config, info) to a private folder whose
 * objects are the real ones, borrowed read-only through `objects/info/alternates`. Commands in the sandbox see the
 * copy in place of `.git`: `git status`, `diff`, `log`, `add`, `commit`, `stash` and `checkout` all work, and every
 * write lands in the copy, which is thrown away at the end of the run. The real `.git` is never writable from the
 * sandbox, so nothing a command plants there (a config key, a hook, a `commondir`, an index entry, a symlinked log)
 * is ever read by the user's git. Null when `<root>/.git` is not a folder.
 *
 * @example const copy = makeGitCopy('/w/repo'); …; removeGitCopy(copy);
 */
export function makeGitCopy(root: string): GitCopy | null {
  const real = path.join(root, '.git');
  if (!fs.lstatSync(real, { throwIfNoEntry: false })?.isDirectory()) return null;
  const objects = path.join(real, 'objects');
  if (!fs.lstatSync(objects, { throwIfNoEntry: false })?.isDirectory()) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rein-git-'));
  try {
    for (const name of COPIED) {
      const from = path.join(real, name);
      const stat = fs.lstatSync(from, { throwIfNoEntry: false });
      // Only plain files and folders: a link in .git is not followed to whatever it names.
      if (stat?.isFile()) fs.copyFileSync(from, path.join(dir, name));
      else if (stat?.isDirectory())
        fs.cpSync(from, path.join(dir, name), { recursive: true, verbatimSymlinks: true, filter: (source) => !fs.lstatSync(source).isSymbolicLink() });
    }
    fs.mkdirSync(path.join(dir, 'objects', 'info'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'objects', 'info', 'alternates'), `${SANDBOX_GIT_OBJECTS}\n`);
    const modules = path.join(real, 'modules');
    const hasModules = fs.lstatSync(modules, { throwIfNoEntry: false })?.isDirectory() ?? false;
    if (hasModules) fs.mkdirSync(path.join(dir, 'modules'));
    live.add(dir);
    return { dir, objects, alternates: borrowedStores(objects), modules: hasModules ? modules : null };
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Deletes the copy and whatever commands wrote in it. */
export function removeGitCopy(copy: GitCopy | null): void {
  if (!copy) return;
  fs.rmSync(copy.dir, { recursive: true, force: true });
  live.delete(copy.dir);
}

/** Copies not yet removed: a run that fails between planning its sandbox and opening it leaves none behind at exit. */
const live = new Set<string>();
process.once('exit', () => {
  for (const dir of live) fs.rmSync(dir, { recursive: true, force: true });
});

/** The absolute object folders `objects/info/alternates` names (a clone made with `--shared` borrows its source's). */
function borrowedStores(objects: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(objects, 'info', 'alternates'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => path.isAbsolute(line) && path.basename(line) === 'objects' && fs.statSync(line, { throwIfNoEntry: false })?.isDirectory())
    .map((line) => path.resolve(line));
}
