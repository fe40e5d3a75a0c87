import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedModelSource } from '../../actors/model/model-source.js';
import { call, reply } from '../../actors/model/scripted-model.js';
import { UsageError } from '../../lib/errors.js';
import { rulesSchema } from '../../rules/schema.js';
import { checkTaskFits } from '../../run/parts/task-fit.js';
import { startRun } from '../../run/start-run.js';
import { defaultTools, toolSchemas } from '../../tools/index.js';
import { makeTempDir, writeFiles } from '../helpers/workspace.js';

// A task is never shortened: one the context window cannot hold with the system prompt, the tool definitions and
// room for an answer is refused with the numbers before anything of the run exists; one that fits always starts.

const rules = rulesSchema.parse({ context: { windowTokens: 4000, charsPerToken: 4 }, phases: { plan: { enabled: false } }, verification: { gate: false } });
const overhead = Math.ceil((rules.systemPrompt.length + JSON.stringify(toolSchemas(defaultTools)).length) / 4);
/** The longest task that fits: the window less the overhead and the least room for an answer, in characters. */
const longest = (4000 - overhead - 256) * 4;

describe('a task and the context window', () => {
  it('the longest task that fits passes; one token more is refused, naming both numbers and the setting', () => {
    expect(() => checkTaskFits({ task: 'x'.repeat(longest), rules, tools: defaultTools })).not.toThrow();
    const refused = (() => {
      try {
        checkTaskFits({ task: 'x'.repeat(longest + 1), rules, tools: defaultTools });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toContain(`and with the system prompt and tool definitions (about ${overhead.toLocaleString('en-US')} tokens)`);
    expect((refused as Error).message).toContain('the first request needs 4,001, more than the window of 4,000 (context.windowTokens)');
  });

  it('startRun refuses it before the run directory or the workspace .rein exists', async () => {
    const workspace = makeTempDir('rein-fit-');
    writeFiles(workspace, { 'a.txt': 'x\n' });
    const runDir = join(makeTempDir('rein-fit-run-'), 'run');
    const start = startRun({
      workspace,
      task: 'y'.repeat(longest + 4000),
      testCmd: '',
      rules,
      model: scriptedModelSource('m', [reply(call('finish', { summary: 'done' }))]),
      runDir,
    });
    await expect(start).rejects.toThrow(/the task does not fit the model's context window/);
    expect(existsSync(runDir)).toBe(false);
    expect(existsSync(join(workspace, '.rein'))).toBe(false);
  });
});
