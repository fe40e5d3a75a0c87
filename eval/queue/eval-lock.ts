import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { UsageError } from 'rein/lib';
import { KEY_PREFIX } from './wire-format.js';

const LOCK_MS = 30_000;
const REFRESH_MS = 10_000;
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const REFRESH = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

interface Holder {
  host: string;
  pid: number;
  token: string;
}

/**
 * Makes this process the one coordinator collecting an eval's results: two
 * coordinators on one output dir would both write every result. The lock
 * lapses 30 s after its holder stops renewing it; a holder on this machine
 * whose process is gone is replaced at once (a coordinator killed and
 * re-run here resumes without waiting).
 *
 * @example const lock = await holdEvalLock(redis, evalId, console.error); try { … } finally { await lock.release(); }
 */
export async function holdEvalLock(redis: Redis, evalId: string, note: (text: string) => void): Promise<{ release(): Promise<void> }> {
  const key = `${KEY_PREFIX}:eval-lock:${evalId}`;
  const me: Holder = { host: hostname(), pid: process.pid, token: randomBytes(8).toString('hex') };
  const value = JSON.stringify(me);
  const deadline = Date.now() + LOCK_MS + 5_000;
  let told = false;
  while ((await redis.set(key, value, 'PX', LOCK_MS, 'NX')) !== 'OK') {
    const current = await redis.get(key);
    const holder = parseHolder(current);
    if (holder && holder.host === me.host && !isAlive(holder.pid)) {
      await redis.eval(RELEASE, 1, key, current!);
      continue;
    }
    if (Date.now() > deadline)
      throw new UsageError(
        `another rein eval (${holder ? `pid ${holder.pid} on ${holder.host}` : 'unknown'}) is collecting the results of this output dir; stop it first, or use another --out`,
      );
    if (!told)
      note(
        `waiting up to ${LOCK_MS / 1000} s for the lock of ${holder ? `pid ${holder.pid} on ${holder.host}` : 'another coordinator'} on this output dir (a killed coordinator's lock lapses)`,
      );
    told = true;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const timer = setInterval(() => {
    redis.eval(REFRESH, 1, key, value, String(LOCK_MS)).catch(() => undefined);
  }, REFRESH_MS);
  timer.unref();
  return {
    async release() {
      clearInterval(timer);
      await redis.eval(RELEASE, 1, key, value).catch(() => undefined);
    },
  };
}

function parseHolder(text: string | null): Holder | null {
  try {
    const value = JSON.parse(text ?? '') as Partial<Holder>;
    return typeof value.host === 'string' && typeof value.pid === 'number' ? (value as Holder) : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
