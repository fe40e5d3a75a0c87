import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Redis } from 'ioredis';
import { JobRefused } from 'rein/lib';
import { hashContent, sha256Hex } from './task-content.js';
import { packTask, unpackTask } from './task-pack.js';
import { fileKey, taskKey } from './wire-format.js';

/** Stored tasks and rules files live this long after the last eval that needed them touched them. */
export const STORE_TTL_S = 7 * 24 * 3600;

/**
 * Puts a task folder into Redis under its content hash, once: a task already
 * there only gets its expiry renewed. Returns the hash jobs name it by.
 *
 * @example const hash = await storeTask(redis, 'js-cart', 'eval/suite/js-cart');
 */
export async function storeTask(redis: Redis, id: string, dir: string): Promise<string> {
  const { hash, blob } = await packTask(id, dir);
  await storeOnce(redis, taskKey(hash), blob);
  return hash;
}

/** Puts a rules file into Redis under its content hash, once; returns its name and hash. */
export async function storeFile(redis: Redis, path: string): Promise<{ name: string; hash: string }> {
  const bytes = await readFile(path);
  const hash = sha256Hex(bytes);
  await storeOnce(redis, fileKey(hash), bytes);
  return { name: basename(path), hash };
}

/** Whether a stored task or file is still there (a Redis restarted without persistence loses them). */
export async function isStored(redis: Redis, key: string): Promise<boolean> {
  return (await redis.expire(key, STORE_TTL_S)) === 1;
}

async function storeOnce(redis: Redis, key: string, bytes: Buffer): Promise<void> {
  if (await isStored(redis, key)) return;
  await redis.set(key, bytes, 'EX', STORE_TTL_S);
}

/**
 * A worker's local copy of a task: `<cache>/tasks/<hash>/<id>`, downloaded
 * once and checked against its hash before every job (a copy that no longer
 * matches is fetched again). A stored task that does not hash to the job's
 * hash is refused.
 *
 * @example const dir = await fetchTask(redis, '/home/me/.cache/rein', job.task);
 */
export async function fetchTask(redis: Redis, cache: string, task: { id: string; hash: string }): Promise<string> {
  const home = join(cache, 'tasks', task.hash);
  const dir = join(home, task.id);
  if (await exists(dir)) {
    if ((await hashContent(task.id, dir)) === task.hash) return touched(home, dir);
    await rm(home, { recursive: true, force: true });
  }
  const blob = await redis.getBuffer(taskKey(task.hash));
  if (!blob) throw new JobRefused(`task ${task.id} (${short(task.hash)}) is not in Redis; the coordinator stores it again when it sees it missing`);
  const staging = join(cache, 'tasks', `.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await unpackTask(blob, join(staging, task.id)).catch((error: unknown) => {
      throw new JobRefused(`task ${task.id}: the stored folder cannot be unpacked (${(error as Error).message}); refusing to run it`);
    });
    const actual = await hashContent(task.id, join(staging, task.id));
    if (actual !== task.hash)
      throw new JobRefused(`task ${task.id}: the stored folder hashes to ${short(actual)}, not to the job's ${short(task.hash)}; refusing to run it`);
    await install(staging, home);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return touched(home, dir);
}

/** A worker's local copy of a rules file, `<cache>/files/<hash>/<name>`, checked against its hash. */
export async function fetchFile(redis: Redis, cache: string, file: { name: string; hash: string }): Promise<string> {
  const home = join(cache, 'files', file.hash);
  const path = join(home, file.name);
  if (await exists(path)) {
    if (sha256Hex(await readFile(path)) === file.hash) return touched(home, path);
    await rm(home, { recursive: true, force: true });
  }
  const bytes = await redis.getBuffer(fileKey(file.hash));
  if (!bytes) throw new JobRefused(`rules file ${file.name} (${short(file.hash)}) is not in Redis; the coordinator stores it again when it sees it missing`);
  if (sha256Hex(bytes) !== file.hash)
    throw new JobRefused(
      `rules file ${file.name}: the stored bytes hash to ${short(sha256Hex(bytes))}, not to the job's ${short(file.hash)}; refusing to run it`,
    );
  const staging = join(cache, 'files', `.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(staging, { recursive: true });
    await writeFile(join(staging, file.name), bytes);
    await install(staging, home);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return touched(home, path);
}

/** Moves a checked copy into place; another worker on this machine may have put the same one there first. */
async function install(staging: string, home: string): Promise<void> {
  try {
    await rename(staging, home);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
}

/** Marks a cache entry as used now, for the worker's clean-up of entries left unused. */
async function touched(home: string, path: string): Promise<string> {
  const now = new Date();
  await utimes(home, now, now).catch(() => undefined);
  return path;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function short(hash: string): string {
  return hash.slice(0, 12);
}
