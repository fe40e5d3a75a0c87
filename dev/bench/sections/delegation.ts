import { measureChildCost } from '../delegation.js';
import { measureOverhead } from '../overhead.js';
import { type BenchSection, times } from '../section.js';

const STEPS = 100;
const CHILDREN = 4;

/** What a delegated child costs: its start, its steps beside the parent's, the memory a finished child leaves. */
export const delegationSection: BenchSection = {
  id: 'delegation',
  title: `The cost of a child: ${CHILDREN} children of ${STEPS} steps each, one at a time, beside a run of ${STEPS} steps (instant model, free tool)`,
  async run() {
    const child = await measureChildCost(STEPS, CHILDREN);
    const parent = await measureOverhead(STEPS);
    return {
      tables: [
        {
          headers: ['spawn to first request ms', 'ms/step in a child', 'ms/step in a run', 'child vs run', 'heap held per finished child MB'],
          rows: [
            [
              child.spawnMs.toFixed(1),
              child.childMsPerStep.toFixed(2),
              parent.msPerStep.toFixed(2),
              times(child.childMsPerStep / parent.msPerStep),
              child.heapMbPerChild.toFixed(2),
            ],
          ],
        },
      ],
      notes: [
        `A child starts like a run (its own sandbox, trace, record and saved state), ${child.spawnMs.toFixed(0)} ms from the delegate call to its first model request;`,
        `a step inside it costs ${times(child.childMsPerStep / parent.msPerStep)} a step of a run, the charge to its parent included.`,
      ],
    };
  },
};
