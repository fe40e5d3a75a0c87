import { mkdirSync, readdirSync, realpathSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRules } from '../../../run/rules-files/load-rules.js';
import { type OpenAIStub, startOpenAIStub } from '../../../testing/index.js';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { useTempStateDir } from '../../helpers/trust.js';
import { makeTempDir, writeFiles } from '../../helpers/workspace.js';

useTempStateDir();

/** A folder outside every repository and outside rein, with no node_modules above it: where an agent builder keeps a rules file. */
function agentsFolder(files: Record<string, string>): string {
  const dir = realpathSync(makeTempDir('rein-agents-'));
  writeFiles(dir, files);
  return dir;
}

function repo(): string {
  const dir = realpathSync(makeTempDir('rein-anywhere-repo-'));
  writeFiles(dir, { 'a.txt': 'hello\n' });
  return dir;
}

const TS_MODULE = `import { z } from 'zod';
import type { AnyTool, RulesInput } from 'rein';
import { limit, helperUrl } from './lib/helper.ts';

export const tools: AnyTool[] = [
  {
    name: 'where_am_i',
    description: helperUrl,
    parameters: z.strictObject({}),
    execute: async () => ({ content: import.meta.url, ok: true, effect: { kind: 'none' } }),
  },
];
export default { budgets: { maxSteps: limit } } satisfies RulesInput;
`;

describe('a rules module loads from anywhere, for every command, the same way', () => {
  it('export default {} in a folder of its own loads for a workspace elsewhere (the esbuild "entry point cannot be marked as external" failure)', async () => {
    const agents = agentsFolder({ 'r.mjs': 'export default {};\n' });
    const loaded = await loadRules({ configPath: join(agents, 'r.mjs'), workspace: repo() });
    expect(loaded.sources).toEqual(['preset default', join(agents, 'r.mjs')]);
    expect(loaded.trust).toBe('explicit');
  });

  it('a .ts module with a .ts helper, zod and rein from rein itself (no node_modules beside it), writing nothing beside it', async () => {
    const agents = agentsFolder({
      'agent.rules.ts': TS_MODULE,
      'lib/helper.ts': 'export const limit: number = 17;\nexport const helperUrl: string = import.meta.url;\n',
    });
    // The folder may be read-only (a shared install, a mounted config): nothing is ever created in it.
    const created: string[] = [];
    const watcher = watch(agents, (_event, name) => created.push(String(name)));
    let loaded: Awaited<ReturnType<typeof loadRules>>;
    try {
      loaded = await loadRules({ configPath: join(agents, 'agent.rules.ts'), workspace: repo() });
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      watcher.close();
    }
    expect(created).toEqual([]);
    expect(loaded.rules.budgets.maxSteps).toBe(17);
    const tool = loaded.tools.find((entry) => entry.name === 'where_am_i')!;
    // Each file keeps its own import.meta.url, though both were compiled into one module.
    expect(tool.description).toBe(`file://${join(agents, 'lib', 'helper.ts')}`);
    const result = await tool.execute({}, {} as never);
    expect(result.content).toBe(`file://${join(agents, 'agent.rules.ts')}`);
    // The tool's parameters are a zod schema rein's own code reads (it turns them into the tool's JSON schema).
    expect(tool.parameters.safeParse({ extra: 1 }).success).toBe(false);
  });

  it('a .js module in ES module syntax loads with no package.json saying "type": "module"; a CommonJS one too', async () => {
    const agents = agentsFolder({
      'esm.js': 'import { join } from "node:path";\nexport default { budgets: { maxSteps: join("a", "b").length } };\n',
      'cjs.js': 'const path = require("node:path");\nmodule.exports = { budgets: { maxSteps: path.join("a", "bc").length } };\n',
    });
    expect((await loadRules({ configPath: join(agents, 'esm.js') })).rules.budgets.maxSteps).toBe(3);
    expect((await loadRules({ configPath: join(agents, 'cjs.js') })).rules.budgets.maxSteps).toBe(4);
  });

  it('a package the module imports but nobody installed is a usage error that says where to install it', async () => {
    const agents = agentsFolder({ 'r.mjs': 'import pad from "left-pad-nowhere";\nexport default { budgets: { maxSteps: pad } };\n' });
    const failure = loadRules({ configPath: join(agents, 'r.mjs'), workspace: repo() });
    await expect(failure).rejects.toThrow(/r\.mjs: cannot be loaded/);
    await expect(failure).rejects.toThrow(/Could not resolve "left-pad-nowhere" \(the package is not installed .*npm install left-pad-nowhere/);
  });

  it('a module that throws while loading names the file and the error', async () => {
    const agents = agentsFolder({ 'r.mjs': 'throw new Error("no key in the environment");\nexport default {};\n' });
    await expect(loadRules({ configPath: join(agents, 'r.mjs') })).rejects.toThrow(/r\.mjs: failed to load: no key in the environment/);
  });

  it('leaves nothing behind in the temp folder or beside the module', async () => {
    const agents = agentsFolder({ 'agent.rules.ts': TS_MODULE, 'lib/helper.ts': 'export const limit = 5;\nexport const helperUrl = "";\n' });
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith('rein-rules-'));
    await loadRules({ configPath: join(agents, 'agent.rules.ts') });
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith('rein-rules-'))).toEqual(before);
    expect(readdirSync(agents).sort()).toEqual(['agent.rules.ts', 'lib']);
  });
});

describe('the rein command loads a rules module from another folder', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('rein rules show and rein demo --config, run from a third folder', async () => {
    const agents = agentsFolder({ 'r.mjs': 'export default { budgets: { maxSteps: 33 } };\n' });
    const elsewhere = repo();
    const show = await runCli(['rules', 'show', '--config', join(agents, 'r.mjs')], { cwd: elsewhere });
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout).budgets.maxSteps).toBe(33);
    const demo = await runCli(['demo', '--config', join(agents, 'r.mjs'), '--json'], {
      cwd: elsewhere,
      env: cleanEnv({ XDG_STATE_HOME: makeTempDir('rein-st-') }),
    });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stderr).toMatch(/done after \d+\/33 steps/);
  }, 120_000);

  it('rein run <repo> --config <module elsewhere> runs against the repository', async () => {
    stub = await startOpenAIStub(() => ({ toolCalls: [{ name: 'finish', arguments: { summary: 'nothing to do' } }] }));
    const agents = agentsFolder({ 'r.mjs': 'export default { verification: { gate: false }, budgets: { maxSteps: 3 } };\n' });
    const workspace = repo();
    mkdirSync(join(workspace, 'sub'));
    writeFileSync(join(workspace, 'sub', 'b.txt'), 'b\n');
    const result = await runCli(['run', workspace, 'Say hello', '--test-cmd', 'true', '--model', 'stub', '--config', join(agents, 'r.mjs')], {
      cwd: join(workspace, 'sub'),
      env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'sk-test' }),
    });
    expect(result.stderr).toMatch(/rein: done after 1\/3 steps/);
    expect(result.code).toBe(0);
  }, 60_000);
});
