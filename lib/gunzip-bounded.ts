import { gunzip, gunzipSync } from 'node:zlib';
import { ReinError } from './errors.js';

/** The most bytes a gzip rein reads (a recorded run, a packed task, a run's files from the queue) may expand to. */
const MAX_GUNZIPPED_BYTES = 512 * 1024 * 1024;

/**
 * `gunzip` that stops at `max` bytes of output: a 1.5 MB gzip bomb cannot make rein hold gigabytes. Past the bound it
 * throws a `ReinError` naming `what` and the bound.
 *
 * @example const text = gunzipBounded(readFileSync('run.traj.gz'), 'run.traj.gz').toString('utf8');
 */
export function gunzipBounded(bytes: Buffer, what: string, max = MAX_GUNZIPPED_BYTES): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: max });
  } catch (error) {
    throw tooBig(error, what, max);
  }
}

/** The same, without blocking the event loop (a queue worker). */
export function gunzipBoundedAsync(bytes: Buffer, what: string, max = MAX_GUNZIPPED_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gunzip(bytes, { maxOutputLength: max }, (error, result) => (error ? reject(tooBig(error, what, max)) : resolve(result)));
  });
}

function tooBig(error: unknown, what: string, max: number): Error {
  if (error instanceof RangeError || (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
    return new ReinError(`${what}: decompressed, it is larger than ${Math.round(max / 1024 / 1024)} MiB, more than rein reads`);
  return error as Error;
}
