import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanEnv, repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * The floors of rein's import graph, read from the table in docs/architecture.md (the one list of which folders
 * exist and where they stand). A core file may import only from its own unit (the longest folder of the table that
 * holds it) or from a unit on a lower floor; a periphery folder (a workspace package of its own) may import the core
 * and the periphery folders its row names. A source folder the table does not name fails the test.
 */
interface Unit {
  /** A folder (`tools/sandbox`) or a root file (`index.ts`), without a trailing slash. */
  path: string;
  /** The core's floor, or null for the periphery. */
  floor: number | null;
  /** The package it is in: `rein` (the core) or a workspace package's name. */
  pkg: string;
  /** For the periphery: the other periphery folders it may import. */
  mayImport: string[];
}

/** The rows between the floors markers of docs/architecture.md. */
function readFloors(markdown: string): Unit[] {
  const block = /<!-- floors:start -->([\s\S]*?)<!-- floors:end -->/.exec(markdown)?.[1];
  if (!block) throw new Error('docs/architecture.md has no <!-- floors:start --> table');
  const folder = (cell: string) => cell.trim().replace(/^`|`$/g, '').replace(/\/$/, '');
  return block
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [path, floor, pkg, mayImport] = line
        .split('|')
        .slice(1, 5)
        .map((cell) => cell.trim());
      return {
        path: folder(path!),
        floor: floor === 'periphery' ? null : Number(floor),
        pkg: pkg!,
        mayImport: mayImport ? mayImport.split(',').map(folder) : [],
      };
    });
}

const UNITS = readFloors(readFileSync(join(repoRoot, 'docs', 'architecture.md'), 'utf8'));
const SKIPPED = new Set(['node_modules', 'dist', 'test', '.git', '.ci', 'reports', '.stryker-tmp', 'repo', 'docs']);

/** The unit of a path in the checkout: the longest folder of the table holding it, or its top-level entry when none does. */
function unitOf(path: string, units: readonly Unit[] = UNITS): string {
  const inRepo = relative(repoRoot, path);
  const holding = units.filter((unit) => inRepo === unit.path || inRepo.startsWith(`${unit.path}/`));
  if (holding.length > 0) return holding.reduce((a, b) => (b.path.length > a.path.length ? b : a)).path;
  return inRepo.split('/')[0]!;
}

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

/** The package a path is in: its unit's package, or `rein` for what the table does not name (the test runner's configs). */
const packageOf = (path: string) => UNITS.find((unit) => unit.path === unitOf(path))?.pkg ?? 'rein';
const folderOfPackage = (pkg: string) => UNITS.find((unit) => unit.pkg === pkg && unit.floor === null)?.path;

/** The core's declared entry points (package.json `exports`): `rein/run` → the source of `./dist/run/index.js`. */
const ENTRY_POINTS: Record<string, string> = Object.fromEntries(
  Object.entries(manifestOf('rein').exports ?? {}).flatMap(([subpath, target]) =>
    typeof target === 'object'
      ? [[subpath === '.' ? 'rein' : `rein/${subpath.slice(2)}`, join(repoRoot, target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'))]]
      : [],
  ),
);

/** Where an import names a file: relative to the importer, or the core (`rein/…`) or a workspace package (`rein-cli/…`) by name. */
function targetOf(file: string, spec: string): string | null {
  if (spec.startsWith('.')) return resolve(dirname(file), spec);
  if (ENTRY_POINTS[spec]) return ENTRY_POINTS[spec]!;
  const named = /^(rein(?:-[a-z]+)?)\/(.+)$/.exec(spec);
  if (!named) return null;
  if (named[1] === 'rein') return join(repoRoot, named[2]!);
  const folder = folderOfPackage(named[1]!);
  return folder ? join(repoRoot, folder, named[2]!) : null;
}

/** Every import of a rein file, static, re-export or dynamic, relative or by package name, that crosses a unit. */
function crossingImports(files: string[]): Edge[] {
  const edges: Edge[] = [];
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"]((?:\.|rein\b)[^'"]*)['"]|import\(\s*['"]((?:\.|rein\b)[^'"]*)['"]\s*\)/g;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(pattern)) {
      const spec = (match[1] ?? match[2])!;
      const target = targetOf(file, spec);
      if (!target) continue;
      const from = unitOf(file);
      const to = unitOf(target);
      if (from !== to || packageOf(file) !== packageOf(target))
        edges.push({ file: relative(repoRoot, file), from, to, spec, fromPackage: packageOf(file), toPackage: packageOf(target) });
    }
  }
  return edges;
}

