import fs from 'node:fs';
import path from 'node:path';

/** Package caches below the home directory, shown read-only when they exist (a cache the agent could write would outlive the run). */
const PACKAGE_CACHES: readonly string[] = [
  '.cache/pip',
  '.cache/uv',
  '.cache/pypoetry',
  '.cache/pdm',
  '.conda/pkgs',
  '.npm/_cacache',
  '.cache/yarn',
  '.yarn/berry/cache',
  '.local/share/pnpm/store',
  '.cache/pnpm',
  '.bun/install/cache',
  '.cache/deno',
  '.m2/repository',
  '.gradle/caches',
  '.gradle/wrapper/dists',
  '.ivy2/cache',
  '.sbt/boot',
  '.cargo/registry',
  '.cargo/git',
  'go/pkg/mod',
  '.nuget/packages',
  '.cache/ms-playwright',
  '.cache/puppeteer',
  '.cache/Cypress',
  '.cache/huggingface/hub',
  '.cache/pre-commit',
];

/**
 * The caches from `PACKAGE_CACHES` that exist below `home`.
 *
 * @example detectPackageCaches('/home/me') // ['/home/me/.cache/pip', '/home/me/.npm/_cacache']
 */
export function detectPackageCaches(home: string): string[] {
  return PACKAGE_CACHES.map((rel) => path.join(home, rel)).filter((dir) => fs.existsSync(dir));
}
