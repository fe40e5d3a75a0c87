import { join } from 'node:path';
import { packageRoot } from 'rein/lib/package-root.js';

/** A path in this checkout (rein-dev is never installed on its own): the core at the root, the other packages under packages/. */
export const inCheckout = (...parts: string[]) => join(packageRoot(), ...parts);

/** A built module of the core (`rein`) or of a workspace package, e.g. built('rein-eval', 'eval/queue/coordinator.js'). */
export const built = (pkg: string, path: string) => (pkg === 'rein' ? inCheckout('dist', path) : inCheckout('packages', pkg, 'dist', path));

/** The `rein` command's launcher (rein-cli's bin). */
export const reinBin = () => inCheckout('packages', 'rein-cli', 'bin', 'rein.js');
