// Running a harness from your own code: load the rules (a file, a preset or {}), start the run, await its end.
import { loadRules, type Script, scriptedModelSource, startRun } from '../../index.js';

export async function runHarness(workspace: string, runDir: string, script: Script) {
  const { rules, guards, actions, tools } = await loadRules({ workspace });
  const run = await startRun({
    workspace,
    runDir,
    task: 'Make the tests pass.',
    testCmd: 'node --test',
    rules,
    guards,
    actions,
    tools,
    // A real model: openAIModelSource({ model: 'gpt-4.1-mini', baseURL, apiKey }, rules)
    model: scriptedModelSource('scripted', script),
  });
  const output = await run.done;
  return { status: output.status, steps: output.steps, trace: run.tracePath };
}
