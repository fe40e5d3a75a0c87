import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanEnv, reinBin, repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * The floors of rein's import graph. The core (the `rein` package at the root: what
 * `import … from 'rein'` and a run need) may import only from a lower floor, or within
 * its own folder; the periphery (CLI, visualizer, eval, telemetry, benchmarks, docs; each
 * folder in a workspace package under packages/) may import the core, and only the
 * periphery folders named in PERIPHERY_MAY_IMPORT. A folder that is in neither table fails
 * the test: a new folder is placed on purpose.
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

/** The workspace package each periphery folder lives in (packages/<name>/<folder>/); the core's folders are at the root. */
const PACKAGE_OF: Record<string, string> = {
  telemetry: 'rein-otel',
  visualizer: 'rein-viz',
  eval: 'rein-eval',
  replay: 'rein-cli',
  cli: 'rein-cli',
  bench: 'rein-dev',
  docs: 'rein-dev',
};

const SKIPPED = new Set(['node_modules', 'dist', 'test', '.git', '.ci', 'reports', '.stryker-tmp', 'repo']);

interface Edge {
  file: string;
  from: string;
  to: string;
  spec: string;
  fromPackage: string;
  toPackage: string;
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

/** The package a file is in: `rein` (the core, at the root) or a workspace package's name. */
const packageOf = (path: string) => /^packages\/([^/]+)\//.exec(relative(repoRoot, path))?.[1] ?? 'rein';

/** A file's top-level folder inside its package (`cli` for packages/rein-cli/cli/main.ts), or '(root)'. */
const folderOf = (path: string) => {
  const inRepo = relative(repoRoot, path);
  const inPackage = packageOf(path) === 'rein' ? inRepo : inRepo.split('/').slice(2).join('/');
  return inPackage.includes('/') ? inPackage.split('/')[0]! : '(root)';
};

/** Where an import names a file: relative to the importer, or the core (`rein/…`) or a workspace package (`rein-viz/…`) by name. */
function targetOf(file: string, spec: string): string | null {
  if (spec.startsWith('.')) return resolve(dirname(file), spec);
  if (spec === 'rein') return join(repoRoot, 'index.ts');
  const named = /^(rein(?:-[a-z]+)?)\/(.+)$/.exec(spec);
  if (!named) return null;
  return named[1] === 'rein' ? join(repoRoot, named[2]!) : join(repoRoot, 'packages', named[1]!, named[2]!);
}

/** Every import of a rein file, static, re-export or dynamic, relative or by package name, that crosses a top-level folder. */
function crossingImports(files: string[]): Edge[] {
  const edges: Edge[] = [];
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"]((?:\.|rein\b)[^'"]*)['"]|import\(\s*['"]((?:\.|rein\b)[^'"]*)['"]\s*\)/g;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(pattern)) {
      const spec = (match[1] ?? match[2])!;
      const target = targetOf(file, spec);
      if (!target) continue;
      const from = folderOf(file);
      const to = folderOf(target);
      if (from !== to || packageOf(file) !== packageOf(target))
        edges.push({ file: relative(repoRoot, file), from, to, spec, fromPackage: packageOf(file), toPackage: packageOf(target) });
    }
  }
  return edges;
}

/** Why an edge breaks the package boundaries, or null: another package is named, never reached by a relative path, and declared as a dependency. */
function packageViolation(edge: Edge, declared: (pkg: string) => readonly string[]): string | null {
  if (edge.fromPackage === edge.toPackage) return edge.spec.startsWith('rein') ? `${edge.fromPackage} imports itself by name` : null;
  if (edge.spec.startsWith('.')) return `a relative path out of ${edge.fromPackage} into ${edge.toPackage}: import it as '${edge.toPackage}/…'`;
  const expected = PACKAGE_OF[edge.from] ?? 'rein';
  if (edge.fromPackage !== expected) return `${edge.from}/ belongs in ${expected}, not ${edge.fromPackage}`;
  return declared(edge.fromPackage).includes(edge.toPackage) ? null : `${edge.toPackage} is not a dependency of ${edge.fromPackage}`;
}

