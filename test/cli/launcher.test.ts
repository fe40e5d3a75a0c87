import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { reinBin, repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

// The launcher's sh line starts node with a small young generation (V8 reads the flag only at start-up). A preload
// in NODE_OPTIONS reports the node process's own flags, so each test sees what V8 was started with.
function launch(command: string, args: string[], nodeOptions = ''): string[] {
  return launched(command, args, nodeOptions).execArgv;
}

/** Node's flags, and MALLOC_ARENA_MAX as node started with it and as the programs rein starts would inherit it. */
function launched(command: string, args: string[], nodeOptions = '', env: NodeJS.ProcessEnv = {}) {
  const dir = makeTempDir('rein-launcher-');
  const report = join(dir, 'exec-argv.json');
  const preload = join(dir, 'report.mjs');
  writeFileSync(
    preload,
    `import { writeFileSync } from 'node:fs';\nconst arena = process.env.MALLOC_ARENA_MAX ?? null;\nprocess.on('exit', () => writeFileSync(${JSON.stringify(report)}, JSON.stringify({ execArgv: process.execArgv, arena, passedOn: process.env.MALLOC_ARENA_MAX ?? null })));\n`,
  );
  const result = spawnSync(command, [...args, '--help'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: {
      ...process.env,
      MALLOC_ARENA_MAX: undefined,
      ...env,
      NODE_OPTIONS: `${nodeOptions} --import=${pathToFileURL(preload).href}`.trim(),
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    },
  });
  expect(result.status, result.stderr).toBe(0);
  expect(result.stdout).toContain('rein');
  return JSON.parse(readFileSync(report, 'utf8')) as { execArgv: string[]; arena: string | null; passedOn: string | null };
}

const LAUNCHER_FLAGS = ['--v8-pool-size=1', '--max-semi-space-size=2'];

/** The files of every module `rein <args>` loads, from a load hook registered by a preload. */
function loadedModules(args: string[]): string[] {
  const dir = makeTempDir('rein-launcher-loads-');
  const list = join(dir, 'loaded.txt');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(list)}, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  const preload = join(dir, 'register.mjs');
  writeFileSync(preload, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const result = spawnSync(reinBin, args, {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` },
  });
  expect(result.status, result.stderr).toBe(0);
  return readFileSync(list, 'utf8')
    .trim()
    .split('\n')
    .map((url) => fileURLToPath(url));
}

describe('the rein launcher', () => {
  it('starts node with 2 MB semi-spaces and one V8 worker thread when run as a command', () => {
    expect(launch(reinBin, [])).toEqual(LAUNCHER_FLAGS);
  });

  it('does the same through the bin link npm makes', () => {
    expect(launch(join(repoRoot, 'node_modules', '.bin', 'rein'), [])).toEqual(LAUNCHER_FLAGS);
  });

  it('leaves the semi-spaces and the pool to a NODE_OPTIONS that sizes them', () => {
    expect(launch(reinBin, [], '--max-semi-space-size=8')).toEqual(['--v8-pool-size=1']);
    expect(launch(reinBin, [], '--v8-pool-size=4')).toEqual(['--max-semi-space-size=2']);
  });

  it('starts node with two malloc arenas, which the programs it starts do not inherit; a limit of the user’s stays', () => {
    expect(launched(reinBin, [])).toMatchObject({ arena: '2', passedOn: null });
    expect(launched(reinBin, [], '', { MALLOC_ARENA_MAX: '4' })).toMatchObject({ arena: '4', passedOn: '4' });
  });

  it('runs the command from its bundle: one copy of rein and of xstate, commands loaded on demand', () => {
    const bundle = join(repoRoot, 'cli', 'dist', 'bundle');
    // The rules graph crosses the core and the visualizer: a second copy of xstate there fails to read the machine.
    const graph = loadedModules(['rules', 'graph']);
    const launcherFiles = [reinBin, join(dirname(reinBin), 'v8-tuning.js')];
    const outside = graph.filter((file) => !launcherFiles.includes(file) && !file.startsWith(`${bundle}/`));
    expect(outside).toEqual([]);
    expect(graph.filter((file) => file.startsWith(`${bundle}/rules-`))).toHaveLength(1);
    const help = loadedModules(['--help']);
    expect(help.filter((file) => /\/(rules|run|eval|viz)-[A-Z0-9]+\.js$/.test(file))).toEqual([]);
  });

  it('runs under node itself as plain JavaScript, with node’s own flags', () => {
    expect(launch(process.execPath, [reinBin])).toEqual([]);
    expect(launch(process.execPath, ['--max-semi-space-size=4', reinBin])).toEqual(['--max-semi-space-size=4']);
  });
});
