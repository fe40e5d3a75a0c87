import type { HarnessMachine } from '../../machines/harness-machine.js';
import type { TransitionInfo } from '../../machines/introspection.js';
import type { Rules } from '../../rules/schema.js';
import { type CoverageReport, coverTransitions, formatCoverage } from './explore.js';
import { confirmWithScriptedActors } from './replay.js';
import { shadowReason } from './shadows.js';
import { uncoverablePatterns } from './witnesses.js';

/** Everything model-based coverage found wrong with a machine, each problem one readable line. */
export interface CoverageCheck {
  /** The exploration, with transitions whose witness did not replay moved from covered to missing. */
  report: CoverageReport;
  /** Transitions the exploration took whose path did not take them again when replayed with scripted actors, with why. */
  replayFailures: string[];
  /** Untaken transitions, unreachable states and replay failures; empty when the machine is fully covered. */
  problems: string[];
  /** Transitions that cannot be taken by construction (an every-phase exit beaten in one phase), with why: not problems. */
  notes: string[];
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
  const explored = coverTransitions(machine, rules);
  const failures = await confirmWithScriptedActors(machine, rules, explored);
  // A transition is covered only with a witness that replays: one that does not is reported once, as not covered, with why.
  const report: CoverageReport = {
    ...explored,
    covered: new Map([...explored.covered].filter(([key]) => !failures.has(key))),
    witnesses: new Map([...explored.witnesses].filter(([key]) => !failures.has(key))),
    missing: explored.transitions.filter((info) => !explored.covered.has(info.key) || failures.has(info.key)),
    reasons: new Map([...failures].map(([key, why]) => [key, `its witness did not replay: ${why}`])),
  };
  // A transition no path takes because an earlier one of its list always wins says which one.
  // A gate's way to done needs a passing run of every check; a pass pattern coverage found no matching output for says so.
  const unmatched = uncoverablePatterns(rules);
  for (const info of report.missing) {
    const shadow = report.reasons?.has(info.key) ? null : shadowReason(info, report.transitions);
    if (shadow) report.reasons?.set(info.key, shadow);
    else if (unmatched.length > 0 && !report.reasons?.has(info.key) && info.targets.includes('done'))
      report.reasons?.set(info.key, `coverage found no output that the pass pattern of ${unmatched.join(', ')} matches, so no run it made passed every check`);
  }
  explainUnreached(report);
  // A transition an earlier one always beats here, while the same exit is taken in another phase (an exit of
  // phases["*"]), cannot be taken by construction: information, not a failure.
  const notes = report.missing.filter((info) => report.reasons?.get(info.key)?.startsWith('shadowed by') && firesElsewhere(info, report));
  report.info = new Set(notes.map((info) => info.key));
  const problems = [
    ...report.missing
      .filter((info) => !report.info?.has(info.key))
      .map((info) => `not covered: ${info.key}${report.reasons?.has(info.key) ? ` (${report.reasons.get(info.key)})` : ' (no generated path takes it)'}`),
    ...report.unreachableStates.map((state) => `unreachable state: ${state}`),
  ];
  return {
    report,
    replayFailures: [...failures].map(([key, why]) => `${key}: ${why}`),
    problems,
    notes: notes.map((info) => `${info.key}: ${report.reasons?.get(info.key)}; the same exit is taken in another phase`),
    text: formatCoverage(report, title),
  };
}

/** Whether a transition with the same guard and targets is taken from another phase. */
function firesElsewhere(info: TransitionInfo, report: CoverageReport): boolean {
  const phase = info.source.split('.')[0];
  return report.transitions.some(
    (other) =>
      report.covered.has(other.key) &&
      other.source.split('.')[0] !== phase &&
      other.guard === info.guard &&
      JSON.stringify(other.targets) === JSON.stringify(info.targets),
  );
}

/** For an untaken transition whose source state no path reaches: says so, and when its whole phase is never entered, that. */
function explainUnreached(report: CoverageReport): void {
  const byKey = new Map(report.transitions.map((info) => [info.key, info]));
  const reached = new Set([...report.covered.keys()].flatMap((key) => [byKey.get(key)!.source, ...byKey.get(key)!.targets]));
  const phasesReached = new Set([...reached].map((state) => state.split('.')[0]));
  for (const info of report.missing) {
    if (report.reasons?.has(info.key) || reached.has(info.source)) continue;
    const phase = info.source.split('.')[0]!;
    report.reasons?.set(
      info.key,
      phasesReached.has(phase)
        ? `no generated path reaches ${info.source}`
        : `the phase ${phase} is never entered: no path leads into it (rein rules check says why)`,
    );
  }
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
