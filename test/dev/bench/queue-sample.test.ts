import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { queueSample } from '../../../dev/bench/eval-queue.js';
import { loadTaskSet } from '../../../eval/task.js';

describe('the queue section samples the suite', () => {
  it('takes every third task in sorted order, whatever order it is given', () => {
    expect(queueSample(['py-c', 'js-b', 'py-a', 'js-c', 'js-a', 'py-b'])).toEqual(['js-a', 'py-a']);
  });

  it('on the offline suite: a third of its tasks, both languages in each half the section runs', () => {
    const ids = loadTaskSet(fileURLToPath(new URL('../../../eval/suite', import.meta.url))).tasks.map((task) => task.id);
    const sample = queueSample(ids);
    expect(sample).toHaveLength(Math.ceil(ids.length / 3));
    const halves = [sample.filter((_, index) => index % 2 === 0), sample.filter((_, index) => index % 2 === 1)];
    for (const half of halves) {
      expect(half.some((id) => id.startsWith('js-'))).toBe(true);
      expect(half.some((id) => id.startsWith('py-'))).toBe(true);
    }
  });
});
