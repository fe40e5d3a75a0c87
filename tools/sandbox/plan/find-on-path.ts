import fs from 'node:fs';
import path from 'node:path';

/**
 * Finds an executable on a PATH string, like `which`.
 *
 * @example findOnPath('bwrap') // '/usr/bin/bwrap'
 */
export function findOnPath(name: string, pathValue: string | undefined = process.env.PATH): string | null {
  for (const dir of (pathValue ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}
