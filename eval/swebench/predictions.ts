import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from 'rein/tools';
import type { RunRecord } from '../run-record.js';
import { MODEL_PATCH_FILE } from './grade-run.js';

/** One line of a SWE-bench predictions file, with the official harness's field names. */
interface Prediction {
  instance_id: string;
  model_name_or_path: string;
  model_patch: string;
}

/** The name a configuration's predictions go under: SWE-bench turns "/" into "__" for its log folders. */
function predictionName(config: string, model: string): string {
  return `rein/${config}/${model}`;
}

/**
 * Writes `predictions.jsonl` (the first configuration, the baseline) and
 * `predictions-<configuration>.jsonl` for the others: one line per instance
 * from its first run (repeat 0), its patch read from the run's
 * `model.patch` (empty when the run never got to one). Files are written
 * atomically; returns their paths.
 *
 * @example writePredictions('eval-out', records, ['default', 'no-plan'], 'gpt-5-mini');
 */
export function writePredictions(outDir: string, records: readonly RunRecord[], configs: readonly string[], model: string): string[] {
  return configs.map((config, index) => {
    const lines = records
      .filter((record) => record.config === config && record.repeat === 0 && typeof record.instanceId === 'string')
      .sort((a, b) => String(a.instanceId).localeCompare(String(b.instanceId)))
      .map(
        (record): Prediction => ({
          instance_id: String(record.instanceId),
          model_name_or_path: predictionName(config, model),
          model_patch: patchOf(outDir, record),
        }),
      );
    const path = join(outDir, index === 0 ? 'predictions.jsonl' : `predictions-${config.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`);
    writeFileAtomic(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    return path;
  });
}

function patchOf(outDir: string, record: RunRecord): string {
  if (!record.tracePath) return '';
  const path = join(outDir, dirname(record.tracePath), MODEL_PATCH_FILE);
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}