/**
 * Why an edge breaks the package boundaries, or null: another package is named, never reached by a relative path,
 * declared as a dependency, and the core only through an entry point it declares (`rein`, `rein/run`, …).
 */
function packageViolation(edge: Edge, declared: (pkg: string) => readonly string[], entryPoints: readonly string[] = Object.keys(ENTRY_POINTS)): string | null {
  if (edge.fromPackage === edge.toPackage) return edge.spec.startsWith('rein') ? `${edge.fromPackage} imports itself by name` : null;
  if (edge.spec.startsWith('.')) return `a relative path out of ${edge.fromPackage} into ${edge.toPackage}: import it as '${edge.toPackage}/…'`;
  if (!declared(edge.fromPackage).includes(edge.toPackage)) return `${edge.toPackage} is not a dependency of ${edge.fromPackage}`;
  if (edge.toPackage === 'rein' && !entryPoints.includes(edge.spec))
    return `${edge.spec} is not an entry point of the core: import from one of ${entryPoints.join(', ')} (package.json "exports")`;
  return null;
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  workspaces?: string[];
  exports?: Record<string, string | { default: string }>;
}

function manifestOf(pkg: string): Manifest {
  return JSON.parse(readFileSync(join(repoRoot, ...(pkg === 'rein' ? [] : [folderOfPackage(pkg)!]), 'package.json'), 'utf8'));
}
const dependenciesOf = (pkg: string) => Object.keys({ ...manifestOf(pkg).dependencies, ...manifestOf(pkg).peerDependencies });

/** Why an edge breaks the layering, or null when it may stand. */
function layerViolation(edge: Pick<Edge, 'from' | 'to'>, units: readonly Unit[] = UNITS): string | null {
  const unit = (path: string) => units.find((candidate) => candidate.path === path);
  const from = unit(edge.from);
  const to = unit(edge.to);
  if (!from) return `${edge.from}/ is on no floor: add it to the table in docs/architecture.md`;
  if (!to) return `${edge.to}/ is on no floor: add it to the table in docs/architecture.md`;
  if (from.floor !== null) {
    if (to.floor === null) return `the core (${edge.from}/) imports the periphery (${edge.to}/)`;
    return to.floor < from.floor ? null : `${edge.from}/ (floor ${from.floor}) imports ${edge.to}/ (floor ${to.floor}), which is not below it`;
  }
  if (to.floor !== null) return null;
  return from.mayImport.includes(edge.to) ? null : `${edge.from}/ imports ${edge.to}/, which it is not allowed to`;
}

