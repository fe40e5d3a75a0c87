import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../lib/errors.js';
import { TOOL_NAMES } from '../../../rules/tool-names.js';
import { loadRules } from '../../../run/rules-files/load-rules.js';
import { call, reply, runScripted } from '../../../testing/index.js';
import { cleanEnv, repoRoot, runCli } from '../../helpers/cli.js';
import { trustWorkspaceRules, useTempStateDir } from '../../helpers/trust.js';
import { makeTempDir } from '../../helpers/workspace.js';

function dirWith(files: Record<string, string>): string {
  const dir = makeTempDir('rein-rules-');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

describe('rules files', () => {
  useTempStateDir();
  it('layers preset, file and flags, and finds rein.config.json in the workspace', async () => {
    const workspace = dirWith({ 'rein.config.json': JSON.stringify({ budgets: { maxSteps: 12 }, stall: { rules: [{ guard: 'repeatedAction', limit: 4 }] } }) });
    const { rules, sources } = await loadRules({ preset: 'no-plan', workspace, overrides: { budgets: { maxSeconds: 30 } } });
    expect(rules.phases.plan!.enabled).toBe(false);
    expect(rules.budgets).toMatchObject({ maxSteps: 12, maxSeconds: 30 });
    expect(rules.stall.rules).toEqual([{ guard: 'repeatedAction', limit: 4 }]);
    expect(sources).toEqual(['preset no-plan', join(workspace, 'rein.config.json'), 'command-line flags']);
  });

  it("a phase rule that sets some fields keeps the phase's default exits and description", async () => {
    const { rulesSchema, defaultRules } = await import('../../../rules/schema.js');
    const partial = rulesSchema.parse({ phases: { build: { tools: ['read_file', 'run', 'finish'], onEnter: [{ action: 'mark', label: 'build' }] } } });
    expect(partial.phases.build!.exits).toEqual(defaultRules().phases.build!.exits);
    expect(partial.phases.build!.description).toBe(defaultRules().phases.build!.description);
    expect(partial.phases.build!.exits.length).toBeGreaterThan(0);
    // Giving exits replaces them, as before.
    expect(rulesSchema.parse({ phases: { build: { exits: [{ guard: 'testRun', to: 'verify' }] } } }).phases.build!.exits).toEqual([
      { guard: 'testRun', to: 'verify' },
    ]);
  });

  it('a bad value is reported with file, JSON path, what was expected and what was found', async () => {
    const dir = dirWith({ 'bad.json': JSON.stringify({ budgets: { maxSteps: 'forty' }, context: { soft: 2 }, permissions: { sandbox: 'docker' } }) });
    const error = await loadRules({ configPath: join(dir, 'bad.json') }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toContain(`${join(dir, 'bad.json')}: budgets.maxSteps: expected number, found "forty"`);
    expect(message).toMatch(/context\.soft: expected .*1.*, found 2/);
    expect(message).toContain('permissions.sandbox: expected one of "auto", "bwrap", "none", found "docker"');
  });

  it('a misspelt key, a bad regex, a stray guard parameter, an unknown tool or nudge, and an exit into a disabled phase are each an error', async () => {
    const cases: Array<[unknown, string]> = [
      [{ budgets: { maxStep: 10 } }, 'budgets.maxStep: unknown key (did you mean "maxSteps"?), found 10'],
      [{ budgett: {} }, 'budgett: unknown key (did you mean "budgets"?)'],
      [{ verification: { passPattern: '((' } }, 'verification.passPattern: expected a valid regular expression'],
      [{ permissions: { deny: ['ok', '[a-'] } }, 'permissions.deny[1]: expected a valid regular expression'],
      [
        { phases: { plan: { exits: [{ guard: 'todoProgress', cnt: 2, to: 'build' }] } } },
        'phases.plan.exits[0].cnt: unknown key "cnt" (did you mean "count"?), found 2; guard "todoProgress" takes "count"',
      ],
      [
        { stall: { rules: [{ guard: 'readLoop', limit: 9, window: 3 }] } },
        'stall.rules[0].window: unknown key "window", found 3; guard "readLoop" takes "limit"',
      ],
      [{ phases: { build: { tools: ['read_file', 'frobnicate'] } } }, 'phases.build.tools[1]: "frobnicate" is not a tool of this run'],
      [{ phases: { fix: { nudges: { repeatedFailur: 'Re-read it.' } } } }, 'phases.fix.nudges.repeatedFailur: no stall rule "repeatedFailur"'],
      [{ phases: { fix: { enabled: false } } }, 'phases.verify.exits[0].to: phase "fix" is disabled'],
      [
        { phases: { fix: { onEnter: [{ action: 'notfy', text: 'x' }] } } },
        'phases.fix.onEnter[0].action: unknown action "notfy" (did you mean "notify"?); actions: mark, notify',
      ],
      [
        { phases: { plan: { exits: [{ guard: 'todoWriten', to: 'build' }] } } },
        'phases.plan.exits[0].guard: unknown guard "todoWriten" (did you mean "todoWritten"?)',
      ],
      [
        { phases: { build: { exits: [{ guard: 'testRun', to: 'verify', setle: true }] } } },
        'phases.build.exits[0].setle: unknown key "setle" (did you mean "settle"?), found true; guard "testRun" takes no parameters',
      ],
      [{ phases: { build: { tools: ['read_flie'] } } }, 'phases.build.tools[0]: "read_flie" is not a tool of this run (did you mean "read_file"?)'],
      [
        { phases: { build: { exits: [{ all: [{ guard: 'testRun' }, { guard: 'phaseSteps', max: 2 }], to: 'verify' }] } } },
        'phases.build.exits[0].all[1].max: unknown key "max"',
      ],
      [{ phases: { build: { exits: [{ guard: 'phaseSteps', to: 'verify' }] } } }, 'phases.build.exits[0].min: expected number, found nothing'],
      [
        { phases: { build: { exits: [{ guard: 'testRun', any: [{ guard: 'always' }], to: 'verify' }] } } },
        'phases.build.exits[0]: expected only one of "guard", "any"',
      ],
      [{ stall: { rules: [{ guard: 'testRun', limit: 3 }] } }, 'stall.rules[0].guard: "testRun" is not a stall rule'],
      [{ verification: { checks: [{ name: 'tests', command: 'npm run lint' }] } }, 'verification.checks[0].name: "tests" is the test command\'s own check'],
      [
        { phases: { fix: { onEnter: [{ action: 'notify', txt: 'x' }] } } },
        'phases.fix.onEnter[0].text: action "notify" needs "text" (a string), found nothing',
      ],
      [
        { phases: { verify: { exits: [{ guard: 'testFailed', to: 'fix', actions: [{ action: 'mark' }] }] } } },
        'phases.verify.exits[0].actions[0].label: action "mark" needs "label"',
      ],
    ];
    for (const [rules, expected] of cases) {
      const dir = dirWith({ 'rein.config.json': JSON.stringify(rules) });
      const error = await loadRules({ workspace: dir }).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(rules)).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain(`${join(dir, 'rein.config.json')}: ${expected}`);
    }
    // Guards registered from code take whatever parameters their rules give them.
    const dir = dirWith({
      'rein.config.mjs':
        "export const guards = { wrote: (context, params) => params.times > 0 };\nexport default { phases: { plan: { exits: [{ guard: 'wrote', times: 2, to: 'build' }] } } };\n",
    });
    await trustWorkspaceRules(dir);
    await expect(loadRules({ workspace: dir })).resolves.toBeDefined();
  });

  it('a JSON or YAML syntax error names the line and column and shows the line', async () => {
    const json = dirWith({ 'rein.config.json': '{\n  "budgets": {\n    "maxSteps": 10\n    "maxSeconds": 60\n  }\n}\n' });
    const jsonError = await loadRules({ workspace: json }).then(
      () => new Error('loaded'),
      (caught: unknown) => caught as Error,
    );
    expect(jsonError.message).toMatch(/rein\.config\.json: not valid JSON: line 4, column 5: .*\n {8}"maxSeconds": 60\n {8}\^$/);
    const yaml = dirWith({ 'rein.config.yaml': 'budgets:\n  maxSteps: [10\nstall:\n  maxNudges: 2\n' });
    const yamlError = await loadRules({ workspace: yaml }).then(
      () => new Error('loaded'),
      (caught: unknown) => caught as Error,
    );
    expect(yamlError).toBeInstanceOf(UsageError);
    expect(yamlError.message).toMatch(/rein\.config\.yaml: not valid YAML: line \d+, column \d+: /);
    // A good YAML file is a rules file like any other.
    const good = dirWith({ 'rein.config.yml': 'budgets:\n  maxSteps: 12\nphases:\n  plan:\n    maxSteps: 3\n' });
    expect((await loadRules({ workspace: good })).rules.phases.plan!.maxSteps).toBe(3);
  });

  it('an unknown guard name fails before anything runs, naming the path and the known guards', async () => {
    const dir = dirWith({ 'rein.config.json': JSON.stringify({ phases: { build: { exits: [{ guard: 'testsGreen', to: 'verify' }] } } }) });
    const result = await runCli(['run', dir, 'task', '--test-cmd', 'true', '--model', 'm'], { env: cleanEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/phases\.build\.exits\[0\]\.guard: unknown guard "testsGreen"; guards: .*testRun/);
  });

  it('invalid JSON is a clear error with exit code 2', async () => {
    const dir = dirWith({ 'rein.config.json': '{ "budgets": { "maxSteps": 3, } }' });
    const result = await runCli(['rules', 'show', '--config', join(dir, 'rein.config.json')], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/rein\.config\.json: not valid JSON/);
  });

  it('a command-line flag does not hide a bad value the rules file gives the same key: both are reported', async () => {
    const dir = dirWith({ 'rein.config.json': JSON.stringify({ budgets: { maxSteps: -1 } }) });
    const file = join(dir, 'rein.config.json');
    const error = await loadRules({ workspace: dir, overrides: { budgets: { maxSteps: 5 } } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(new RegExp(`^${file.replace(/[.\\/]/g, '\\$&')}: budgets\\.maxSteps: `));
    const both = await loadRules({ workspace: dir, overrides: { budgets: { maxSteps: 0 } } }).catch((caught: unknown) => caught as Error);
    expect((both as Error).message.split('\n')).toHaveLength(2);
    expect((both as Error).message).toContain('command-line flags: budgets.maxSteps: ');
    // The look-alike: a good file and a good flag load, the flag winning.
    const good = dirWith({ 'rein.config.json': JSON.stringify({ budgets: { maxSteps: 12 } }) });
    expect((await loadRules({ workspace: good, overrides: { budgets: { maxSteps: 5 } } })).rules.budgets.maxSteps).toBe(5);
  });

  it('a .ts rules file registers a custom guard and a custom tool that a run uses, without listing the tool again', async () => {
    const dir = dirWith({
      'rein.config.ts': `
        import { z } from 'zod';
        export const guards = { touchedReadme: (view: { turn: { toolCalls: number } }) => view.turn.toolCalls >= 1 };
        export const tools = [{
          name: 'word_count', description: 'Count words in a string.',
          parameters: z.object({ text: z.string() }).strict(),
          async execute(args: { text: string }) { return { content: String(args.text.split(/\\s+/).length), ok: true, effect: { kind: 'none' } }; },
        }];
        export default {
          phases: { plan: { exits: [{ guard: 'touchedReadme', to: 'build' }] }, verify: { tools: ['read_file', 'run', 'finish'] } },
        };`,
    });
    symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
    await trustWorkspaceRules(dir);
    const loaded = await loadRules({ workspace: dir });
    expect(Object.keys(loaded.guards)).toEqual(['touchedReadme']);
    // Registered once: the run's tools are rein's and it, offered in every phase whose list allows it (not verify's).
    expect(loaded.rules.tools.enabled).toEqual([...TOOL_NAMES, 'word_count']);
    const run = await runScripted({
      files: { 'README.md': 'hello' },
      testCmd: 'true',
      rules: { ...loaded.rules, budgets: { ...loaded.rules.budgets, maxSteps: 1 } },
      guards: loaded.guards,
      tools: loaded.tools,
      script: [reply(call('word_count', { text: 'one two three' }))],
    });
    expect(run.record.find((message) => message.role === 'tool')?.content).toBe('3');
    expect(run.lines('transition').some((line) => line.guard === 'touchedReadme' && String(line.to).startsWith('build'))).toBe(true);
  });

  it('rule actions: notify on entering a phase and on taking an exit, and one registered from a rules module, in a real run', async () => {
    const dir = dirWith({
      'rein.config.mjs': `
        export const actions = { remindTodo: (context) => ({ notices: [\`Open items: \${context.facts.todo.filter((item) => !item.done).length}\`], trace: { open: context.facts.todo.length } }) };
        export default {
          phases: {
            build: { onEnter: [{ action: 'remindTodo' }] },
            verify: { exits: [{ guard: 'testFailed', to: 'fix', actions: [{ action: 'notify', text: 'Read the first failure before editing. Still open: {todo}' }] }, { guard: 'editedSinceTest', to: 'build' }] },
          },
        };`,
    });
    await trustWorkspaceRules(dir);
    const loaded = await loadRules({ workspace: dir });
    expect(Object.keys(loaded.actions)).toEqual(['remindTodo']);
    const run = await runScripted({
      files: { 'a.js': 'export const a = 1;\n' },
      testCmd: 'false',
      rules: { ...loaded.rules, budgets: { ...loaded.rules.budgets, maxSteps: 4 } },
      guards: loaded.guards,
      actions: loaded.actions,
      script: [
        reply(
          call('update_todo', {
            items: [
              { task: 'fix a', done: false },
              { task: 'test a', done: true },
            ],
          }),
        ),
        reply(call('run', { command: 'false' })),
        reply(call('read_file', { path: 'a.js' })),
      ],
    });
    const notices = run.record.filter((message) => message.role === 'user').map((message) => String(message.content));
    expect(notices).toContain('[harness] Open items: 1');
    expect(notices).toContain('[harness] Read the first failure before editing. Still open: fix a');
    expect(run.lines('rule_action').map((line) => line.action)).toEqual(['remindTodo', 'notify']);
  });

  it('a registered action that returns the wrong shape or throws is traced, not obeyed and not a crash', async () => {
    const { defaultRules } = await import('../../../rules/schema.js');
    const rules = {
      ...defaultRules(),
      phases: { ...defaultRules().phases, build: { ...defaultRules().phases.build, onEnter: [{ action: 'weird' }, { action: 'broken' }] } },
    };
    const run = await runScripted({
      files: { 'a.js': 'x\n' },
      testCmd: 'true',
      rules: { ...rules, budgets: { ...rules.budgets, maxSteps: 2 } },
      actions: {
        weird: () => ({ notices: 'not-an-array' as unknown as string[] }),
        broken: () => {
          throw new Error('boom');
        },
      },
      script: [reply(call('update_todo', { items: [{ task: 'a', done: false }] })), reply(call('read_file', { path: 'a.js' }))],
    });
    const problems = run.lines('rule_action').map((line) => `${String(line.action)}: ${String(line.problem)}`);
    expect(problems).toEqual(['weird: notices must be an array of strings; ignored', 'broken: threw: boom']);
    expect(run.record.some((message) => message.role === 'user' && String(message.content) === '[harness] n')).toBe(false);
    expect(run.output.status).toBe('step_limit');
  });

  it('rein rules show prints the effective rules; coverage passes for the default rules', async () => {
    const show = await runCli(['rules', 'show', '--preset', 'strict'], { env: cleanEnv() });
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout).phases.plan!.tools).toEqual(['read_file', 'grep', 'update_todo', 'finish']);
    const coverage = await runCli(['rules', 'coverage'], { env: cleanEnv(), timeoutMs: 170_000 });
    expect(coverage.code).toBe(0);
    expect(coverage.stdout).toMatch(/(\d+)\/\1 transitions covered/);
  }, 180_000);
});
