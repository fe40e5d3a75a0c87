import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

/** What only the periphery needs: the queue, the layout engine, the bundler, the exporter, and the MCP SDK (with its HTTP server stack). */
const PERIPHERY_ONLY = /^(bullmq|ioredis|elkjs|esbuild|@esbuild\/.*|@opentelemetry\/.*|@modelcontextprotocol\/.*|express|hono)$/;
/** The most packages a core install may bring, rein included (issue 37: 110 before the MCP SDK became an optional peer). */
const MAX_CORE_PACKAGES = 20;

/** Every package installed below `modules` (nested ones included), by name. */
function installedPackages(modules: string, found = new Set<string>()): Set<string> {
  if (!existsSync(modules)) return found;
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const names = entry.name.startsWith('@') ? readdirSync(join(modules, entry.name)).map((name) => `${entry.name}/${name}`) : [entry.name];
    for (const name of names) {
      const manifest = join(modules, name, 'package.json');
      if (existsSync(manifest)) found.add((JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name);
      installedPackages(join(modules, name, 'node_modules'), found);
    }
  }
  return found;
}

describe('the core package', () => {
  // npm pack as a publish would, then an install of that tarball alone into an empty project (from npm's cache).
  it('installs from its tarball without the queue, the visualizer, the bundler or the exporter, and runs `import { startRun } from "rein"`', () => {
    if (!existsSync(join(repoRoot, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it) first');
    const packed = makeTempDir('rein-pack-');
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packed], {
        cwd: repoRoot,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const shipped = pack!.files.map((file) => file.path);
    expect(shipped).toContain('dist/run/start-run.js');
    expect(shipped).toContain('tools/sandbox/supervisor/supervisor.sh');
    expect(shipped.filter((path) => /^(packages|dist\/(cli|eval|visualizer|telemetry|bench))\//.test(path))).toEqual([]);

    const project = makeTempDir('rein-consumer-');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const install = spawnSync(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', join(packed, pack!.filename)],
      { cwd: project, encoding: 'utf8', timeout: 240_000 },
    );
    expect(install.status, install.stderr).toBe(0);
    const installed = installedPackages(join(project, 'node_modules'));
    expect(installed.has('rein')).toBe(true);
    expect(installed.has('xstate')).toBe(true);
    expect([...installed].filter((name) => PERIPHERY_ONLY.test(name) || name.startsWith('rein-'))).toEqual([]);
    expect(installed.size, [...installed].sort().join(' ')).toBeLessThanOrEqual(MAX_CORE_PACKAGES);
    console.log(`a core install: ${installed.size} packages (${[...installed].sort().join(', ')})`);
    // npm's own view of the tree agrees (it also names what is missing or extraneous).
    const tree = spawnSync('npm', ['ls', '--all', '--parseable'], { cwd: project, encoding: 'utf8' });
    expect(tree.status, tree.stderr).toBe(0);
    expect(tree.stdout.split('\n').filter((path) => /node_modules\/(bullmq|ioredis|elkjs|esbuild|@opentelemetry)(\/|$)/.test(path))).toEqual([]);

    const use = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { startRun, scriptedModelSource } from 'rein'; import { runScripted } from 'rein/testing'; console.log(typeof startRun, typeof scriptedModelSource, typeof runScripted);`,
      ],
      { cwd: project, encoding: 'utf8' },
    );
    expect(use.stderr).toBe('');
    expect(use.stdout.trim()).toBe('function function function');

    // Without the bundler a rules module is refused with what to install, never imported unchecked.
    writeFileSync(join(project, 'rein.config.mjs'), 'export default {};\n');
    const rulesModule = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { loadRules } from 'rein'; await loadRules({ configPath: 'rein.config.mjs' }).catch((error) => console.log(error.message));`,
      ],
      { cwd: project, encoding: 'utf8' },
    );
    expect(rulesModule.stdout).toContain('a rules module needs the esbuild package');

    // Without the MCP SDK, a run whose rules start MCP servers is refused with what to install, before anything starts.
    const workspace = join(project, 'ws');
    const withServers = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { mkdirSync } from 'node:fs'; import { rulesSchema, scriptedModelSource, startRun } from 'rein';
mkdirSync(${JSON.stringify(workspace)}, { recursive: true });
const rules = rulesSchema.parse({ mcp: { servers: { docs: { command: 'node', args: ['server.js'] } } } });
await startRun({ workspace: ${JSON.stringify(workspace)}, runDir: ${JSON.stringify(join(project, 'run'))}, task: 't', testCmd: 'true', rules, model: scriptedModelSource('scripted', []) })
  .then(() => console.log('started'), (error) => console.log(error.message));`,
      ],
      { cwd: project, encoding: 'utf8' },
    );
    expect(withServers.stdout).toContain('need the @modelcontextprotocol/sdk package beside rein: npm install @modelcontextprotocol/sdk@1');
  }, 300_000);
});
