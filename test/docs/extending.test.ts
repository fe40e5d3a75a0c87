import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, loadRules, makeTempDir, reply, runScripted } from 'rein/testing/index.js';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

const page = readFileSync(join(repoRoot, 'docs', 'extending.md'), 'utf8');

describe('docs/extending.md (each example is a file in the repo, run here)', () => {
  it.each(['docs/cookbook/review-before-finish.json', 'docs/examples/rules-module.ts', 'docs/examples/start-run.ts'])(
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
