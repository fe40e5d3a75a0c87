import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

const WORKERS_POLL_MS = 2_000;
const LONELY_MS = 5_000;

/**
 * What the coordinator's progress line says besides the counts: the live
 * workers (BullMQ's count of connected workers, polled), or that Redis is
 * away. Says once when the connection goes and once when it is back, and
 * once if no worker has shown up a few seconds in.
 *
 * @example const live = watchLiveStatus(queue, redis, { display, note, setStatus, regained: sweep });
 */
export function watchLiveStatus(
  queue: Queue,
  redis: Redis,
  hooks: { display: string; note(text: string): void; setStatus(text: string): void; regained(): void },
): { stop(): void } {
  let workers: number | null = null;
  let connected = true;
  let counting = false;
  let stopped = false;
  const show = () => {
    if (!connected) hooks.setStatus('Redis unreachable, reconnecting');
    else hooks.setStatus(workers === null ? 'workers: unknown' : `${workers} worker${workers === 1 ? '' : 's'}`);
  };
  const count = async () => {
    if (counting) return;
    counting = true;
    // CLIENT LIST may be disabled on a managed Redis: the count is then unknown, the eval goes on.
    workers = await queue.getWorkersCount().catch(() => null);
    counting = false;
    show();
  };
  redis.on('close', () => {
    if (!connected || stopped) return;
    connected = false;
    show();
    hooks.note(`lost the connection to Redis at ${hooks.display}; reconnecting (results wait in Redis meanwhile)`);
  });
  redis.on('ready', () => {
    if (connected || stopped) return;
    connected = true;
    show();
    hooks.note('reconnected to Redis');
    hooks.regained();
  });
  void count();
  const poll = setInterval(() => void count(), WORKERS_POLL_MS);
  const lonely = setTimeout(() => {
    if (workers === 0) hooks.note(`no worker is connected yet; start one with: rein worker --queue ${hooks.display}`);
  }, LONELY_MS);
  return {
    stop: () => {
      stopped = true;
      clearInterval(poll);
      clearTimeout(lonely);
    },
  };
}
