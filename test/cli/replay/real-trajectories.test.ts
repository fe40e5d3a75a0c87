import { join } from 'node:path';
import type { RecordedRun } from 'rein/testing';
import { describe, expect, it } from 'vitest';
import { loadRuns } from '../../../cli/replay/load-runs.js';
import { realtrajRun } from '../../helpers/realtraj.js';

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures', 'replay');
const read = (...path: string[]) => {
  const loaded = loadRuns(join(fixtures, ...path));
  expect(loaded.skipped).toEqual([]);
  return loaded.runs;
};
const tools = (run: RecordedRun) => run.steps.map((step) => step.tool);
const count = (run: RecordedRun, tool: string) => run.steps.filter((step) => step.tool === tool).length;
/** Where two tool sequences differ: `index: ours/theirs`. */
const differences = (ours: readonly string[], theirs: readonly string[]) =>
  theirs.flatMap((tool, index) => (ours[index] !== tool ? [`${index + 1}: ${ours[index] ?? '-'}/${tool}`] : []));

/**
 * Real public trajectories (fixtures/replay/README.md names each source), read as their producer parsed them and
 * compared with the same runs in ../shared/realtraj, which were mapped from the same raw files.
 */
describe('mini-swe-agent 1.15 runs, read with mini-swe-agent’s own action regex', () => {
  // [file, model calls (info.model_stats.api_calls), replies without exactly one ```bash block]: counted on the raw files.
  const runs = [
    ['astropy__astropy-13453', 30, 0],
    ['django__django-11066', 19, 2],
    ['django__django-11138', 115, 15],
  ] as const;

  it.each(runs)('%s: one step per model call, the producer’s no-action replies, one submission', (name, calls, none) => {
    const [run] = read('mini-swe-agent', `${name}.traj.json`);
    expect(run!.steps).toHaveLength(calls);
    expect(count(run!, 'none')).toBe(none);
    // Every no-action reply is one mini-swe-agent answered with its format error.
    for (const step of run!.steps.filter((entry) => entry.tool === 'none')) expect(step.output).toMatch(/^Please always provide EXACTLY ONE action/);
    expect(count(run!, 'finish')).toBe(1);
    expect(run!.steps.at(-1)!.tool).toBe('finish');
    expect(run!.exitStatus).toBe('submitted');
  });

  it.each(runs)('%s: the same steps as the run in realtraj, no-action replies at the same places', (name) => {
    const [run] = read('mini-swe-agent', `${name}.traj.json`);
    const real = realtrajRun('mini-gemini3pro', name);
    expect(run!.steps).toHaveLength(real.steps.length);
    const noAction = (tools: readonly string[]) => tools.flatMap((tool, index) => (tool === 'none' ? [index] : []));
    expect(noAction(tools(run!))).toEqual(noAction(real.steps.map((step) => step.tool)));
  });

  it('differs from realtraj only where its mapping table reads a command otherwise, and where realtraj took a command that mentions the marker for the submission', () => {
    const astropy = read('mini-swe-agent', 'astropy__astropy-13453.traj.json')[0]!;
    // rein's table reads `sed -n '254,$p' FILE` as a read (to the end of the file); realtraj left it a command.
    expect(
      differences(
        tools(astropy),
        realtrajRun('mini-gemini3pro', 'astropy__astropy-13453').steps.map((step) => step.tool),
      ),
    ).toEqual(['7: read_file/run']);
    const django = read('mini-swe-agent', 'django__django-11138.traj.json')[0]!;
    expect(
      differences(
        tools(django),
        realtrajRun('mini-gemini3pro', 'django__django-11138').steps.map((step) => step.tool),
      ),
    ).toEqual([
      // `cat FILE | grep -A 20 …` is a search in realtraj's table, a command in rein's.
      '36: run/read_file',
      // `rm …` then `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`: rm complained first, so the output did not start with the marker, and
      // mini-swe-agent went on (it submits only when the output's first line is the marker): not the finish.
      '105: run/finish',
    ]);
    expect(django.steps[104]!.args.command).toMatch(/^rm [\s\S]*echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT/);
    expect(django.steps[104]!.output).toMatch(/^<returncode>0<\/returncode>\n<output>\nrm: cannot remove/);
  });

  it('a reply that quotes code before its one bash block is that one action (an unlabelled or closing fence is not a command)', () => {
    const django = read('mini-swe-agent', 'django__django-11066.traj.json')[0]!;
    const quoted = django.steps.filter((step) => step.tool !== 'none' && /```python/.test(String(step.raw ?? '')) === false);
    expect(quoted.length).toBe(17);
  });
});

describe('mini-swe-agent 2.x (trajectory_format mini-swe-agent-1.1)', () => {
  it('tool-call model: each parsed action is a step (several in one reply), a format error is a none step, the exit message is the submission', () => {
    const [run] = read('mini-swe-agent', 'v2-toolcall.traj.json');
    expect(tools(run!)).toEqual(['read_file', 'grep', 'none', 'edit_file', 'run', 'finish']);
    expect(run!.steps[1]).toMatchObject({ args: { pattern: 'def add', path: 'src' }, output: expect.stringContaining('src/add.py:1') });
    expect(run!.steps[2]).toMatchObject({ output: 'Expected exactly 1 action, found 0.', raw: 'I think the fix is obvious.' });
    expect(run!.steps[3]).toMatchObject({ exitCode: 0, edit: { applied: true } });
  });

  it('text-based model: the config’s action regex (mswea_bash_command), the documented exit as a user message', () => {
    const [run] = read('mini-swe-agent', 'v2-textbased.traj.json');
    expect(tools(run!)).toEqual(['run', 'none', 'finish']);
    expect(run!.exitStatus).toBe('submitted');
  });
});

describe('SWE-agent 1.1 runs, read with SWE-agent’s submit semantics', () => {
  it('sympy-13372: a format error asked again is a none step; the first submit (a review checklist) is a command, the last one the finish', () => {
    const [run] = read('swe-agent', 'sympy__sympy-13372.traj');
    expect(run!.steps).toHaveLength(27);
    expect(count(run!, 'none')).toBe(1);
    expect(run!.steps[23]).toMatchObject({ tool: 'run', args: { command: 'submit' }, output: expect.stringMatching(/^Thank you for your work on this issue/) });
    expect(run!.steps[26]).toMatchObject({ tool: 'finish', output: expect.stringMatching(/^diff --git a\/sympy\/core\/evalf\.py/) });
    // realtraj took both submits for the finish; everything else is the same.
    expect(
      differences(
        tools(run!),
        realtrajRun('sweagent-sonnet4', 'sympy__sympy-13372').steps.map((step) => step.tool),
      ),
    ).toEqual(['24: run/finish']);
  });

  it('sympy-13877: the autosubmission after the context ran out is not a model call (23 steps, as its api_calls); realtraj has it as a none step', () => {
    const [run] = read('swe-agent', 'sympy__sympy-13877.traj');
    expect(run!.steps).toHaveLength(23);
    expect(run!.exitStatus).toBe('context_limit');
    const real = realtrajRun('sweagent-sonnet4', 'sympy__sympy-13877').steps.map((step) => step.tool);
    expect(real).toHaveLength(24);
    expect(real.at(-1)).toBe('none');
    expect(differences(tools(run!), real.slice(0, 23))).toEqual([]);
  });

  it('the run’s resolved verdicts come from SWE-agent’s results.json', () => {
    const loaded = loadRuns(join(fixtures, 'swe-agent'));
    expect(loaded.ignored).toEqual([join(fixtures, 'swe-agent', 'results.json')]);
  });
});

describe('OpenHands event logs', () => {
  // [instance, steps, no-action steps, commands that exited non-zero, exit status]: counted on the raw output.jsonl.
  it.each([
    ['ponylang__ponyc-4595', 23, 0, 5, 'submitted'],
    ['ponylang__ponyc-4593', 34, 1, 2, 'submitted'],
    ['ponylang__ponyc-4588', 50, 1, 12, 'step_limit'],
  ] as const)('%s (output.jsonl): one step per model action or malformed call, observations paired by cause', (instance, steps, none, failed, exit) => {
    const run = read('openhands', 'multi-swe-bench-output.jsonl').find((entry) => entry.instance === instance)!;
    expect(run.steps).toHaveLength(steps);
    expect(count(run, 'none')).toBe(none);
    expect(run.steps.filter((step) => step.exitCode !== undefined && step.exitCode !== null && step.exitCode !== 0)).toHaveLength(failed);
    expect(run.exitStatus).toBe(exit);
    // Each command step carries what OpenHands ran and the observation that answered it.
    const first = run.steps.find((step) => step.tool === 'run' || step.tool === 'grep' || step.tool === 'read_file')!;
    expect(first.output).not.toBe('');
  });

  it('a trajectory export (a list of events): the edit and the finish', () => {
    const [run] = read('openhands', 'runtime-trajs-basic.json');
    expect(tools(run!)).toEqual(['edit_file', 'finish']);
    // An older log (impl_source oh_aci): the editor's command is only in the code it ran.
    expect(run!.steps[0]).toMatchObject({ args: { path: '/workspace/game_2048.py', old: '' }, edit: { applied: true, kind: 'create' } });
  });
});
