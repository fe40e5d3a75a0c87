import { replyShapeOf, unknownTextFormat } from './reply-shapes.js';
import { type Simulation, todoItemOf } from './simulation-schema.js';

/** Behaviours a simulated model can combine; each stresses one harness component. */
export interface Traits {
  hurried: boolean;
  stubborn: boolean;
  sloppy: boolean;
  flood: boolean;
  reckless: boolean;
  planner: boolean;
}

interface SimulatedModelInfo {
  name: string;
  trait: keyof Traits | null;
  /** The harness component whose absence this failure mode exposes. */
  exercises: string;
  description: string;
  /** What the task's `simulation` block must contain for this behaviour, or null when it is fine. */
  check(simulation: Simulation): string | null;
}

const ok = () => null;

/** The registry of simulated models: the failure modes the seed describes, plus a careful baseline. */
const SIMULATED_MODELS: readonly SimulatedModelInfo[] = [
  {
    name: 'careful',
    trait: null,
    exercises: 'nothing in particular (a baseline)',
    check: ok,
    description: 'Reads the code, makes the fixes it knows, runs the tests, fixes what they reveal, finishes when they pass.',
  },
  {
    name: 'finish-without-verifying',
    trait: 'hurried',
    exercises: 'verification gate',
    description: 'Calls finish right after its edits, before running the tests; runs them only when the gate refuses.',
    check: (simulation) => (simulation.fixes.some((fix) => fix.reveal) ? null : 'needs a fix with `reveal` (a bug only the tests show)'),
  },
  {
    name: 'repeat-failing-command',
    trait: 'stubborn',
    exercises: 'stall detector',
    description: 'Re-runs a failing test command unchanged, as if it were flaky, until a stall nudge tells it to stop; then reads the output.',
    check: (simulation) => (simulation.fixes.some((fix) => fix.reveal) ? null : 'needs a fix with `reveal` (so the first test run fails)'),
  },
  {
    name: 'syntax-breaking-edit',
    trait: 'sloppy',
    exercises: 'guarded edits',
    description:
      'Writes a syntax-breaking version of an edit first; retries when the edit is rejected, or debugs the SyntaxError the tests print when it was written.',
    check: (simulation) => (simulation.fixes.some((fix) => fix.broken !== undefined) ? null : 'needs a fix with `broken`'),
  },
  {
    name: 'flood-context',
    trait: 'flood',
    exercises: 'context manager',
    description: 'Reads every large log or data dump before acting; the clue is in the last one.',
    check: (simulation) => (simulation.flood.length > 0 ? null : 'needs `flood` commands'),
  },
  {
    name: 'destructive-commands',
    trait: 'reckless',
    exercises: 'deny list',
    description: 'Tries destructive commands (curl | sh, git push --force, sudo); takes the safe route when blocked.',
    check: (simulation) => (simulation.destructive.length > 0 ? null : 'needs `destructive` commands'),
  },
  {
    name: 'plan-dependent',
    trait: 'planner',
    exercises: 'plan phase and todo list',
    description:
      "Keeps track of the requirements only through its todo list, read back each turn from what the harness shows (the update_todo result, a summary, a later run's task): without the list in view it fixes what the failing tests show and forgets the rest.",
    check: (simulation) => (simulation.fixes.some((fix) => fix.needs_plan) ? null : 'needs a fix with `needs_plan`'),
  },
  {
    name: 'text-calls',
    trait: null,
    exercises: 'tool calls recovered from text',
    description:
      'Works as careful does, but writes every call as a Hermes <tool_call> block in its text, as a model served without a tool parser does; `text-calls:FORMAT` writes them in any format of the census (`text-calls:kimi-k2`, `text-calls:harmony`, …).',
    check: ok,
  },
  {
    name: 'mangled-arguments',
    trait: null,
    exercises: 'argument repair',
    description:
      'Works as careful does, but bends every call’s arguments in turn: encoded twice, a trailing comma, single quotes, unquoted keys, a cut-off tail.',
    check: ok,
  },
];

/** Looks a simulated model up by name. */
function findSimulatedModel(name: string): SimulatedModelInfo | undefined {
  // `text-calls:FORMAT` is the text-calling model speaking another census format.
  const registered = replyShapeOf(name) && name.startsWith('text-calls:') ? 'text-calls' : name;
  return SIMULATED_MODELS.find((model) => model.name === registered);
}

/** The combined traits of one or more registered names (unknown names are ignored; validate first). */
export function traitsOf(names: readonly string[]): Traits {
  const traits: Traits = { hurried: false, stubborn: false, sloppy: false, flood: false, reckless: false, planner: false };
  for (const name of names) {
    const trait = findSimulatedModel(name)?.trait;
    if (trait) traits[trait] = true;
  }
  return traits;
}

/**
 * Problems with a task's `simulated_model` names and `simulation` block, as
 * one-line messages; empty when the combination can run.
 *
 * @example checkSimulatedModel(['finish-without-verifying'], simulation) // []
 */
export function checkSimulatedModel(names: readonly string[], simulation: Simulation): string[] {
  const problems: string[] = [];
  for (const name of names) {
    const model = findSimulatedModel(name);
    if (!model) {
      const format = unknownTextFormat(name);
      if (format) {
        problems.push(format);
        continue;
      }
      problems.push(`unknown simulated model "${name}"; known: ${SIMULATED_MODELS.map((entry) => entry.name).join(', ')}`);
      continue;
    }
    const problem = model.check(simulation);
    if (problem) problems.push(`simulated model "${name}" ${problem}`);
  }
  simulation.fixes.forEach((fix, index) => {
    if (fix.needs_plan && todoItemOf(simulation, index) === undefined)
      problems.push(`fix ${index + 1} has \`needs_plan\` but no \`todo\` item (its own or an earlier needs_plan fix's)`);
  });
  if (simulation.fixes.some((fix) => fix.needs_plan) && !names.includes('plan-dependent')) {
    problems.push('a fix with `needs_plan` can only be found by the plan-dependent model');
  }
  return problems;
}
