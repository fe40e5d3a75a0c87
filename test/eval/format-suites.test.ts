import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEXT_CALL_FORMATS } from '../../actors/model/text-calls/formats.js';
import { type Configuration, resolveConfiguration } from '../../eval/configurations.js';
import { NOMINAL_PRICE } from '../../eval/prices.js';
import { runEvalJob } from '../../eval/run-task.js';
import { simulatedModelName } from '../../eval/simulated/model-source.js';
import { type EvalTask, loadTaskSet } from '../../eval/task.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { repoRoot } from '../helpers/cli.js';

// The offline format suites (docs/endpoints.md, "Measured on formats rein was not tuned to"): a careful simulated
// model that writes every call natively in one census format, one task per format. The figure the docs give is
// `npx rein eval eval/suite-formats-held-out --preset default`; this test holds the suites to what the docs say.

const heldOut = loadTaskSet(join(repoRoot, 'eval', 'suite-formats-held-out'));
const tuned = loadTaskSet(join(repoRoot, 'eval', 'suite-formats-tuned'));
const formatOf = (task: EvalTask) => (task.simulated?.kind === 'registry' ? task.simulated.names[0]!.replace(/^text-calls:/, '') : '');
const DEFAULT: Configuration = { label: 'default', preset: 'default' };

async function resolved(task: EvalTask): Promise<boolean> {
  const configuration = await resolveConfiguration(DEFAULT);
  const outDir = makeTempDir('rein-format-suite-', { until: 'exit' });
  const record = await runEvalJob({
    task,
    config: DEFAULT,
    configHash: configuration.hash,
    repeat: 0,
    model: { kind: 'simulated' },
    modelName: simulatedModelName(task.simulated!),
    price: NOMINAL_PRICE,
    priceSource: 'nominal',
    runDir: join(outDir, 'run'),
    outDir,
    keepWorkspace: false,
  });
  return record.resolved;
}

describe('the offline format suites', () => {
  it('hold twelve held-out families and eight tuned ones, every task valid, no format in both', () => {
    expect(heldOut.problems).toEqual([]);
    expect(tuned.problems).toEqual([]);
    const held = heldOut.tasks.map(formatOf);
    const tunedFormats = tuned.tasks.map(formatOf);
    expect(new Set(held).size).toBe(12);
    expect(new Set(tunedFormats).size).toBe(8);
    for (const format of [...held, ...tunedFormats]) expect(format in TEXT_CALL_FORMATS).toBe(true);
    expect(held.filter((format) => tunedFormats.includes(format))).toEqual([]);
    // The twelve held-out formats come from five census entries the tuning set has none of.
    const census = (formats: string[]) => new Set(formats.map((format) => TEXT_CALL_FORMATS[format as keyof typeof TEXT_CALL_FORMATS].census));
    expect([...census(held)].sort()).toEqual(['F11', 'F12', 'F13', 'F14', 'F4']);
    expect([...census(held)].filter((entry) => census(tunedFormats).has(entry))).toEqual([]);
  });

  it('every held-out run succeeds: 12 of 12', async () => {
    const outcomes = await Promise.all(heldOut.tasks.map(async (task) => [task.id, await resolved(task)] as const));
    expect(outcomes.filter(([, ok]) => !ok).map(([id]) => id)).toEqual([]);
  }, 180_000);
});
