import { join } from 'node:path';

/**
 * Tests run every workspace package from source: `rein/<path>.js` is this checkout's `<path>.ts`, and
 * `rein-viz/<path>.js` (and the other packages) the package folder's. Taken from where this file is, so a
 * Stryker sandbox (a copy of the checkout) imports its own mutated core, not the original through node_modules.
 */
const root = import.meta.dirname;
const PACKAGES = ['rein-otel', 'rein-viz', 'rein-eval', 'rein-cli', 'rein-dev'];

export const sourceAliases = [
  { find: /^rein$/, replacement: join(root, 'index.ts') },
  { find: /^rein\/(.+)\.js$/, replacement: join(root, '$1.ts') },
  ...PACKAGES.map((name) => ({ find: new RegExp(`^${name}/(.+)\\.js$`), replacement: join(root, 'packages', name, '$1.ts') })),
];
