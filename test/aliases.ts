import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Tests run every workspace package from source: each entry point of the core's package.json `exports` (`rein`,
 * `rein/run`, `rein/sandbox`, …) is its source file, `rein/<path>.js` this checkout's `<path>.ts`, and
 * `rein-visualizer/<path>.js` (and the other packages) the package folder's. Taken from where this file is, so a Stryker
 * sandbox (a copy of the checkout) imports its own mutated core, not the original through node_modules.
 */
const root = join(import.meta.dirname, '..');
/** Each workspace package by name, and its folder: `rein-<folder>`. */
const PACKAGES = ['telemetry', 'visualizer', 'eval', 'cli', 'dev'];

const exported = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | { default: string }> }).exports;
/** `./run` → `run/index.ts`: the source of each entry point the core declares. */
const entryPoints = Object.entries(exported).flatMap(([subpath, target]) =>
  typeof target === 'object' && subpath !== '.'
    ? [{ subpath: subpath.slice(2), source: target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts') }]
    : [],
);

export const sourceAliases = [
  { find: /^rein$/, replacement: join(root, 'index.ts') },
  ...entryPoints.map(({ subpath, source }) => ({ find: new RegExp(`^rein/${subpath}$`), replacement: join(root, source) })),
  { find: /^rein\/(.+)\.js$/, replacement: join(root, '$1.ts') },
  ...PACKAGES.map((folder) => ({ find: new RegExp(`^rein-${folder}/(.+)\\.js$`), replacement: join(root, folder, '$1.ts') })),
];
