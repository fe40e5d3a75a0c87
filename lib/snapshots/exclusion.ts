import ignore from 'ignore';

/**
 * What a snapshot never holds and a restore never touches: every `.git` (the sandbox gives commands a private copy, so
 * the real one never changes, and rein never writes into it) and the workspace's `.rein/` (the run's own files), plus
 * the rules' `snapshots.exclude` patterns (gitignore syntax, relative to the workspace).
 *
 * @example const excluded = snapshotExclusion(['node_modules/']); excluded('node_modules', true) // true
 */
export function snapshotExclusion(patterns: readonly string[]): (path: string, isDir: boolean) => boolean {
  const rules = patterns.length > 0 ? ignore().add([...patterns]) : null;
  return (path, isDir) => {
    const base = path.slice(path.lastIndexOf('/') + 1);
    if (base.toLowerCase() === '.git') return true;
    if (path === '.rein') return true;
    return rules ? rules.ignores(isDir ? `${path}/` : path) : false;
  };
}
