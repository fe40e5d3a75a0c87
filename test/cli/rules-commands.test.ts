import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_GUARDS } from '../../machines/guards/catalogue.js';
import { END_TARGETS } from '../../rules/schema.js';
import { cleanEnv, repoRoot, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

describe('changing the harness without code, from the command line', () => {
  it('rein rules guards lists every guard with its parameters, defaults and an example', async () => {
    const result = await runCli(['rules', 'guards'], { env: cleanEnv() });
    expect(result.code).toBe(0);
    for (const name of Object.keys(BUILT_IN_GUARDS)) expect(result.stdout).toContain(`${name}  [`);
    expect(result.stdout).toContain(
      'phaseSteps  [phase exit]\n  The phase has taken at least `min` steps (model replies) since it was entered.\n  min: integer, required: Smallest number of steps in this phase that makes it hold',
    );
    expect(result.stdout).toContain('todoProgress  [phase exit]');
    expect(result.stdout).toContain('  count: integer, default 1: Todo items that must be ticked off');
    // Every end an exit may name (failed too), and what a guard of one's own may return.
    for (const end of END_TARGETS) expect(result.stdout).toMatch(new RegExp(`end the run with .*\\b${end}\\b`));
    expect(result.stdout).toContain('(view, params) => true, false, or { holds: false, reason }');
    const json = await runCli(['rules', 'guards', '--format', 'json'], { env: cleanEnv() });
    const entries = JSON.parse(json.stdout) as Array<{ name: string; kind: string; params: unknown[] }>;
    expect(entries.find((entry) => entry.name === 'testsPassedSinceLastEdit')).toMatchObject({
      kind: 'gate',
      params: [
        { name: 'runs', default: 1 },
        { name: 'checks', default: {} },
      ],
    });
  }, 60_000);

  it('rein rules show --preset prints only what the preset changes; --full prints everything', async () => {
    const diff = await runCli(['rules', 'show', '--preset', 'strict'], { env: cleanEnv() });
    expect(diff.code).toBe(0);
    expect(JSON.parse(diff.stdout)).toEqual({
      phases: { plan: { tools: ['read_file', 'grep', 'update_todo', 'finish'], exits: [{ guard: 'todoWritten', to: 'build' }] } },
    });
    const full = await runCli(['rules', 'show', '--preset', 'strict', '--full'], { env: cleanEnv() });
    expect(JSON.parse(full.stdout).budgets.maxSteps).toBe(40);
  }, 60_000);

  it('an unknown preset is refused everywhere with the list of presets', async () => {
    for (const args of [
      ['eval', 'eval/suite', '--preset', 'nope'],
      ['demo', '--preset', 'stirct'],
      ['rules', 'show', '--preset', 'nope'],
    ]) {
      const result = await runCli(args, { env: cleanEnv() });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain(
        'presets: default, bash-only, no-context-management, no-stall-detector, no-verification-gate, no-plan, strict',
      );
    }
    expect((await runCli(['demo', '--preset', 'stirct'], { env: cleanEnv() })).stderr).toContain('(did you mean "strict"?)');
  }, 120_000);

  it('rein demo --config with the review recipe runs through the added review phase to done', async () => {
    const result = await runCli(['demo', '--config', join(repoRoot, 'docs', 'cookbook', 'review-before-finish.json'), '--json'], { env: cleanEnv() });
    expect(result.code, result.stderr).toBe(0);
    const { status, trace } = JSON.parse(result.stdout) as { status: string; trace: string };
    expect(status).toBe('done');
    const events = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; to?: string; allowed?: boolean; why?: string });
    expect(events.some((event) => event.kind === 'transition' && String(event.to).startsWith('review.'))).toBe(true);
    const finishes = events.filter((event) => event.kind === 'finish');
    expect(finishes.at(-1)).toMatchObject({ allowed: true });
    expect(finishes.some((event) => event.why?.includes('no todo item "reviewed"'))).toBe(true);
    // What is in effect is said at the start and kept in the trace.
    const recipePath = join(repoRoot, 'docs', 'cookbook', 'review-before-finish.json');
    expect(result.stderr).toMatch(/^rein: rules: preset default \+ .*review-before-finish\.json \+ command-line flags \+ defaults$/m);
    expect((events[0] as { rulesFrom?: string[] }).rulesFrom).toEqual(['preset default', recipePath, 'command-line flags']);
  }, 90_000);

  it('rein rules graph prints the phase-level chart; --all every state; --diff what a rules file changes', async () => {
    const phases = await runCli(['rules', 'graph'], { env: cleanEnv() });
    expect(phases.stdout).toContain('  build --> verify : [testRun] | [finishRefused]');
    expect(phases.stdout).not.toContain('build.think');
    const all = await runCli(['rules', 'graph', '--all'], { env: cleanEnv() });
    expect(all.stdout.split('\n').length).toBeGreaterThan(phases.stdout.split('\n').length * 3);
    const diff = await runCli(['rules', 'graph', '--diff', '--config', join(repoRoot, 'docs', 'cookbook', 'review-before-finish.json')], { env: cleanEnv() });
    expect(diff.stdout).toContain('+ verify --> review : [testsPassedSinceLastEdit(runs=1)]');
    expect(diff.stdout).toContain('- every_phase --> done : [testsPassedSinceLastEdit(runs=1)]');
    const same = await runCli(['rules', 'graph', '--diff'], { env: cleanEnv() });
    expect(same.stdout).toBe('');
    expect(same.stderr).toContain("the same chart as the default rules'");
  }, 60_000);

  it("rein demo --config runs the demo under a rules file (the model reads the refusal in the rules' words)", async () => {
    const result = await runCli(['demo', '--config', join(repoRoot, 'docs', 'cookbook', 'refusal-message.json'), '--json'], { env: cleanEnv() });
    expect(result.code, result.stderr).toBe(0);
    const { runDir } = JSON.parse(result.stdout) as { runDir: string };
    const record = readFileSync(join(runDir, 'record.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { role: string; content: string | null });
    expect(
      record.some(
        (message) =>
          message.role === 'tool' &&
          message.content ===
            'Refused: no passing test run after the last edit. Run `node --test` and quote the summary line of its output before you call finish again.',
      ),
    ).toBe(true);
    const plain = await runCli(['demo', '--json'], { env: cleanEnv() });
    const plainRecord = readFileSync(join((JSON.parse(plain.stdout) as { runDir: string }).runDir, 'record.jsonl'), 'utf8');
    expect(plainRecord).not.toContain('Refused:');
  }, 90_000);

  it('rein rules check names what can never fire with the reason and the fix, exit 1; rules show says it too; clean rules exit 0', async () => {
    const dir = makeTempDir('rein-rules-check-');
    const readOnly = join(dir, 'read-only-plan.json');
    writeFileSync(
      readOnly,
      JSON.stringify({
        phases: {
          plan: {
            tools: ['read_file', 'grep', 'update_todo', 'finish'],
            exits: [
              { guard: 'todoWritten', to: 'build' },
              { guard: 'editMade', to: 'verify' },
            ],
          },
        },
      }),
    );
    const checked = await runCli(['rules', 'check', '--config', readOnly], { env: cleanEnv(), cwd: dir });
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(
      'warning: phases.plan.exits: editMade → verify never fires or changes nothing: editMade needs edits, and phase plan offers neither edit_file nor run with verification.commandsCountAsEdits (fix: add edit_file to phases.plan.tools, or remove the exit)',
    );
    const shown = await runCli(['rules', 'show', '--config', readOnly], { env: cleanEnv(), cwd: dir });
    expect(shown.stderr).toContain('rein: warning: phases.plan.exits: editMade → verify never fires');
    const clean = join(dir, 'deny-only.json');
    writeFileSync(clean, JSON.stringify({ approvals: { deny: ['run(rm -rf *)'] } }));
    const fine = await runCli(['rules', 'check', '--config', clean], { env: cleanEnv(), cwd: dir });
    expect([fine.code, fine.stdout]).toEqual([0, expect.stringContaining('0 warning(s)')]);
  }, 60_000);

  it('rein rules coverage --why prints the path that took a transition, and for an every-phase exit beaten in one phase why, as information', async () => {
    const dir = makeTempDir('rein-coverage-why-');
    const config = join(dir, 'every-phase.json');
    writeFileSync(config, JSON.stringify({ phases: { '*': { exitsAppend: [{ guard: 'todoWritten', to: 'verify' }] } } }));
    // A coverage search explores a few thousand states: a minute or more on a loaded two-core machine.
    const why = await runCli(['rules', 'coverage', '--config', config, '--why', '[todoWritten]--> verify.observe'], {
      env: cleanEnv(),
      cwd: dir,
      timeoutMs: 280_000,
    });
    expect(why.code).toBe(0);
    expect(why.stdout).toContain(
      'i plan.route --always [todoWritten]--> verify.observe\n  shadowed by plan.route --always [todoWritten]--> build.observe: the same condition, tried first',
    );
    expect(why.stdout).toMatch(
      /✓ build\.route --always \[todoWritten\]--> verify\.observe\n {2}taken from build\.act .*\n(.*\n)*.*the model replies with update_todo/,
    );
    const missing = await runCli(['rules', 'coverage', '--config', config, '--why', 'no such transition'], { env: cleanEnv(), cwd: dir, timeoutMs: 280_000 });
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('no transition\'s name contains "no such transition"')]);
  }, 600_000);
});
