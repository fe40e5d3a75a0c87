import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../lib/package-root.js';

/** The shell programs of the process layer, shipped as `.sh` files beside this module's source (checked by `bash -n` and shellcheck in the tests). */
export type ShellScript = 'supervisor.sh' | 'watchdog.sh';

const cache = new Map<ShellScript, string>();

/**
 * A shell program's text, read once from the package. It is handed to `bash -c`, so the file itself need not be
 * visible inside the sandbox.
 *
 * @example spawn('bash', ['--norc', '-c', shellScript('supervisor.sh'), 'rein-supervisor', token, grace, scope])
 */
export function shellScript(name: ShellScript): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(join(packageRoot(), 'process', name), 'utf8');
    cache.set(name, text);
  }
  return text;
}
