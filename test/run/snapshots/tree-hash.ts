import { execFileSync } from 'node:child_process';

/**
 * A hash of a workspace computed by find and sha256sum, independently of rein's snapshots: every entry's type, mode,
 * path, link target and content, `.git` and `.rein/` left out. The same script runs inside a run (its output lands in
 * the record) and on the host after a rewind.
 */
export const TREE_HASH_SCRIPT =
  "printf 'TREE %s\\n' \"$(find . -mindepth 1 \\( -name .git -o -path ./.rein \\) -prune -o \\( -type f -printf '%y %m %p ' -exec sha256sum {} \\; \\) -o -printf '%y %m %p %l\\n' | LC_ALL=C sort | sha256sum | cut -c1-64)\"";

/** The hash of `dir` as the script prints it. */
export function treeHash(dir: string): string {
  const out = execFileSync('bash', ['-c', TREE_HASH_SCRIPT], { cwd: dir, encoding: 'utf8' });
  return /TREE ([0-9a-f]{64})/.exec(out)![1]!;
}
