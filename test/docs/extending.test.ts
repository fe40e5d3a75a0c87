import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, loadRules, makeTempDir, reply, runScripted } from 'rein/testing/index.js';
import { describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

const page = readFileSync(join(repoRoot, 'docs', 'extending.md'), 'utf8');

describe('docs/extending.md (each example is a file in the repo, run here)', () => {
  it.each(['docs/cookbook/review-before-finish.json', 'docs/examples/rules-module.ts', 'docs/examples/run-linter-tool.ts', 'docs/examples/start-run.ts'])(
    '%s is shown as it is in the repo',
    (path) => {
      const shown = new RegExp(`<!-- example:${path.replace(/\./g, '\\.')} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(page)?.[1];
      expect(shown, `docs/extending.md shows ${path}`).toBe(readFileSync(join(repoRoot, path), 'utf8').trimEnd().replaceAll("'../../index.js'", "'rein'"));
    },
  );

  it('the rules module: its tool runs unlisted, its action speaks on entering build, and its guard tells the model why the gate refused', async () => {
    const loaded = await loadRules({ configPath: join(repoRoot, 'docs', 'examples', 'rules-module.ts') });
    const run = await runScripted({
      files: { 'a.js': 'export const a = 1;\n', 'CHANGELOG.md': '# Changes\n' },
      testCmd: 'true',
      rules: loaded.rules,
      guards: loaded.guards,
      actions: loaded.actions,
      tools: loaded.tools,
      script: [
        reply(call('count_lines', { text: 'one\ntwo' }), call('edit_file', { path: 'a.js', old: '= 1', new: '= 2' })),
        reply(call('run', { command: 'true' }), call('finish', { summary: 'done' })),
        reply(
          call('edit_file', { path: 'CHANGELOG.md', old: '# Changes', new: '# Changes\n- a is 2' }),
          call('run', { command: 'true' }),
          call('finish', { summary: 'done' }),
        ),
      ],
    });
    const results = run.record.filter((message) => message.role === 'tool').map((message) => String(message.content));
    expect(results[0]).toBe('2 lines');
    expect(results.filter((text) => text.startsWith('Not yet: add a line about your change to CHANGELOG.md.'))).toHaveLength(1);
    expect(run.record.some((message) => message.role === 'user' && String(message.content).includes('Open todo items: 0.'))).toBe(true);
    expect(run.output.status).toBe('done');
  });

  it('the linter tool places itself in fix: refused in plan, run in the sandbox through its context in fix, and the run ends done', async () => {
    vi.stubEnv('LINT_COMMAND', "sed -i 's/[ ]*$//' a.js && echo 'fixed a.js'");
    try {
      const loaded = await loadRules({ configPath: join(repoRoot, 'docs', 'examples', 'run-linter-tool.ts') });
      expect(loaded.rules.tools.phases).toEqual({ run_linter: ['fix'] });
      const run = await runScripted({
        files: {
          'a.js': 'export const a = 1;   \n',
          'check.js': "import { readFileSync } from 'node:fs';\nprocess.exit(/ +$/m.test(readFileSync('a.js', 'utf8')) ? 1 : 0);\n",
        },
        testCmd: 'node check.js',
        rules: loaded.rules,
        tools: loaded.tools,
        script: [
          reply(call('run_linter', {})),
          reply(call('edit_file', { path: 'a.js', old: '= 1', new: '= 2' })),
          reply(call('run', { command: 'node check.js' })),
          reply(call('run_linter', {}), call('run', { command: 'node check.js' })),
          reply(call('finish', { summary: 'The linter fixed the trailing spaces.' })),
        ],
      });
      const results = run.record.filter((message) => message.role === 'tool').map((message) => String(message.content));
      expect(results[0]).toMatch(/^Tool error: run_linter is not allowed in the plan phase \(run_linter belongs to other phases: tools\.phases\)/);
      expect(results[3]).toBe('exit=0\nfixed a.js\n');
      expect(readFileSync(join(run.workspace, 'a.js'), 'utf8')).toBe('export const a = 2;\n');
      expect(run.output.status).toBe('done');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('the rules decide over the phases a tool names: tools.phases places it elsewhere, a phase that names it offers it too', async () => {
    const { phaseTools } = await import('../../machines/phase-exits.js');
    const base = await loadRules({ configPath: join(repoRoot, 'docs', 'examples', 'run-linter-tool.ts') });
    const offering = (rules: typeof base.rules) => ['plan', 'build', 'verify', 'fix'].filter((phase) => phaseTools(phase, rules).includes('run_linter'));
    expect(offering(base.rules)).toEqual(['fix']);
    const placed = { ...base.rules, tools: { ...base.rules.tools, phases: { run_linter: ['build', 'fix'] } } };
    expect(offering(placed)).toEqual(['build', 'fix']);
    const named = { ...base.rules, phases: { ...base.rules.phases, verify: { ...base.rules.phases.verify!, tools: ['read_file', 'run_linter', 'finish'] } } };
    expect(offering(named)).toEqual(['verify', 'fix']);
  });

  it('startRun from your own code runs a harness to its end', async () => {
    const { runHarness } = await import('../../docs/examples/start-run.js');
    const workspace = makeTempDir();
    writeFileSync(join(workspace, 'a.test.js'), "import test from 'node:test';\ntest('ok', () => {});\n");
    const result = await runHarness(workspace, makeTempDir(), [
      reply(call('run', { command: 'node --test' })),
      reply(call('finish', { summary: 'The tests pass.' })),
    ]);
    expect(result.status).toBe('done');
    expect(existsSync(result.trace)).toBe(true);
  });
});
