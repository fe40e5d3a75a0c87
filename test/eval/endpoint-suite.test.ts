import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Configuration, resolveConfiguration } from '../../eval/configurations.js';
import { NOMINAL_PRICE } from '../../eval/prices.js';
import type { RunRecord } from '../../eval/run-record.js';
import { runEvalJob } from '../../eval/run-task.js';
import { simulatedModelName } from '../../eval/simulated/model-source.js';
import { loadTaskSet } from '../../eval/task.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { repoRoot } from '../helpers/cli.js';

const suite = join(repoRoot, 'eval', 'suite-endpoints');
const { tasks, problems } = loadTaskSet(suite);
const DEFAULT: Configuration = { label: 'default', preset: 'default' };
const NO_RECOVERY: Configuration = { label: 'no-call-recovery', preset: 'default', configPath: join(suite, 'no-call-recovery.json') };

async function run(id: string, configuration: Configuration): Promise<{ record: RunRecord; kinds: string[] }> {
  const task = tasks.find((entry) => entry.id === id)!;
  const resolved = await resolveConfiguration(configuration);
  const outDir = makeTempDir('rein-endpoint-suite-', { until: 'exit' });
  const runDir = join(outDir, 'run');
  const record = await runEvalJob({
    task,
    config: configuration,
    configHash: resolved.hash,
    repeat: 0,
    model: { kind: 'simulated' },
    modelName: simulatedModelName(task.simulated!),
    price: NOMINAL_PRICE,
    priceSource: 'nominal',
    runDir,
    outDir,
    keepWorkspace: false,
  });
  const kinds = readFileSync(join(runDir, 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { kind: string }).kind);
  return { record, kinds };
}

const ending = ({ record }: { record: RunRecord }) => `${record.task}/${record.config}: ${record.status} after ${record.steps} steps (${record.reason})`;
const count = (kinds: string[], kind: string) => kinds.filter((entry) => entry === kind).length;

describe('the offline endpoint suite: a text-calling and an argument-mangling model, with recovery on and off', () => {
  it('has a task for each shape in Python and JavaScript, every one valid', () => {
    expect(problems).toEqual([]);
    const models = new Set(tasks.flatMap((task) => (task.simulated?.kind === 'registry' ? task.simulated.names : [])));
    expect(models).toEqual(new Set(['text-calls', 'mangled-arguments']));
    expect(tasks.filter((task) => task.test_cmd.startsWith('python3')).length).toBeGreaterThan(0);
    expect(tasks.filter((task) => task.test_cmd.startsWith('node')).length).toBeGreaterThan(0);
  });

  it('recovery solves what turning it off loses, and the trace says how: calls recovered from text, arguments repaired', async () => {
    const [text, textOff, mangled, mangledOff] = await Promise.all([
      run('text-calls-py-units', DEFAULT),
      run('text-calls-py-units', NO_RECOVERY),
      run('mangled-arguments-js-words', DEFAULT),
      run('mangled-arguments-js-words', NO_RECOVERY),
    ]);
    expect(text.record, ending(text)).toMatchObject({ resolved: true, status: 'done' });
    expect(count(text.kinds, 'calls_recovered')).toBe(text.record.steps);
    // Off, every reply is prose to the harness: nudged, then stalled, with nothing run.
    expect(textOff.record, ending(textOff)).toMatchObject({ resolved: false, status: 'stalled' });
    expect(count(textOff.kinds, 'calls_recovered') + count(textOff.kinds, 'tool')).toBe(0);

    expect(mangled.record, ending(mangled)).toMatchObject({ resolved: true, status: 'done' });
    expect(count(mangled.kinds, 'arguments_repaired')).toBe(mangled.record.steps);
    // Off, each bent argument goes back to the model as a tool error it cannot get past; the run never crashes.
    expect(mangledOff.record, ending(mangledOff)).toMatchObject({ resolved: false, status: 'step_limit' });
    expect(count(mangledOff.kinds, 'arguments_repaired')).toBe(0);
    expect(count(mangledOff.kinds, 'tool')).toBeGreaterThan(0);
  }, 120_000);
});
