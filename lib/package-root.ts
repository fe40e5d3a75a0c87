import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | null = null;

/**
 * rein's own folder (where its package.json is), found from this file,
 * whether it runs compiled from dist/ or as source under a test runner; from a
 * copy bundled into another package (the rein command's), by Node's resolution
 * of `rein` from there.
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
  try {
    root = dirname(createRequire(import.meta.url).resolve('rein/package.json'));
    return root;
  } catch {
    throw new Error('rein: cannot find its own package.json');
  }
}
