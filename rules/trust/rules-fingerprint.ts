import { extname, isAbsolute, relative, resolve } from 'node:path';
import type { Plugin } from 'esbuild';
import { UsageError } from '../../lib/errors.js';
import { readRegularFile } from '../../lib/regular-file.js';
import { sha256 } from '../../lib/sha256.js';
import { realKey } from '../../lib/state/state-records.js';
import type { RulesFingerprint } from './trusted-rules.js';

const CODE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];
const SKIP = Symbol('resolving for the workspace-only plugin');

/** Whether a rules file is code rein would import (as opposed to data it parses). */
export function isCodeRulesFile(file: string): boolean {
  return CODE_EXTENSIONS.includes(extname(file));
}

/**
 * The rules file's hash and the hashes of the modules inside the workspace it imports, found without running it:
 * esbuild follows every static `import`, `require()` and `import()` of a literal (or template) path through the
 * workspace and its `node_modules`. Modules outside the workspace (rein's own install, Node's built-ins) are left
 * out: no sandboxed command can write them. A data file (JSON, YAML) has no modules.
 *
 * @example await fingerprintRules('/w/repo/rein.config.mjs', '/w/repo') // { hash, modules: { '/w/repo/helper.mjs': '…' } }
 */
export async function fingerprintRules(file: string, workspace: string | undefined): Promise<RulesFingerprint> {
  const hash = sha256(readRegularFile(file));
  if (!isCodeRulesFile(file) || !workspace) return { hash, modules: {} };
  const root = realKey(workspace);
  const self = realKey(file);
  const modules: Record<string, string> = {};
  for (const input of await importedFiles(file, root)) {
    const real = realKey(input);
    if (real === self || !inside(root, real)) continue;
    modules[real] = sha256(readRegularFile(real));
  }
  return { hash, modules: Object.fromEntries(Object.entries(modules).sort(([a], [b]) => a.localeCompare(b))) };
}

async function importedFiles(given: string, root: string): Promise<string[]> {
  const { build } = await loadEsbuild(given);
  const file = resolve(given);
  const cwd = resolve(file, '..');
  // What resolves outside the workspace is not followed: no sandboxed command can change it, and rein itself or a
  // library would be parsed whole on every load.
  const workspaceOnly: Plugin = {
    name: 'workspace-only',
    setup(context) {
      context.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === SKIP) return undefined;
        const found = await context.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: SKIP });
        if (found.errors.length > 0 || found.external || !found.path) return undefined;
        return inside(root, realKey(found.path)) ? { path: found.path } : { path: args.path, external: true };
      });
    },
  };
  try {
    const result = await build({
      plugins: [workspaceOnly],
      entryPoints: [file],
      absWorkingDir: cwd,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
      // Only the graph is wanted: files of any kind are inputs, none is compiled into anything.
      loader: { '.node': 'empty', '.wasm': 'empty', '.css': 'empty', '.txt': 'text' },
    });
    return Object.keys(result.metafile.inputs).map((input) => resolve(cwd, input.replace(/^[a-z-]+:/, '')));
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string }> }).errors?.[0]?.text ?? (error as Error).message;
    throw new UsageError(`${file}: cannot list the modules it imports (${first}); rein loads a rules module only once it knows what it runs`);
  }
}

/** esbuild is an optional peer of the core (rein-cli brings it): without it a rules module is refused, never loaded unchecked. */
async function loadEsbuild(file: string): Promise<typeof import('esbuild')> {
  try {
    return await import('esbuild');
  } catch {
    throw new UsageError(
      `${file}: a rules module needs the esbuild package to list the modules it imports (npm install esbuild, or use the rein-cli package, which brings it); a rules file in JSON or YAML needs nothing`,
    );
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