describe('the floors table in docs/architecture.md', () => {
  it('is read: the core on numbered floors, the periphery by package', () => {
    expect(UNITS.find((unit) => unit.path === 'lib')).toEqual({ path: 'lib', floor: 0, pkg: 'rein', mayImport: [] });
    expect(UNITS.find((unit) => unit.path === 'cli')?.mayImport).toContain('eval');
    expect(UNITS.filter((unit) => unit.floor === null).length).toBeGreaterThanOrEqual(4);
  });

  it('names every top-level folder that holds source code, and nothing that is not there', () => {
    const topLevel = readdirSync(repoRoot).filter((name) => !SKIPPED.has(name) && !name.startsWith('.'));
    const withSources = topLevel.filter((name) =>
      sourceFiles(repoRoot).some((file) => relative(repoRoot, file).startsWith(`${name}/`) || relative(repoRoot, file) === name),
    );
    const named = new Set(UNITS.map((unit) => unit.path.split('/')[0]));
    expect(withSources.filter((name) => !named.has(name))).toEqual([]);
    for (const unit of UNITS) expect(existsSync(join(repoRoot, unit.path)), unit.path).toBe(true);
  });

  it("is what tsconfig.json compiles (the core) and package.json's workspaces (the periphery), each package under its own name", () => {
    const tsconfig = JSON.parse(readFileSync(join(repoRoot, 'tsconfig.json'), 'utf8')) as { include: string[] };
    const coreTop = [...new Set(UNITS.filter((unit) => unit.floor !== null).map((unit) => unit.path.split('/')[0]!))];
    expect([...tsconfig.include].sort()).toEqual(coreTop.sort());
    const periphery = UNITS.filter((unit) => unit.floor === null);
    expect([...(manifestOf('rein').workspaces ?? [])].sort()).toEqual(periphery.map((unit) => unit.path).sort());
    for (const unit of periphery) expect(manifestOf(unit.pkg).name).toBe(unit.pkg);
  });
});

/** Every module specifier `file` imports, and the files it reaches by relative imports, transitively. */
function importClosure(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"]([^'"]+)['"]/g)].map((match) => match[1]!);
  return specs.flatMap((spec) => (spec.startsWith('.') ? importClosure(resolve(dirname(file), spec).replace(/\.js$/, '.ts'), seen) : [spec]));
}

describe('rein/formats', () => {
  it('imports nothing but its own pure modules, so the visualizer page can bundle it for the browser', () => {
    const closure = importClosure(ENTRY_POINTS['rein/formats']!);
    expect(closure).toEqual([]);
    // The check sees imports: a module that reached Node would show here.
    expect(importClosure(join(repoRoot, 'lib', 'regular-file.ts'))).toContain('node:fs');
  });
});

