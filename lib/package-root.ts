import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | null = null;

/**
 * rein's own folder (where its package.json is), found from this file,
 * whether it runs compiled from dist/ or as source under a test runner.
 *
 * @example join(packageRoot(), 'docs', 'cookbook')
 */
export function packageRoot(): string {
  if (root) return root;
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'rein') {
      root = dir;
      return dir;
    }
  }
  throw new Error('rein: cannot find its own package.json');
}
