import { join } from 'node:path';
import { packageRoot } from 'rein/lib';

/** A path in this checkout (rein-dev is never installed on its own): the core at the root, each workspace package in its own folder. */
export const inCheckout = (...parts: string[]) => join(packageRoot(), ...parts);

/** The workspace packages' folders: package `rein-<folder>` lives in `<folder>/`. */
const PACKAGE_FOLDERS = ['cli', 'eval', 'telemetry', 'visualizer', 'dev'];

/** A built module by its source path from the checkout: `cli/commands/run.js` is rein-cli's `cli/dist/commands/run.js`, `run/start-run.js` the core's `dist/run/start-run.js`. */
export const built = (path: string) => {
  const [folder, ...rest] = path.split('/');
  return PACKAGE_FOLDERS.includes(folder!) ? inCheckout(folder!, 'dist', ...rest) : inCheckout('dist', path);
};

/** The `rein` command's launcher (rein-cli's bin). */
export const reinBin = () => inCheckout('cli', 'bin', 'rein.js');
