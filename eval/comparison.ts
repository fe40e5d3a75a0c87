import { mcnemarP } from './mcnemar.js';
import { mean, outcomesByTask, type TaskOutcome } from './outcomes.js';
import type { RunRecord } from './run-record.js';

/** Means of A and B over the paired tasks, and B − A. */
interface MeanDelta {
  a: number;
  b: number;
  delta: number;
}

/** A paired comparison of two configurations, as `rein compare` prints it. */
export interface Comparison {
  a: string;
  b: string;
  /** Tasks present in both (the pairs); the test and the means use only these. */
  tasks: string[];
  /** Tasks with runs in only one side: left out of the pairing. */
  missingInB: string[];
  missingInA: string[];
  resolvedA: number;
  resolvedB: number;
  /** A solved, B failed. */
  onlyA: string[];
  /** B solved, A failed. */
  onlyB: string[];
  pValue: number;
  /** True when some task had more than one run: outcomes are per-task majorities. */
  byMajority: boolean;
  cost: MeanDelta;
  steps: MeanDelta;
  tokens: MeanDelta;
}

/**
 * Pairs two sets of run records by task and runs the exact McNemar test on
 * the flips. Repeats are folded into one outcome per task by majority.
 *
 * @example compareRecords(records.filter((r) => r.config === 'default'), records.filter((r) => r.config === 'no-plan'), 'default', 'no-plan')
 */
export function compareRecords(recordsA: readonly RunRecord[], recordsB: readonly RunRecord[], a: string, b: string): Comparison {
  const outcomesA = outcomesByTask(recordsA);
  const outcomesB = outcomesByTask(recordsB);
  const tasks = [...outcomesA.keys()].filter((task) => outcomesB.has(task));
  const pairs = tasks.map((task) => [outcomesA.get(task)!, outcomesB.get(task)!] as const);
  const onlyA = pairs.filter(([x, y]) => x.resolved && !y.resolved).map(([x]) => x.task);
  const onlyB = pairs.filter(([x, y]) => !x.resolved && y.resolved).map(([x]) => x.task);
  const delta = (pick: (outcome: TaskOutcome) => number): MeanDelta => {
    const meanA = mean(pairs.map(([x]) => pick(x)));
    const meanB = mean(pairs.map(([, y]) => pick(y)));
    return { a: meanA, b: meanB, delta: meanB - meanA };
  };
  return {
    a,
    b,
    tasks,
    missingInB: [...outcomesA.keys()].filter((task) => !outcomesB.has(task)),
    missingInA: [...outcomesB.keys()].filter((task) => !outcomesA.has(task)),
    resolvedA: pairs.filter(([x]) => x.resolved).length,
    resolvedB: pairs.filter(([, y]) => y.resolved).length,
    onlyA,
    onlyB,
    pValue: mcnemarP(onlyA.length, onlyB.length),
    byMajority: [...outcomesA.values(), ...outcomesB.values()].some((outcome) => outcome.runs > 1),
    cost: delta((outcome) => outcome.costUsd),
    steps: delta((outcome) => outcome.steps),
    tokens: delta((outcome) => outcome.tokens),
  };
}
