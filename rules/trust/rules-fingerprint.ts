import { extname, isAbsolute, relative, resolve } from 'node:path';
import type { Plugin } from 'esbuild';
import { UsageError } from '../../lib/errors.js';
import { readRegularFile } from '../../lib/regular-file.js';
import { sha256 } from '../../lib/sha256.js';
import { realKey } from '../../lib/state/state-records.js';
import { describeBuildErrors, isNestedResolve, loadEsbuild, NODE_RESOLUTION, resolveRulesImport } from './module-resolution.js';
import type { RulesFingerprint } from './trusted-rules.js';

const CODE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

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
  // library would be parsed whole on every load. The rules file itself is always read, wherever it lives.
  const workspaceOnly: Plugin = {
    name: 'workspace-only',
    setup(context) {
      context.onResolve({ filter: /.*/ }, async (args) => {
        if (isNestedResolve(args) || args.kind === 'entry-point') return undefined;
        const found = await resolveRulesImport(context, args);
        if (found.kind === 'missing') return undefined;
        if (found.kind === 'builtin') return { path: args.path, external: true };
        return inside(root, realKey(found.path)) ? { path: found.path } : { path: args.path, external: true };
      });
    },
  };
  try {
    const result = await build({
      ...NODE_RESOLUTION,
      plugins: [workspaceOnly],
      entryPoints: [file],
      absWorkingDir: cwd,
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      logLevel: 'silent',
      // Only the graph is wanted: files of any kind are inputs, none is compiled into anything.
      loader: { '.node': 'empty', '.wasm': 'empty', '.css': 'empty', '.txt': 'text' },
    });
    return Object.keys(result.metafile.inputs).map((input) => resolve(cwd, input.replace(/^[a-z-]+:/, '')));
  } catch (error) {
    throw new UsageError(`${file}: cannot be loaded (rein reads every module a rules module imports before it runs it):\n${describeBuildErrors(error)}`);
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
