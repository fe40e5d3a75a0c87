import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../../lib/errors.js';
import { readRegularFile } from '../../lib/regular-file.js';

/** What a rules module may export: the rules (default or `rules`), and guards and tools registered from code. */
export interface ConfigModule {
  default?: unknown;
  rules?: unknown;
  guards?: unknown;
  tools?: unknown;
  actions?: unknown;
  /** Hook functions by name, for `hooks.<moment>[].function` entries. */
  hookFunctions?: unknown;
}

/**
 * Loads a `.js/.mjs` rules module, or a `.ts/.mts` one compiled with esbuild
 * first (Node 20 cannot import TypeScript). Its default export (or `rules`)
 * is the rules object; `guards` and `tools` exports extend the registries.
 */
export async function importConfigModule(path: string): Promise<ConfigModule> {
  let target = path;
  let cleanup: string | null = null;
  if (extname(path) === '.ts' || extname(path) === '.mts') {
    const { transformSync } = await import('esbuild');
    let code: string;
    try {
      code = transformSync(readRegularFile(path, 'utf8'), { loader: 'ts', format: 'esm', sourcefile: path }).code;
    } catch (error) {
      throw new UsageError(`${path}: does not compile:\n${compileErrors(error)}`);
    }
    // Written beside the source so its imports (zod, your own modules) resolve as they would for the .ts file.
    // A new name, created exclusively: a link or file planted under it beforehand is never written through.
    target = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.mjs`);
    writeFileSync(target, code, { flag: 'wx', mode: 0o600 });
    cleanup = target;
  }
  try {
    return (await import(pathToFileURL(target).href)) as ConfigModule;
  } catch (error) {
    throw new UsageError(`${path}: failed to load: ${(error as Error).message.split('\n')[0]}`);
  } finally {
    if (cleanup) rmSync(cleanup, { force: true });
  }
}

/** esbuild's errors as `line:column: message`, one per line (its own message only says how many there were). */
function compileErrors(error: unknown): string {
  const errors = (error as { errors?: Array<{ text: string; location?: { line: number; column: number; lineText: string } | null }> }).errors;
  if (!errors || errors.length === 0) return `  ${(error as Error).message}`;
  return errors
    .map((entry) => {
      const where = entry.location ? `${entry.location.line}:${entry.location.column + 1}: ` : '';
      return `  ${where}${entry.text}${entry.location ? `\n    ${entry.location.lineText.trim()}` : ''}`;
    })
    .join('\n');
}
