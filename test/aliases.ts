import { join } from 'node:path';

/**
 * Tests run every workspace package from source: `rein/<path>.js` is this checkout's `<path>.ts`, and
 * `rein-visualizer/<path>.js` (and the other packages) the package folder's. Taken from where this file is, so a
 * Stryker sandbox (a copy of the checkout) imports its own mutated core, not the original through node_modules.
 */
const root = join(import.meta.dirname, '..');
/** Each workspace package by name, and its folder: `rein-<folder>`. */
const PACKAGES = ['telemetry', 'visualizer', 'eval', 'cli', 'dev'];

export const sourceAliases = [
  { find: /^rein$/, replacement: join(root, 'index.ts') },
  { find: /^rein\/(.+)\.js$/, replacement: join(root, '$1.ts') },
  ...PACKAGES.map((folder) => ({ find: new RegExp(`^rein-${folder}/(.+)\\.js$`), replacement: join(root, folder, '$1.ts') })),
];
