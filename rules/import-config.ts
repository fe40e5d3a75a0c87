import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../lib/errors.js';

/**
 * Loads a `.js/.mjs` rules module, or a `.ts/.mts` one compiled with esbuild
 * first (Node 20 cannot import TypeScript). The module's default export (or
 * its `rules` export) must be a plain object.
 */
export async function importConfigModule(path: string): Promise<unknown> {
  let target = path;
  let cleanup: string | null = null;
  if (extname(path) === '.ts' || extname(path) === '.mts') {
    const { transformSync } = await import('esbuild');
    let code: string;
    try {
      code = transformSync(readFileSync(path, 'utf8'), { loader: 'ts', format: 'esm', sourcefile: path }).code;
    } catch (error) {
      throw new UsageError(`${path}: does not compile: ${(error as Error).message.split('\n')[0]}`);
    }
    cleanup = mkdtempSync(join(tmpdir(), 'rein-config-'));
    target = join(cleanup, 'rein.config.mjs');
    writeFileSync(target, code);
  }
  try {
    const module = (await import(pathToFileURL(target).href)) as { default?: unknown; rules?: unknown };
    return module.default ?? module.rules;
  } catch (error) {
    throw new UsageError(`${path}: failed to load: ${(error as Error).message.split('\n')[0]}`);
  } finally {
    if (cleanup) rmSync(cleanup, { recursive: true, force: true });
  }
}