describe('the import graph', () => {
  const files = sourceFiles(repoRoot);
  const edges = crossingImports(files);

  it('is read from the sources (a scan that finds nothing proves nothing)', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(edges.some((edge) => edge.from === 'machines' && edge.to === 'rules')).toBe(true);
    expect(edges.some((edge) => edge.from === 'tools' && edge.to === 'tools/sandbox')).toBe(true);
    expect(edges.some((edge) => edge.from === 'cli' && edge.to === 'visualizer')).toBe(true);
  });

  it('only goes down: the core never imports the periphery, and each core floor only lower floors', () => {
    const broken = edges.flatMap((edge) => {
      const why = layerViolation(edge);
      return why ? [`${edge.file} imports ${edge.spec}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('has no circle between top-level folders', () => {
    const top = (unit: string) => unit.split('/')[0]!;
    const arrows = new Set(edges.filter((edge) => top(edge.from) !== top(edge.to)).map((edge) => `${top(edge.from)} ${top(edge.to)}`));
    const circles = [...arrows].filter((arrow) => arrows.has(arrow.split(' ').reverse().join(' ')));
    expect(circles).toEqual([]);
  });

  it('crosses packages only by name, into a declared dependency', () => {
    expect(edges.some((edge) => edge.fromPackage === 'rein-cli' && edge.toPackage === 'rein' && edge.spec === 'rein/run')).toBe(true);
    const broken = edges.flatMap((edge) => {
      const why = packageViolation(edge, dependenciesOf);
      return why ? [`${edge.file} imports ${edge.spec}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it("finds every package a file imports declared in its own package.json (the core installs without the periphery's)", () => {
    const builtins = new Set(builtinModules);
    // The root's other .ts files are the test runner's configs (dev tooling, not in the package).
    const shipped = files.filter((file) => UNITS.some((unit) => unit.path === unitOf(file)));
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
    const declared = (pkg: string) => (pkg === 'rein-cli' ? ['rein', 'rein-visualizer'] : []);
    expect(packageViolation(edge({ spec: 'rein/run' }), declared)).toBeNull();
    expect(packageViolation(edge({}), declared)).toMatch(/^rein\/run\/x\.js is not an entry point of the core: import from one of rein, rein\/formats, /);
    expect(packageViolation(edge({ spec: '../run/x.js' }), declared)).toBe("a relative path out of rein-cli into rein: import it as 'rein/…'");
    expect(packageViolation(edge({ to: 'eval', toPackage: 'rein-eval', spec: 'rein-eval/x.js' }), declared)).toBe('rein-eval is not a dependency of rein-cli');
    expect(packageViolation(edge({ from: 'run', fromPackage: 'rein', to: 'cli', toPackage: 'rein-cli', spec: 'rein-cli/x.js' }), declared)).toBe(
      'rein-cli is not a dependency of rein',
    );
  });

  it('names what is wrong with an arrow back up', () => {
    // The one arrow back up this test was written for: lib/trace-events.ts importing from rules/.
    expect(layerViolation({ from: 'lib', to: 'rules' })).toBe('lib/ (floor 0) imports rules/ (floor 1), which is not below it');
    expect(layerViolation({ from: 'tools/sandbox', to: 'tools' })).toMatch(/not below it/);
    expect(layerViolation({ from: 'machines', to: 'tools/sandbox' })).toMatch(/not below it/);
    expect(layerViolation({ from: 'run', to: 'visualizer' })).toBe('the core (run/) imports the periphery (visualizer/)');
    expect(layerViolation({ from: 'visualizer', to: 'cli' })).toMatch(/not allowed/);
    expect(layerViolation({ from: 'plugins', to: 'lib' })).toMatch(/on no floor/);
    expect(layerViolation({ from: 'machines', to: 'rules' })).toBeNull();
    expect(unitOf(join(repoRoot, 'tools/sandbox/plan/visibility.ts'))).toBe('tools/sandbox');
    expect(unitOf(join(repoRoot, 'tools/run.ts'))).toBe('tools');
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

/** What a run that never talks to an endpoint has no use for: the queue, the exporter, the layout engine, the bundler, the endpoint SDK, the MCP SDK. */
const NOT_FOR_A_SCRIPTED_RUN = [
  'bullmq',
  'ioredis',
  'elkjs',
  'esbuild',
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-http',
  'openai',
  '@modelcontextprotocol/sdk',
];

describe('a run', () => {
  // A resolve hook in the child records every package and every rein module it loads.
  it('loads only the core: no queue client, exporter, layout engine, bundler, endpoint SDK or periphery module', () => {
    // The CLI's compiled modules, not its bundle (cli/scripts/bundle-cli.mjs): the bundle is cut from this same graph, and
    // here each module is a file of its own (test/cli/launcher.test.ts checks the bundle loads its commands on demand).
    const cli = join(makeTempDir('rein-loaded-cli-'), 'cli.mjs');
    writeFileSync(
      cli,
      `const { main } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'cli', 'dist', 'main.js')).href)});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
    );
    const urls = modulesLoadedBy([cli, 'demo']);
    const packages = packagesIn(urls);
    // A built module is <root>/dist/<folder>/… (the core) or <root>/<package folder>/dist/….
    const root = pathToFileURL(repoRoot).href;
    const reinFolders = new Set(
      urls.flatMap((url) => new RegExp(`^${root}/(?:dist/([^/]+(?:/coverage)?)/|([^/]+)/dist/)`).exec(url)?.slice(1).find(Boolean) ?? []),
    );
    expect(packages.has('xstate')).toBe(true);
    for (const heavy of NOT_FOR_A_SCRIPTED_RUN) expect(packages.has(heavy), `${heavy} was loaded`).toBe(false);
    expect(reinFolders.has('run')).toBe(true);
    for (const folder of ['eval', 'dev', 'testing/coverage']) expect(reinFolders.has(folder), `${folder} was loaded`).toBe(false);
    // The CLI reads the visualizer's flag parser only (the --viz flags); none of its server, layout or page.
    const visualizer = urls.filter((url) => url.startsWith(`${root}/visualizer/dist/`));
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
const run = await startRun({
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
