import type { HarnessMachine } from '../machines/harness-machine.js';
import type { Rules } from '../rules/schema.js';
import { coverTransitions, formatCoverage, type CoverageReport } from './coverage.js';
import { confirmWithScriptedActors } from './replay.js';

/** Everything model-based coverage found wrong with a machine, each problem one readable line. */
export interface CoverageCheck {
  report: CoverageReport;
  /** Covered transitions whose path did not take them again when replayed with scripted actors. */
  replayFailures: string[];
  /** Untaken transitions, unreachable states and replay failures; empty when the machine is fully covered. */
  problems: string[];
  /** The full table, as `rein rules coverage` prints it. */
  text: string;
}

/**
 * Explores the machine (`coverTransitions`), replays every path with
 * scripted actors (`confirmWithScriptedActors`) and lists every problem.
 *
 * @example const { problems, text } = await checkCoverage(machine, rules); expect(problems, text).toEqual([]);
 */
export async function checkCoverage(machine: HarnessMachine, rules: Rules, title = 'rules'): Promise<CoverageCheck> {
  const report = coverTransitions(machine, rules);
  const replayFailures = await confirmWithScriptedActors(machine, rules, report);
  const problems = [
    ...report.missing.map((info) => `never taken: ${info.key}`),
    ...report.unreachableStates.map((state) => `unreachable state: ${state}`),
    ...replayFailures.map((failure) => `did not replay: ${failure}`),
  ];
  return { report, replayFailures, problems, text: formatCoverage(report, title) };
}

/**
 * The one-call check for a test: resolves with the report when every
 * transition is taken, every state reached and every path replays; rejects
 * naming each problem otherwise.
 *
 * @example it('my rules leave nothing untested', () => assertFullCoverage(machine, rules), 60_000);
 */
export async function assertFullCoverage(machine: HarnessMachine, rules: Rules): Promise<CoverageReport> {
  const { report, problems } = await checkCoverage(machine, rules);
  if (problems.length > 0) throw new Error(`model-based coverage found ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  return report;
}
