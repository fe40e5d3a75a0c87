import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The bundled demo repo as a files map, for `runScripted({ files })`. */
export function demoRepoFiles(): Record<string, string> {
  const root = join(import.meta.dirname, '..', '..', 'cli', 'demo', 'repo');
  return Object.fromEntries(readdirSync(root).map((name) => [name, readFileSync(join(root, name), 'utf8')]));
}
