import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { gunzipBoundedAsync, ReinError, UsageError } from 'rein/lib';
import { z } from 'zod';
import { type ContentEntry, hashContent, listContent } from './task-content.js';

const gzipAsync = promisify(gzip);

/** Largest packed task the queue takes (Redis strings stop at 512 MB; a task this big wants a shared volume). */
const MAX_PACKED_BYTES = 256 * 1024 * 1024;

const manifestSchema = z.array(
  z.object({
    path: z.string().min(1),
    kind: z.enum(['dir', 'file', 'symlink']),
    executable: z.boolean(),
    target: z.string().optional(),
    size: z.number().int().nonnegative(),
  }),
);

/**
 * A task folder as one gzipped blob: a 4-byte length, a JSON manifest, then
 * the files' bytes in manifest order. Our own format rather than tar: it
 * keeps exactly what the content hash covers (no owners, no times), so
 * packing the same folder twice gives the same hash.
 *
 * @example const { hash, blob } = await packTask('js-cart', 'eval/suite/js-cart');
 */
export async function packTask(id: string, root: string): Promise<{ hash: string; blob: Buffer }> {
  const entries = await listContent(root);
  const bytes = new Map<string, Buffer>();
  for (const entry of entries) if (entry.kind === 'file') bytes.set(entry.path, await readFile(join(root, entry.path)));
  const hash = await hashContent(id, root, entries, async (path) => bytes.get(path)!);
  const manifest = Buffer.from(JSON.stringify(entries.map((entry) => ({ ...entry, size: bytes.get(entry.path)?.length ?? 0 }))));
  const header = Buffer.alloc(4);
  header.writeUInt32BE(manifest.length);
  const blob = await gzipAsync(Buffer.concat([header, manifest, ...entries.flatMap((entry) => bytes.get(entry.path) ?? [])]));
  if (blob.length > MAX_PACKED_BYTES)
    throw new UsageError(`task ${id} is ${Math.round(blob.length / 1048576)} MB packed; the queue takes tasks up to ${MAX_PACKED_BYTES / 1048576} MB`);
  return { hash, blob };
}

/**
 * Writes a packed task into `dir` (which must not exist yet). Rejects a
 * manifest with absolute paths, `..`, or entries under a symlink, so a blob
 * can only write inside `dir`.
 *
 * @example await unpackTask(blob, '/cache/rein/tasks/.tmp-1/js-cart');
 */
export async function unpackTask(blob: Buffer, dir: string): Promise<void> {
  const raw = await gunzipBoundedAsync(blob, 'packed task');
  const length = raw.readUInt32BE(0);
  const parsed = manifestSchema.safeParse(JSON.parse(raw.subarray(4, 4 + length).toString('utf8')));
  if (!parsed.success) throw new ReinError('packed task: unreadable manifest');
  const entries = parsed.data;
  checkPaths(entries);
  await mkdir(dir, { recursive: true });
  let offset = 4 + length;
  for (const entry of entries) {
    const path = join(dir, entry.path);
    if (entry.kind === 'dir') await mkdir(path, { recursive: true });
    if (entry.kind === 'file') {
      if (offset + entry.size > raw.length) throw new ReinError(`packed task: ${entry.path} is cut short`);
      await writeFile(path, raw.subarray(offset, offset + entry.size), { mode: entry.executable ? 0o755 : 0o644 });
      offset += entry.size;
    }
  }
  // Links last: nothing is ever written through one.
  for (const entry of entries) if (entry.kind === 'symlink') await symlink(entry.target ?? '', join(dir, entry.path));
}

function checkPaths(entries: ReadonlyArray<Pick<ContentEntry, 'path' | 'kind'>>): void {
  const links = entries.filter((entry) => entry.kind === 'symlink').map((entry) => `${entry.path}/`);
  for (const { path } of entries) {
    const parts = path.split('/');
    if (path.startsWith('/') || parts.some((part) => part === '' || part === '.' || part === '..')) throw new ReinError(`packed task: bad path "${path}"`);
    if (links.some((link) => path.startsWith(link))) throw new ReinError(`packed task: "${path}" lies under a symlink`);
  }
}
