import { isAbsolute, sep } from 'node:path';
import type { BuildOptions, OnResolveArgs, PluginBuild } from 'esbuild';
import { UsageError } from '../../lib/errors.js';
import { packageRoot } from '../../lib/package-root.js';

/**
 * How a rules module's imports are found, the same way wherever the module lives and for every command: as Node
 * finds them from the importing file (its own `node_modules`, Node's conditions), and, for a package the module
 * cannot find there but rein brings (`rein`, `rein/testing`, …, and `zod`, in which a tool's parameters are
 * written), rein's own copy. A rules file kept in `~/agents/` needs no `npm install` beside it to import these.
 */

const SKIP = Symbol('resolving inside a rules-module plugin');

/** Packages a rules module may import without installing them: rein's own entry points and zod. */
const PROVIDED_PACKAGE = /^(rein|zod)(\/.*)?$/;

type ResolvedImport =
  /** A file of the module's own, or a file of a package it imports by name (`inPackage`: rein itself too, wherever it is). */
  | { kind: 'file'; path: string; inPackage: boolean }
  /** A Node built-in (`node:fs`). */
  | { kind: 'builtin' }
  /** Not found: esbuild's own words for why. */
  | { kind: 'missing'; why: string };

/**
 * Resolves one import of a rules module as Node would from the importing file; a package rein brings that the
 * module's folder does not have comes from rein's own install.
 *
 * @example const found = await resolveRulesImport(build, args); if (found.kind === 'missing') …
 */
export async function resolveRulesImport(build: PluginBuild, args: OnResolveArgs): Promise<ResolvedImport> {
  const options = { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: SKIP };
  let found = await build.resolve(args.path, options);
  if (found.errors.length > 0 && PROVIDED_PACKAGE.test(args.path)) found = await build.resolve(args.path, { ...options, resolveDir: reinPackageRoot() });
  if (found.errors.length > 0) return { kind: 'missing', why: found.errors[0]!.text };
  if (found.external || !found.path) return { kind: 'builtin' };
  const byPath = args.path.startsWith('.') || isAbsolute(args.path);
  return { kind: 'file', path: found.path, inPackage: !byPath || found.path.split(sep).includes('node_modules') };
}

/** Whether an onResolve call is one of the plugins' own nested resolutions (they return undefined for it). */
export const isNestedResolve = (args: OnResolveArgs): boolean => args.pluginData === SKIP;

/**
 * esbuild's resolver set to resolve as Node does: no `module` condition or main field (Node reads neither), the
 * importer's own conditions (`import`, `require`) and `node`.
 */
export const NODE_RESOLUTION: Pick<BuildOptions, 'platform' | 'conditions' | 'mainFields'> = { platform: 'node', conditions: [], mainFields: ['main'] };

/** The folder of rein's own package.json (the repository or the installed package). */
const reinPackageRoot = packageRoot;

/** esbuild is an optional peer of the core (rein-cli brings it): without it a rules module is refused, never loaded unchecked. */
export async function loadEsbuild(file: string): Promise<typeof import('esbuild')> {
  try {
    return await import('esbuild');
  } catch {
    throw new UsageError(
      `${file}: a rules module needs the esbuild package to list the modules it imports (npm install esbuild, or use the rein-cli package, which brings it); a rules file in JSON or YAML needs nothing`,
    );
  }
}

/**
 * esbuild's failure as a message a person can act on: each error with its place in the file, and for an import that
 * does not resolve, where it was looked for and what to do.
 */
export function describeBuildErrors(error: unknown): string {
  const errors = (error as { errors?: Array<{ text: string; location?: { file: string; line: number; column: number; lineText: string } | null }> }).errors;
  if (!errors || errors.length === 0) return `  ${(error as Error).message}`;
  return errors
    .map((entry) => {
      const where = entry.location ? `${entry.location.file}:${entry.location.line}:${entry.location.column + 1}: ` : '';
      const missing = /^Could not resolve "(.+)"$/.exec(entry.text)?.[1];
      const text = missing ? `${entry.text}${hintFor(missing)}` : entry.text;
      return `  ${where}${text}${entry.location ? `\n    ${entry.location.lineText.trim()}` : ''}`;
    })
    .join('\n');
}

function hintFor(specifier: string): string {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return ' (no such file; the path is relative to the importing file)';
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
  return ` (the package is not installed where the rules module is: run \`npm install ${name}\` in its folder or one above it; rein brings only rein and zod)`;
}
