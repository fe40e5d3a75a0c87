import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfiguration } from '../../eval/configurations.js';
import { NOMINAL_PRICE } from '../../eval/prices.js';
import type { RunRecord } from '../../eval/run-record.js';
import { runEvalJob } from '../../eval/run-task.js';
import { runShell } from '../../eval/shell.js';
import { createSimulatedAgent } from '../../eval/simulated/agent.js';
import { harnessTexts } from '../../eval/simulated/feedback.js';
import { simulatedModelName } from '../../eval/simulated/model-source.js';
import { traitsOf } from '../../eval/simulated/registry.js';
import { loadTaskSet } from '../../eval/task.js';
import { defaultRules } from '../../rules/schema.js';
import { runScripted } from '../../testing/index.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { defaultTools } from '../../tools/index.js';
import type { AnyTool } from '../../tools/types.js';
import { readProgress } from '../../tools/update-todo.js';
import { repoRoot } from '../helpers/cli.js';

const { tasks } = loadTaskSet(join(repoRoot, 'eval', 'suite'));

/** Shown when an outcome is not the expected one: how the run ended and what the grader printed last. */
const ending = (record: RunRecord) =>
  `${record.task}/${record.config}: ${record.status} after ${record.steps} steps (${record.reason}); check: ${record.checkOutput.slice(-400)}`;

async function runSuiteTask(id: string, preset: string) {
  const task = tasks.find((entry) => entry.id === id)!;
  const config = await resolveConfiguration({ label: preset, preset });
  const outDir = makeTempDir('rein-suite-effect-', { until: 'exit' });
  return runEvalJob({
    task,
    config: { label: preset, preset },
    configHash: config.hash,
    repeat: 0,
    model: { kind: 'simulated' },
    modelName: simulatedModelName(task.simulated!),
    price: NOMINAL_PRICE,
    priceSource: 'nominal',
    runDir: join(outDir, 'run'),
    outDir,
    keepWorkspace: false,
  });
}

describe('the offline suite shows what each component does (in process, JavaScript tasks)', () => {
  it('a task flips when the component its simulated model needs is ablated, and the trace counts say why', async () => {
    // no-stall-detector is left out for time: without nudges the loop runs the whole step budget (see the README's figures).
    const [cart, cartNoGate, cartNoPlan, durations, durationsNoContext] = await Promise.all([
      runSuiteTask('js-cart', 'default'),
      runSuiteTask('js-cart', 'no-verification-gate'),
      runSuiteTask('js-cart', 'no-plan'),
      runSuiteTask('js-durations', 'default'),
      runSuiteTask('js-durations', 'no-context-management'),
    ]);
    expect(cart, ending(cart)).toMatchObject({ resolved: true, status: 'done' });
    expect(cart.gateRefusals).toBeGreaterThan(0);
    expect(cartNoGate, ending(cartNoGate)).toMatchObject({ resolved: false, status: 'done', gateRefusals: 0 });
    expect(cartNoPlan, ending(cartNoPlan)).toMatchObject({ resolved: false, status: 'done' });

    expect(durations, ending(durations)).toMatchObject({ resolved: true, status: 'done' });
    expect(durations.stallFirings).toBeGreaterThan(0);
    expect(durations.contextElisions).toBeGreaterThan(0);
    expect(durationsNoContext, ending(durationsNoContext)).toMatchObject({ resolved: false, status: 'budget', contextElisions: 0 });
  }, 60_000);
});

describe('the plan effect comes through the harness, not from the simulated model alone', () => {
  /** js-cart with its plan-dependent model, run in process with the given tools; returns the grader's exit code. */
  async function cartWith(tools: readonly AnyTool[]) {
    const task = tasks.find((entry) => entry.id === 'js-cart')!;
    const choice = task.simulated!;
    if (choice.kind !== 'registry') throw new Error('js-cart has a registered simulated model');
    const workspace = makeTempDir('rein-plan-effect-', { until: 'exit' });
    cpSync(task.repoDir, workspace, { recursive: true });
    const rules = defaultRules();
    const script = createSimulatedAgent({
      traits: traitsOf(choice.names),
      simulation: choice.simulation,
      testCmd: task.test_cmd,
      tools: tools.map((tool) => tool.name),
      texts: harnessTexts(rules),
    });
    const run = await runScripted({
      workspace,
      task: task.prompt,
      testCmd: task.test_cmd,
      tools,
      replaceTools: 'only',
      script,
      rules: { budgets: { maxSteps: 30 } },
    });
    const check = await runShell(task.check_cmd, {
      cwd: workspace,
      timeoutS: 60,
      env: { REIN_TASK_DIR: task.dir, REIN_WORKSPACE: workspace },
      sandbox: false,
      readable: [],
    });
    return { run, checkExit: check.exitCode };
  }

  it('the same model with the same tool names misses the unseen requirement when update_todo saves the list but does not show it back', async () => {
    const silentTodo = defaultTools.map(
      (tool): AnyTool =>
        tool.name !== 'update_todo'
          ? tool
          : {
              ...tool,
              execute: async (args, ctx) => ({ ...(await tool.execute(args as never, ctx)), content: 'Saved.' }),
            },
    );
    const [echoed, silent] = await Promise.all([cartWith(defaultTools), cartWith(silentTodo)]);
    expect(echoed.run.output.status).toBe('done');
    expect(echoed.checkExit).toBe(0);
    // The list was written and persisted both times; only what the harness showed back differs.
    expect(readProgress(silent.run.workspace)?.map((item) => item.task)).toContain('fixed coupons never go below zero');
    expect(silent.run.output.status).toBe('done');
    expect(silent.checkExit).not.toBe(0);
  }, 60_000);
});
