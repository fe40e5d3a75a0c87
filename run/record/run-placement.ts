import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../lib/errors.js';
import { WORKSPACE_REIN_DIR } from '../../lib/state/harness-files.js';
import { ensureWorkspaceReinDir } from '../../lib/state/workspace-rein-dir.js';

/**
 * Where a run keeps what it reads back (saved state, record, run.json with the rules, approval answers, the trace)
 * must be out of the sandbox's reach: the workspace is writable there, except `.rein/`, which rein creates before
 * the sandbox exists and shows read-only. So a run directory or trace whose real path is inside the workspace is
 * refused unless it is below `.rein/` (the trust store is checked by rules/trust/store.ts).
 * Returns the workspace's `.rein`, created.
 *
 * @example prepareRunPlacement('/w/repo', '/w/repo/runs/1') // throws: the sandbox could forge that run's state
 */
export function prepareRunPlacement(workspace: string, files: { runDir: string; tracePath?: string }): string {
  const root = fs.realpathSync(workspace);
  const reinDir = path.join(root, WORKSPACE_REIN_DIR);
  const stat = fs.lstatSync(reinDir, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory())
    throw new UsageError(`${reinDir} is not a folder (${stat.isSymbolicLink() ? 'a symlink' : 'a file'}): rein keeps its state there; remove it and run again`);
  ensureWorkspaceReinDir(root);
  for (const [flag, file] of [
    ['--run-dir', files.runDir],
    ['--trace', files.tracePath],
  ] as const) {
    if (file === undefined) continue;
    refuseLinksInside(root, workspace, flag, file);
    const real = realOfLongestPrefix(path.resolve(file));
    if (real !== root && !inside(root, real)) continue;
    // Below .rein, whatever links led there: nothing in it can be changed from the sandbox.
    if (inside(reinDir, real)) continue;
    throw new UsageError(
      `${flag} ${file} is inside the workspace, which sandboxed commands can write: they could forge the run's saved state, its verdict, or the rules \`rein resume\` loads. Use a folder outside the workspace, or one below ${reinDir} (read-only in the sandbox)`,
    );
  }
  return reinDir;
}

/**
 * A path written inside the workspace (`.rein/runs/…`, the default) is followed only through real folders: a
 * repository that ships `.rein/runs` as a symlink would otherwise choose where on the host every run's files go.
 */
function refuseLinksInside(root: string, workspace: string, flag: string, file: string): void {
  const given = path.resolve(file);
  const base = inside(path.resolve(workspace), given) ? path.resolve(workspace) : inside(root, given) ? root : null;
  if (base === null) return;
  let current = base;
  for (const part of path.relative(base, given).split(path.sep)) {
    current = path.join(current, part);
    const stat = fs.lstatSync(current, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isSymbolicLink())
      throw new UsageError(
        `${flag} ${file}: ${current} is a symlink; inside the workspace rein follows only real folders (a repository could point it anywhere). Remove it, or pass a folder outside the workspace`,
      );
  }
}

/** The real path of the longest existing prefix, with the rest appended (a run dir is often not made yet). */
function realOfLongestPrefix(file: string): string {
  let existing = file;
  const rest: string[] = [];
  while (!fs.existsSync(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  try {
    return path.join(fs.realpathSync(existing), ...rest);
  } catch {
    return file;
  }
}

function inside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
