import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parse } from '@babel/parser';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

/**
 * Every export of rein's code is imported somewhere: by another module, a test, or through one of the core's declared
 * entry points (package.json `exports`). An export nobody imports is dead, or should not be an export.
 */
const sources = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mts'], { cwd: repoRoot, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && !file.includes('/repo/') && !file.endsWith('.d.ts'));
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { exports: Record<string, string | { default: string }> };
const entryPoints = new Map(
  Object.entries(manifest.exports).flatMap(([subpath, target]) =>
    typeof target === 'object'
      ? [[subpath === '.' ? 'rein' : `rein/${subpath.slice(2)}`, target.default.replace('./dist/', '').replace(/\.js$/, '.ts')] as const]
      : [],
  ),
);
const PACKAGE_FOLDERS: Record<string, string> = {
  'rein-cli': 'cli',
  'rein-visualizer': 'visualizer',
  'rein-eval': 'eval',
  'rein-telemetry': 'telemetry',
  'rein-dev': 'dev',
};

/** The file of the checkout an import names, or null for a package outside it. */
function fileOf(importer: string, spec: string): string | null {
  if (entryPoints.has(spec)) return entryPoints.get(spec)!;
  let path: string;
  if (spec.startsWith('.')) path = relative(repoRoot, resolve(repoRoot, dirname(importer), spec));
  else {
    const named = /^(rein(?:-[a-z]+)?)\/(.+)$/.exec(spec);
    if (!named) return null;
    path = named[1] === 'rein' ? named[2]! : `${PACKAGE_FOLDERS[named[1]!]}/${named[2]!}`;
  }
  return [path.replace(/\.js$/, '.ts'), path.replace(/\.mjs$/, '.mts')].find((candidate) => existsSync(join(repoRoot, candidate))) ?? null;
}

interface Usage {
  exported: Map<string, Set<string>>;
  imported: Map<string, Set<string>>;
}

/** What each file exports, and which names of which files anything imports (statically, dynamically, or as a module object). */
function readUsage(files: readonly string[]): Usage {
  const exported = new Map<string, Set<string>>();
  const imported = new Map<string, Set<string>>();
  const use = (file: string | null, name: string) => {
    if (file) imported.set(file, (imported.get(file) ?? new Set()).add(name));
  };
  const namesReadFrom = (text: string, local: string, file: string | null) => {
    for (const match of text.matchAll(new RegExp(`\\b${local}\\.(\\w+)`, 'g'))) use(file, match[1]!);
  };
  const stars: Array<[string, string]> = [];
  for (const file of files) {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    const names = new Set<string>();
    for (const node of parse(text, { sourceType: 'module', plugins: ['typescript'] }).program.body) {
      if (node.type === 'ExportNamedDeclaration') {
        const declaration = node.declaration as { id?: { name: string }; declarations?: Array<{ id: { name?: string } }> } | null;
        if (declaration?.id) names.add(declaration.id.name);
        for (const variable of declaration?.declarations ?? []) if (variable.id.name) names.add(variable.id.name);
        for (const specifier of node.specifiers) {
          if (specifier.type !== 'ExportSpecifier') continue;
          names.add(specifier.exported.type === 'Identifier' ? specifier.exported.name : specifier.exported.value);
          if (node.source) use(fileOf(file, node.source.value), specifier.local.name);
        }
      } else if (node.type === 'ExportAllDeclaration') {
        const from = fileOf(file, node.source.value);
        if (from) stars.push([file, from]);
      } else if (node.type === 'ImportDeclaration') {
        const from = fileOf(file, node.source.value);
        for (const specifier of node.specifiers) {
          if (specifier.type === 'ImportNamespaceSpecifier') namesReadFrom(text, specifier.local.name, from);
          else
            use(
              from,
              specifier.type === 'ImportDefaultSpecifier'
                ? 'default'
                : specifier.imported.type === 'Identifier'
                  ? specifier.imported.name
                  : specifier.imported.value,
            );
        }
      }
    }
    for (const match of text.matchAll(/\{([^{}]*)\}\s*=\s*await import\(\s*['"]([^'"]+)['"]\s*\)/g))
      for (const name of match[1]!.split(',')) use(fileOf(file, match[2]!), name.split(':')[0]!.trim());
    for (const match of text.matchAll(/const (\w+) = await import\(\s*['"]([^'"]+)['"]\s*\)/g)) namesReadFrom(text, match[1]!, fileOf(file, match[2]!));
    for (const match of text.matchAll(/\(await import\(\s*['"]([^'"]+)['"]\s*\)\)\.(\w+)/g)) use(fileOf(file, match[1]!), match[2]!);
    exported.set(file, names);
  }
  for (const [, from] of stars) for (const name of exported.get(from) ?? []) use(from, name);
  return { exported, imported };
}

describe('the exports of rein’s code', () => {
  const { exported, imported } = readUsage(sources);

  it('are read from every module (a scan that finds nothing proves nothing)', () => {
    expect(exported.get('run/start-run.ts')).toContain('startRun');
    expect(imported.get('run/start-run.ts')).toContain('startRun');
    // A module object's names count: a test that does `const exits = await import(…)` and reads `exits.canHold`.
    expect(imported.get('machines/phase-exits.ts')).toContain('canHold');
  });

  it('are each imported somewhere, or an entry point of the core', () => {
    const entryFiles = new Set(entryPoints.values());
    // The CLI's main is imported by bin/rein.js, a plain script, by a URL it computes.
    const dead = [...exported].flatMap(([file, names]) =>
      file.startsWith('test/') || file.startsWith('docs/') || entryFiles.has(file)
        ? []
        : [...names].filter((name) => !(imported.get(file)?.has(name) || (file === 'cli/main.ts' && name === 'main'))).map((name) => `${file} ${name}`),
    );
    expect(dead).toEqual([]);
  });
});
