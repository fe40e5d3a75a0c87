import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { gunzipBoundedAsync } from 'rein/lib';
import type { JobResult } from './wire-format.js';

const gzipAsync = promisify(gzip);

/** The trace first: under the size cap it is the file kept longest. */
const ORDER = ['trace.jsonl', 'run.json', 'record.jsonl', 'calls.jsonl', 'state.json'];

/**
 * A run directory's files for the trip back, gzipped, at most `capBytes`
 * compressed in all. Past the cap the trace is cut at a line boundary (its
 * readers take a trace whose end is missing) and the other files are left
 * out; `cut` says what was lost.
 *
 * @example const { files, cut } = await packRunFiles(runDir, 32 * 1024 * 1024);
 */
export async function packRunFiles(dir: string, capBytes: number): Promise<Pick<JobResult, 'files' | 'cut'>> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name));
  const ordered = [...ORDER.filter((name) => names.includes(name)), ...names.filter((name) => !ORDER.includes(name)).sort()];
  const files: JobResult['files'] = [];
  const cut: JobResult['cut'] = [];
  let left = capBytes;
  for (const name of ordered) {
    const path = join(dir, name);
    if (!(await stat(path)).isFile()) continue;
    const bytes = await readFile(path);
    let packed: Buffer = await gzipAsync(bytes);
    let kept = bytes.length;
    if (packed.length > left && name === 'trace.jsonl') ({ packed, kept } = await cutToFit(bytes, left, packed.length));
    if (packed.length > left) {
      cut.push({ name, bytes: bytes.length, kept: 0 });
      continue;
    }
    if (kept < bytes.length) cut.push({ name, bytes: bytes.length, kept });
    files.push({ name, gzip: packed.toString('base64') });
    left -= packed.length;
  }
  return { files, cut };
}

/** A whole-line head of `bytes` whose gzip fits `room`, sized from the whole file's compression ratio. */
async function cutToFit(bytes: Buffer, room: number, packedLength: number): Promise<{ packed: Buffer; kept: number }> {
  let length = Math.floor(bytes.length * (room / packedLength) * 0.95);
  for (;;) {
    const end = length > 0 ? bytes.lastIndexOf(0x0a, length - 1) + 1 : 0;
    const packed = await gzipAsync(bytes.subarray(0, end));
    if (packed.length <= room || end === 0) return { packed, kept: end };
    length = Math.floor(end * 0.9);
  }
}

/**
 * Writes a result's files into the coordinator's run directory, replacing
 * what an earlier attempt left there. Names were checked by the wire schema,
 * so nothing lands outside `dir`.
 */
export async function writeRunFiles(dir: string, files: JobResult['files']): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const file of files) await writeFile(join(dir, file.name), await gunzipBoundedAsync(Buffer.from(file.gzip, 'base64'), `run file ${file.name}`));
}
