import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanEnv, repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * The floors of rein's import graph. The core (what `import … from 'rein'` and a
 * run need) may import only from a lower floor, or within its own folder; the
 * periphery (CLI, visualizer, eval, telemetry, benchmarks, docs) may import the
 * core, and only the periphery folders named in PERIPHERY_MAY_IMPORT. A folder
 * that is in neither table fails the test: a new folder is placed on purpose.
 */
const CORE_FLOORS: Record<string, number> = {
  lib: 0,
  // Pure policy (approval rules and their evaluation; hook specs, trust and runner), read by the rules and the machine.
  approvals: 0.5,
  hooks: 0.5,
  process: 1,
  context: 1,
  rules: 1,
  tools: 2,
  machines: 2,
  actors: 3,
  mcp: 3,
  config: 3,
  run: 4,
  coverage: 4,
  demo: 4,
  testing: 5,
  '(root)': 5,
};

const PERIPHERY_MAY_IMPORT: Record<string, readonly string[]> = {
  telemetry: [],
  visualizer: [],
  eval: ['visualizer', 'telemetry'],
  replay: ['visualizer'],
  cli: ['telemetry', 'visualizer', 'eval', 'replay'],
  bench: ['telemetry', 'visualizer', 'eval', 'replay'],
  docs: ['cli', 'visualizer'],
};

const SKIPPED = new Set(['node_modules', 'dist', 'test', '.git', '.ci', 'reports', '.stryker-tmp', 'repo']);

interface Edge {
  file: string;
  from: string;
  to: string;
  spec: string;
}

function sourceFiles(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIPPED.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, found);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

const folderOf = (path: string) => {
  const inRepo = relative(repoRoot, path);
  return inRepo.includes('/') ? inRepo.split('/')[0]! : '(root)';
};

/** Every relative import, static, re-export or dynamic, that crosses a top-level folder. */
function crossingImports(files: string[]): Edge[] {
  const edges: Edge[] = [];
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(pattern)) {
      const spec = (match[1] ?? match[2])!;
      const from = folderOf(file);
      const to = folderOf(resolve(dirname(file), spec));
      if (from !== to) edges.push({ file: relative(repoRoot, file), from, to, spec });
    }
  }
  return edges;
}

/** Why an edge breaks the layering, or null when it may stand. */
function layerViolation(edge: Pick<Edge, 'from' | 'to'>): string | null {
  const known = (folder: string) => folder in CORE_FLOORS || folder in PERIPHERY_MAY_IMPORT;
  if (!known(edge.from)) return `${edge.from}/ is on no floor: add it to CORE_FLOORS or PERIPHERY_MAY_IMPORT`;
  if (!known(edge.to)) return `${edge.to}/ is on no floor: add it to CORE_FLOORS or PERIPHERY_MAY_IMPORT`;
  const fromFloor = CORE_FLOORS[edge.from];
  const toFloor = CORE_FLOORS[edge.to];
  if (fromFloor !== undefined) {
    if (toFloor === undefined) return `the core (${edge.from}/) imports the periphery (${edge.to}/)`;
    return toFloor < fromFloor ? null : `${edge.from}/ (floor ${fromFloor}) imports ${edge.to}/ (floor ${toFloor}), which is not below it`;
  }
  if (toFloor !== undefined) return null;
  return PERIPHERY_MAY_IMPORT[edge.from]!.includes(edge.to) ? null : `${edge.from}/ imports ${edge.to}/, which it is not allowed to`;
}

describe('the import graph', () => {
  const files = sourceFiles(repoRoot);
  const edges = crossingImports(files);

  it('is read from the sources (a scan that finds nothing proves nothing)', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(edges.some((edge) => edge.from === 'machines' && edge.to === 'rules')).toBe(true);
    expect(edges.some((edge) => edge.from === 'cli' && edge.to === 'visualizer')).toBe(true);
  });

  it('only goes down: the core never imports the periphery, and each core floor only lower floors', () => {
    const broken = edges.flatMap((edge) => {
      const why = layerViolation(edge);
      return why ? [`${edge.file} imports ${edge.spec}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('names what is wrong with an arrow back up', () => {
    // The one arrow back up this test was written for: lib/trace-events.ts importing from rules/.
    expect(layerViolation({ from: 'lib', to: 'rules' })).toBe('lib/ (floor 0) imports rules/ (floor 1), which is not below it');
    expect(layerViolation({ from: 'tools', to: 'machines' })).toMatch(/not below it/);
    expect(layerViolation({ from: 'run', to: 'visualizer' })).toBe('the core (run/) imports the periphery (visualizer/)');
    expect(layerViolation({ from: 'visualizer', to: 'cli' })).toMatch(/not allowed/);
    expect(layerViolation({ from: 'plugins', to: 'lib' })).toMatch(/on no floor/);
    expect(layerViolation({ from: 'machines', to: 'rules' })).toBeNull();
  });
});

describe('a run', () => {
  // A resolve hook in the child records every package and every rein module it loads.
  it('loads only the core: no queue client, exporter, layout engine, bundler, or periphery module', () => {
    const dir = makeTempDir('rein-loaded-');
    const hooks = join(dir, 'hooks.mjs');
    const log = join(dir, 'loaded.txt');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    const demo = spawnSync(process.execPath, ['--import', register, join(repoRoot, 'packages', 'rein-cli', 'bin', 'rein.js'), 'demo'], {
      encoding: 'utf8',
      env: cleanEnv(),
      timeout: 60_000,
    });
    expect(demo.status, demo.stderr).toBe(0);
    const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const packages = new Set(urls.flatMap((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? []));
    const reinFolders = new Set(urls.flatMap((url) => new RegExp(`${pathToFileURL(join(repoRoot, 'dist')).href}/([^/]+)/`).exec(url)?.[1] ?? []));
    expect(packages.has('xstate')).toBe(true);
    for (const heavy of [
      'bullmq',
      'ioredis',
      'elkjs',
      'esbuild',
      '@opentelemetry/api',
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/exporter-trace-otlp-http',
    ])
      expect(packages.has(heavy), `${heavy} was loaded`).toBe(false);
    expect(reinFolders.has('run')).toBe(true);
    for (const folder of ['eval', 'bench', 'coverage']) expect(reinFolders.has(folder), `dist/${folder}/ was loaded`).toBe(false);
    // The CLI reads the visualizer's flag parser only (the --viz flags); none of its server, layout or page.
    const visualizer = urls.filter((url) => url.includes('/dist/visualizer/'));
    expect(visualizer.length).toBeGreaterThan(0);
    expect(visualizer.filter((url) => !url.endsWith('/viz-flags.js'))).toEqual([]);
  });
});
