import { z } from 'zod';
import { runRecordSchema } from '../run-record.js';

/**
 * What travels through Redis between `rein eval --queue` (the coordinator)
 * and `rein worker`: one schema for the job and one for its result, read and
 * written by both sides. Plain data only: no endpoint, no key, no local path.
 */
export const WIRE_VERSION = 1;

/** BullMQ key prefix and queue name: the queue's keys are `rein:eval:*`. */
export const KEY_PREFIX = 'rein';
export const QUEUE_NAME = 'eval';

/** A task folder, packed, stored once by content hash. */
export function taskKey(hash: string): string {
  return `${KEY_PREFIX}:task:${hash}`;
}

/** A rules file (`--config FILE`), stored once by content hash. */
export function fileKey(hash: string): string {
  return `${KEY_PREFIX}:file:${hash}`;
}

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 hex digest');
/** A name inside a run directory: no separators, so a result can only write where it belongs. */
const plainName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a plain file name');
/** `runs/<task>/<config>/r<n>`: relative, no `..`. */
const runPath = z
  .string()
  .regex(/^runs(\/[A-Za-z0-9._-]+)+$/)
  .refine((path) => !path.split('/').includes('..'), 'no ".." in a run path');

const price = z.object({ input: z.number().nonnegative(), cachedInput: z.number().nonnegative(), output: z.number().nonnegative() });

export const jobDataSchema = z.object({
  v: z.literal(WIRE_VERSION),
  evalId: z.string().min(1),
  task: z.object({ id: z.string().min(1), hash: sha256 }),
  config: z.object({
    label: z.string().min(1),
    preset: z.string().min(1),
    /** The hash of the configuration's effective rules; the worker loads them and refuses on a mismatch. */
    rulesHash: z.string().min(1),
    file: z.object({ name: plainName, hash: sha256 }).optional(),
  }),
  repeat: z.number().int().nonnegative(),
  /** The model's name only: each worker brings its own endpoint and key. */
  model: z.discriminatedUnion('kind', [z.object({ kind: z.literal('simulated') }), z.object({ kind: z.literal('endpoint'), name: z.string().min(1) })]),
  modelName: z.string().min(1),
  price: price.nullable(),
  priceSource: z.enum(['rules', 'prices-file', 'nominal', 'none']),
  runPath,
  /** Times the job may start in all: a run whose worker died is re-run until then. */
  attempts: z.number().int().positive(),
});

export type JobData = z.infer<typeof jobDataSchema>;

export const jobResultSchema = z.object({
  v: z.literal(WIRE_VERSION),
  record: runRecordSchema,
  /** The run directory's files (trace, record, journal, state), each gzipped, base64. */
  files: z.array(z.object({ name: plainName, gzip: z.string() })),
  /** Files left out or cut to keep the result under the worker's size cap. */
  cut: z.array(z.object({ name: plainName, bytes: z.number(), kept: z.number() })),
  /** `host:pid` of the worker that ran it. */
  worker: z.string(),
  /** Milliseconds the run took in the worker's local pool (the rest of the job's time is the queue's). */
  runMs: z.number().nonnegative().optional(),
});

export type JobResult = z.infer<typeof jobResultSchema>;

/** Problems of a value that is not a job or result of this wire version, in a few words. */
export function describeWireProblem(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`)
    .join('; ');
}
