import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One model reply of the played trajectory: the calls it makes, in rein's tool schema. */
export interface PlayedStep {
  content: string;
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
}

/**
 * Tool output sizes of real runs as quantiles (share of outputs at or under, characters): median about 500,
 * p90 about 4 KB, p99 about 16 KB, the distribution of the public SWE-bench runs described in the issue
 * (mini-swe-agent and SWE-agent trajectories); between two points the size is interpolated in log space.
 */
const OUTPUT_QUANTILES: ReadonlyArray<readonly [number, number]> = [
  [0, 20],
  [0.1, 45],
  [0.25, 130],
  [0.5, 500],
  [0.75, 1_400],
  [0.9, 4_000],
  [0.99, 16_000],
  [1, 24_000],
];

/** The size at quantile q of the table above. */
export function outputSizeAt(q: number): number {
  const upper = OUTPUT_QUANTILES.findIndex(([share]) => share >= q);
  if (upper <= 0) return OUTPUT_QUANTILES[0]![1];
  const [q0, s0] = OUTPUT_QUANTILES[upper - 1]!;
  const [q1, s1] = OUTPUT_QUANTILES[upper]!;
  return Math.round(Math.exp(Math.log(s0) + ((q - q0) / (q1 - q0)) * (Math.log(s1) - Math.log(s0))));
}

/** Step i's quantile: a golden-ratio sequence, so any stretch of steps covers the distribution evenly, the same every run. */
const quantileOf = (step: number) => (step * 0.6180339887498949) % 1;

export const TEST_COMMAND = 'python3 test_calc.py';
const EDIT_EVERY = 10;
const TEST_EVERY = 25;

const dataFile = (step: number) => `data/out${String(step).padStart(3, '0')}.txt`;
const constantLine = (step: number, value: number) => `VALUE_${step} = ${value}`;

/**
 * The trajectory of a run of `steps` replies, as a coding agent plays it: a plan, then commands whose
 * outputs follow the size distribution of real runs, an edit to a Python file every tenth step, the test
 * command every 25th and before the end, then the todo ticked off and finish.
 */
export function trajectory(steps: number): PlayedStep[] {
  if (steps < 4) throw new Error(`a trajectory needs at least 4 steps, not ${steps}`);
  const played: PlayedStep[] = [
    { content: 'Planning the work.', calls: [{ name: 'update_todo', arguments: { items: [{ task: 'make the constants right', done: false }] } }] },
  ];
  for (let step = 1; step < steps - 2; step++) {
    if (step % EDIT_EVERY === EDIT_EVERY / 2)
      played.push({
        content: `Setting constant ${step}.`,
        calls: [{ name: 'edit_file', arguments: { path: 'calc.py', old: constantLine(step, 0), new: constantLine(step, step) } }],
      });
    else if (step % TEST_EVERY === 0) played.push({ content: 'Running the tests.', calls: [{ name: 'run', arguments: { command: TEST_COMMAND } }] });
    else played.push({ content: `Looking at output ${step}.`, calls: [{ name: 'run', arguments: { command: `cat ${dataFile(step)}` } }] });
  }
  played.push({ content: 'Running the tests before finishing.', calls: [{ name: 'run', arguments: { command: TEST_COMMAND } }] });
  played.push({
    content: 'Done.',
    calls: [
      { name: 'update_todo', arguments: { items: [{ task: 'make the constants right', done: true }] } },
      { name: 'finish', arguments: { summary: 'Set the constants; the tests pass.' } },
    ],
  });
  return played;
}

/** Text of exactly `size` characters in lines like a command's output, different for every step. */
function outputText(step: number, size: number): string {
  let text = '';
  for (let line = 0; text.length < size; line++) text += `step ${step} line ${line}: ${'abcdefghij'.repeat(1 + ((step + line) % 5))}\n`;
  return text.slice(0, size);
}

/** The sizes of the outputs the trajectory's commands print, in characters, one a data file. */
export function outputSizes(steps: number): number[] {
  return Array.from({ length: steps - 1 }, (_, index) => outputSizeAt(quantileOf(index + 1)));
}

/** A git workspace the trajectory's commands and edits work on: the data files, calc.py and its test. */
export function writeWorkspace(dir: string, steps: number): void {
  mkdirSync(join(dir, 'data'), { recursive: true });
  for (const [index, size] of outputSizes(steps).entries()) writeFileSync(join(dir, dataFile(index + 1)), outputText(index + 1, size));
  const constants = Array.from({ length: steps }, (_, step) => constantLine(step, 0));
  writeFileSync(
    join(dir, 'calc.py'),
    `"""Constants the task sets."""\n\n${constants.join('\n')}\n\n\ndef total():\n    return sum(v for k, v in globals().items() if k.startswith("VALUE_"))\n`,
  );
  writeFileSync(join(dir, 'test_calc.py'), 'import calc\n\nassert calc.total() >= 0\nprint("ok")\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-qm', 'start');
}