function manifestOf(pkg: string): { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(repoRoot, ...(pkg === 'rein' ? [] : ['packages', pkg]), 'package.json'), 'utf8'));
}
const dependenciesOf = (pkg: string) => Object.keys({ ...manifestOf(pkg).dependencies, ...manifestOf(pkg).peerDependencies });

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

  it('crosses packages only by name, into a declared dependency, each folder in its own package', () => {
    expect(edges.some((edge) => edge.fromPackage === 'rein-cli' && edge.toPackage === 'rein' && edge.spec.startsWith('rein/'))).toBe(true);
    const broken = edges.flatMap((edge) => {
      const why = packageViolation(edge, dependenciesOf);
      return why ? [`${edge.file} imports ${edge.spec}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it("finds every package a file imports declared in its own package.json (the core installs without the periphery's)", () => {
    const builtins = new Set(builtinModules);
    // The root's other .ts files are the test runner's configs (dev tooling, not in the package).
    const shipped = files.filter((file) => folderOf(file) !== '(root)' || relative(repoRoot, file) === 'index.ts' || packageOf(file) !== 'rein');
    expect(shipped.length).toBeGreaterThan(200);
    const undeclared = shipped.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const declared = new Set([...dependenciesOf(packageOf(file)), packageOf(file)]);
      return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"]([^.'"][^'"]*)['"]|import\(\s*['"]([^.'"][^'"]*)['"]\s*\)/g)].flatMap(
        (match) => {
          const spec = (match[1] ?? match[2])!;
          const name = /^(@[^/]+\/[^/]+|[^/]+)/.exec(spec)![1]!;
          return spec.startsWith('node:') || builtins.has(name) || declared.has(name)
            ? []
            : [`${relative(repoRoot, file)} imports ${spec}, not a dependency of ${packageOf(file)}`];
        },
      );
    });
    expect(undeclared).toEqual([]);
  });

  it('names what is wrong with a crossing of package boundaries', () => {
    const edge = (over: Partial<Edge>): Edge => ({
      file: 'x.ts',
      from: 'cli',
      to: 'run',
      spec: 'rein/run/x.js',
      fromPackage: 'rein-cli',
      toPackage: 'rein',
      ...over,
    });
    const declared = (pkg: string) => (pkg === 'rein-cli' ? ['rein', 'rein-viz'] : []);
    expect(packageViolation(edge({}), declared)).toBeNull();
    expect(packageViolation(edge({ spec: '../../../run/x.js' }), declared)).toBe("a relative path out of rein-cli into rein: import it as 'rein/…'");
    expect(packageViolation(edge({ to: 'eval', toPackage: 'rein-eval', spec: 'rein-eval/eval/x.js' }), declared)).toBe(
      'rein-eval is not a dependency of rein-cli',
    );
    expect(packageViolation(edge({ from: 'visualizer' }), declared)).toBe('visualizer/ belongs in rein-viz, not rein-cli');
    expect(packageViolation(edge({ from: 'run', fromPackage: 'rein', to: 'cli', toPackage: 'rein-cli', spec: 'rein-cli/cli/x.js' }), declared)).toBe(
      'rein-cli is not a dependency of rein',
    );
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

/** Runs node with `args` under a resolve hook that records every module the child loads; its URLs. */
function modulesLoadedBy(args: string[], cwd = repoRoot): string[] {
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
  const child = spawnSync(process.execPath, ['--import', register, ...args], { cwd, encoding: 'utf8', env: cleanEnv(), timeout: 60_000 });
  expect(child.status, child.stderr).toBe(0);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

const packagesIn = (urls: string[]) => new Set(urls.flatMap((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? []));

/** What a run that never talks to an endpoint has no use for: the queue, the exporter, the layout engine, the bundler, the endpoint SDK. */
const NOT_FOR_A_SCRIPTED_RUN = [
  'bullmq',
  'ioredis',
  'elkjs',
  'esbuild',
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-http',
  'openai',
];

describe('a run', () => {
  // A resolve hook in the child records every package and every rein module it loads.
  it('loads only the core: no queue client, exporter, layout engine, bundler, endpoint SDK or periphery module', () => {
    const urls = modulesLoadedBy([reinBin, 'demo']);
    const packages = packagesIn(urls);
    // A built module is <root>/dist/<folder>/… (the core) or <root>/packages/<package>/dist/<folder>/….
    const reinFolders = new Set(urls.flatMap((url) => new RegExp(`^${pathToFileURL(repoRoot).href}/(?:packages/[^/]+/)?dist/([^/]+)/`).exec(url)?.[1] ?? []));
    expect(packages.has('xstate')).toBe(true);
    for (const heavy of NOT_FOR_A_SCRIPTED_RUN) expect(packages.has(heavy), `${heavy} was loaded`).toBe(false);
    expect(reinFolders.has('run')).toBe(true);
    for (const folder of ['eval', 'bench', 'coverage']) expect(reinFolders.has(folder), `dist/${folder}/ was loaded`).toBe(false);
    // The CLI reads the visualizer's flag parser only (the --viz flags); none of its server, layout or page.
    const visualizer = urls.filter((url) => url.includes('/dist/visualizer/'));
    expect(visualizer.length).toBeGreaterThan(0);
    expect(visualizer.filter((url) => !url.endsWith('/viz-flags.js'))).toEqual([]);
  });

  it("started from the library (import … from 'rein') with a scripted model, loads no endpoint SDK, queue, exporter or layout engine", () => {
    const workspace = makeTempDir('rein-loaded-ws-');
    writeFileSync(join(workspace, 'a.test.js'), "import test from 'node:test';\ntest('ok', () => {});\n");
    const script = join(makeTempDir('rein-loaded-script-'), 'run.mjs');
    writeFileSync(
      script,
      `const { call, loadRules, reply, scriptedModelSource, startRun } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist', 'index.js')).href)});
const workspace = ${JSON.stringify(workspace)};
const { rules, guards, actions, tools } = await loadRules({ workspace });
const run = startRun({
  workspace,
  rules,
  guards,
  actions,
  tools,
  runDir: ${JSON.stringify(makeTempDir('rein-loaded-run-'))},
  task: 'Make the tests pass.',
  testCmd: 'node --test',
  model: scriptedModelSource('scripted', [reply(call('run', { command: 'node --test' })), reply(call('finish', { summary: 'The tests pass.' }))]),
});
const output = await run.done;
if (output.status !== 'done') throw new Error('the run ended ' + output.status);
`,
    );
    const packages = packagesIn(modulesLoadedBy([script]));
    expect(packages.has('xstate')).toBe(true);
    for (const heavy of NOT_FOR_A_SCRIPTED_RUN) expect(packages.has(heavy), `${heavy} was loaded`).toBe(false);
  });
});
