import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Loader, Plugin } from 'esbuild';
import { UsageError } from '../../lib/errors.js';
import { readRegularFile } from '../../lib/regular-file.js';
import { describeBuildErrors, isNestedResolve, loadEsbuild, NODE_RESOLUTION, resolveRulesImport } from '../../rules/trust/module-resolution.js';

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
 * Loads a rules module (`.ts`, `.mts`, `.js`, `.mjs`) the same way wherever it lives: esbuild compiles it and the
 * files of its own it imports (TypeScript helpers included; Node 20 cannot import TypeScript) into one module, each
 * keeping its own `import.meta.url`; packages are imported by Node from where the module finds them, and `rein` or
 * `zod` from rein's own install when the module's folder has neither. The compiled module is written to a private
 * temporary folder (never beside the rules file, which may be read-only), imported, and removed.
 *
 * @example const module = await importConfigModule('/home/me/agents/my.rules.ts'); module.default // the rules
 */
export async function importConfigModule(path: string): Promise<ConfigModule> {
  const code = await compileRulesModule(path);
  const dir = mkdtempSync(join(tmpdir(), 'rein-rules-'));
  try {
    const target = join(dir, 'rules.mjs');
    writeFileSync(target, code, { flag: 'wx', mode: 0o600 });
    return (await import(pathToFileURL(target).href)) as ConfigModule;
  } catch (error) {
    throw new UsageError(`${path}: failed to load: ${(error as Error).message.split('\n')[0]}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const LOADERS: Record<string, Loader> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
  '.json': 'json',
};

/** What each compiled file's `import.meta.url`, `.filename` and `.dirname` are replaced with: constants of that file's own. */
const META = { url: '__rein_import_meta_url', filename: '__rein_import_meta_filename', dirname: '__rein_import_meta_dirname' };

/** The constants a compiled file starts with, so it sees its own place, not the compiled module's. */
function ownPlace(file: string): string {
  const values = { url: pathToFileURL(file).href, filename: file, dirname: dirname(file) };
  return Object.entries(META)
    .map(([key, name]) => `const ${name} = ${JSON.stringify(values[key as keyof typeof values])};`)
    .join(' ');
}

async function compileRulesModule(path: string): Promise<string> {
  const { build } = await loadEsbuild(path);
  const ownFiles: Plugin = {
    name: 'rules-module-files',
    setup(context) {
      context.onResolve({ filter: /.*/ }, async (args) => {
        if (isNestedResolve(args)) return undefined;
        if (args.kind === 'entry-point') return { path: resolve(args.path), namespace: 'rules-file' };
        const found = await resolveRulesImport(context, args);
        if (found.kind === 'missing') return undefined;
        if (found.kind === 'builtin') return { path: args.path, external: true };
        // A package is imported by Node itself, by its full path: one copy of it, as the module would have it.
        if (found.inPackage || !(extname(found.path) in LOADERS)) return { path: pathToFileURL(found.path).href, external: true };
        return { path: found.path, namespace: 'rules-file' };
      });
      context.onLoad({ filter: /.*/, namespace: 'rules-file' }, (args) => ({
        contents: `${ownPlace(args.path)}\n${readRegularFile(args.path, 'utf8')}`,
        loader: LOADERS[extname(args.path)] ?? 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
  try {
    const result = await build({
      ...NODE_RESOLUTION,
      plugins: [ownFiles],
      entryPoints: [path],
      bundle: true,
      write: false,
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      define: Object.fromEntries(Object.entries(META).map(([key, name]) => [`import.meta.${key}`, name])),
    });
    const code = result.outputFiles[0]!.text;
    // CommonJS code in the bundle calls require() for packages: give it Node's, as seen from the rules file.
    return code.includes('__require(')
      ? `import { createRequire as __reinCreateRequire } from 'node:module';\nconst require = __reinCreateRequire(${JSON.stringify(pathToFileURL(path).href)});\n${code}`
      : code;
  } catch (error) {
    throw new UsageError(`${path}: does not compile:\n${describeBuildErrors(error)}`);
  }
}
