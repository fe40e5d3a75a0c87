import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a repository's local copy is in a directory of clones or bare
 * mirrors, tried in this order for `owner/name`: `owner__name` (SWE-bench's
 * own naming), `owner/name`, `name`, each also with `.git`. Null when none is
 * a git repository.
 *
 * @example findRepoSource('/data/repos', 'astropy/astropy') // '/data/repos/astropy__astropy.git'
 */
export function findRepoSource(reposDir: string, repo: string): string | null {
  const [owner, name] = repo.split('/') as [string, string];
  const candidates = [`${owner}__${name}`, join(owner, name), name].flatMap((base) => [base, `${base}.git`]);
  for (const candidate of candidates) {
    const path = join(reposDir, candidate);
    if (existsSync(path) && statSync(path).isDirectory() && isGitRepo(path)) return path;
  }
  return null;
}

function isGitRepo(path: string): boolean {
  try {
    execFileSync('git', ['-C', path, 'rev-parse', '--git-dir'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether the repository holds the commit (a mirror fetched before the instance was made does not). */
export function hasCommit(source: string, commit: string): boolean {
  try {
    execFileSync('git', ['-C', source, 'cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
