import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { sha256Hex } from './task-content.js';

/** `<out>/queue.json`: the eval's id in the queue, kept so a re-run with the same `--out` finds its jobs again. */
const QUEUE_FILE = 'queue.json';

const queueFileSchema = z.object({ version: z.literal(1), evalId: z.string().regex(/^[0-9a-f]{12}$/) }).loose();

/**
 * The job id of one (task, configuration, repeat) in one eval:
 * `<eval>.<task content hash>.<configuration hash>.r<repeat>`. Deterministic,
 * so adding a job that is already queued, running or finished is a no-op:
 * a resumed coordinator re-enqueues nothing.
 *
 * @example jobIdFor('3f9a0c1b2d4e', taskHash, configKeyFor('default', 'ffc29988741b', 'simulated:careful'), 0)
 */
export function jobIdFor(evalId: string, taskHash: string, configKey: string, repeat: number): string {
  return `${evalId}.${taskHash.slice(0, 16)}.${configKey}.r${repeat}`;
}

/** A configuration as the queue knows it: its label, its rules' hash and the model (two labels with the same rules stay two jobs). */
export function configKeyFor(label: string, rulesHash: string, modelName: string): string {
  return sha256Hex(`${label}\0${rulesHash}\0${modelName}`).slice(0, 12);
}

/**
 * The eval id of an output dir: read from `<out>/queue.json`, or made (random)
 * and written there on the first queued run. A new `--out` is a new eval,
 * even for the same tasks and configurations.
 */
export function evalIdOf(outDir: string): string {
  const file = join(outDir, QUEUE_FILE);
  if (existsSync(file)) {
    const parsed = queueFileSchema.safeParse(safeJson(readFileSync(file, 'utf8')));
    if (parsed.success) return parsed.data.evalId;
  }
  const evalId = randomBytes(6).toString('hex');
  writeFileSync(`${file}.tmp`, JSON.stringify({ version: 1, evalId, createdAt: new Date().toISOString() }, null, 2) + '\n');
  renameSync(`${file}.tmp`, file);
  return evalId;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
