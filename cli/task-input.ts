import { readFileSync, statSync } from 'node:fs';
import { UsageError } from 'rein/lib';

/** Bytes a task may have, from a file or standard input: far beyond any context window, far below what would strain memory. */
const MAX_TASK_BYTES = 16 * 1024 * 1024;

/**
 * The task of `rein run`: the argument as it is, or, with `--task-file`, the
 * file's text (`-` reads standard input to its end). A missing or unreadable
 * file, a directory, an empty task or one past 16 MiB is a usage error that
 * says which. A leading byte-order mark is dropped.
 *
 * @example await readTask('-', false) // the task piped to `rein run repo -`
 */
export async function readTask(given: string, fromFile: boolean): Promise<string> {
  const where = fromFile ? `--task-file ${given}` : 'the task';
  const text = given === '-' ? await readStandardInput() : fromFile ? readTaskFile(given) : given;
  const task = text.replace(/^\uFEFF/, '');
  if (task.trim() === '') throw new UsageError(`rein run: ${given === '-' ? 'standard input' : where} holds no task (it is empty)`);
  return task;
}

function readTaskFile(path: string): string {
  let size: number;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw new UsageError(`rein run: --task-file ${path} is a directory, not a file`);
    size = stat.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`rein run: --task-file ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (size > MAX_TASK_BYTES) throw new UsageError(`rein run: --task-file ${path} is ${size} bytes, more than a task may be (${MAX_TASK_BYTES})`);
  return readFileSync(path, 'utf8');
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    bytes += buffer.length;
    if (bytes > MAX_TASK_BYTES) {
      process.stdin.destroy();
      throw new UsageError(`rein run: standard input holds more than a task may be (${MAX_TASK_BYTES} bytes)`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
