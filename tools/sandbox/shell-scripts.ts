import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../lib/package-root.js';

/** The sandbox's shell programs, shipped as `.sh` files in the package (checked by `bash -n` and shellcheck in the tests), by where they are. */
export const SHELL_SCRIPTS = {
  'supervisor.sh': 'tools/sandbox/supervisor/supervisor.sh',
  'watchdog.sh': 'tools/sandbox/launch/watchdog.sh',
} as const;
type ShellScript = keyof typeof SHELL_SCRIPTS;

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
    text = readFileSync(join(packageRoot(), SHELL_SCRIPTS[name]), 'utf8');
    cache.set(name, text);
  }
  return text;
}
