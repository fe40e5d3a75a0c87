/**
 * Calls `work` on every item, at most `lanes` at a time, each lane taking the
 * next item as soon as its last one is done (so one slow item holds up one
 * lane, not a batch).
 *
 * @example await inLanes(jobs, 2, async (job) => record(await run(job)));
 */
export async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
}
