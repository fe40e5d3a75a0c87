import { z } from 'zod';
import { STALL_RULE_NAMES, STALL_RULES, type StallRuleName } from '../../rules/stall-rules.js';
import type { GuardView } from './guard-view.js';

/** What a guard needs before it can ever hold in a phase; the machine leaves out exits that cannot. */
interface GuardNeeds {
  /** At least one of these tools must be callable in the phase. */
  tools?: readonly string[];
  /** Only holds when the verification gate is on (it reacts to a refusal). */
  gate?: boolean;
  /** Looks only at what happened since the phase began: false on the turn that entered the phase. */
  phaseRelative?: boolean;
  /** Edits can also come from commands (`verification.commandsCountAsEdits`). */
  edits?: boolean;
}

/**
 * A built-in guard a rules file may name: what it means, its parameters
 * (with types, defaults and descriptions: they are checked when the rules
 * load and shown on the chart), what it reads of the guard view, an example
 * exit, and the predicate itself.
 */
export interface GuardSpec<Params extends z.ZodObject = z.ZodObject> {
  summary: string;
  params: Params;
  /** Guard-view fields it reads, for `rein rules guards`. */
  reads: readonly string[];
  example: Record<string, unknown>;
  needs?: GuardNeeds;
  /** A threshold it compares a count with: coverage drives the count up to each threshold a rule uses. */
  counts?: { param: string; read(view: GuardView): number };
  test(view: GuardView, params: z.output<Params>): boolean;
  /** Why it does not hold, in words the model reads (a gate refusal says it); without it the refusal names the guard. */
  why?(view: GuardView, params: z.output<Params>): string;
}

const none = z.strictObject({});
const atLeast = (what: string) => z.strictObject({ min: z.number().int().positive().describe(`Smallest number of ${what} that makes it hold`) });

function spec<Params extends z.ZodObject>(entry: GuardSpec<Params>): GuardSpec<Params> {
  return entry;
}

const PHASE_GUARDS = {
  todoWritten: spec({
    summary: 'The model wrote a todo list this turn.',
    params: none,
    reads: ['turn.todoWritten'],
    example: { guard: 'todoWritten', to: 'build' },
    needs: { tools: ['update_todo'] },
    test: (view) => view.turn.todoWritten,
  }),
  editMade: spec({
    summary: 'A successful edit was made this turn.',
    params: none,
    reads: ['turn.edited'],
    example: { guard: 'editMade', to: 'build' },
    needs: { edits: true },
    test: (view) => view.turn.edited,
  }),
  testRun: spec({
    summary: 'A verification command ran this turn, after any edit of the turn.',
    params: none,
    reads: ['turn.testRan', 'facts.testedSinceEdit'],
    example: { guard: 'testRun', to: 'verify', settle: true },
    needs: { tools: ['run'] },
    test: (view) => view.turn.testRan && view.facts.testedSinceEdit,
  }),
  testFailed: spec({
    summary: 'The last verification run this turn failed.',
    params: none,
    reads: ['turn.testPassed'],
    example: { guard: 'testFailed', to: 'fix' },
    needs: { tools: ['run'] },
    test: (view) => view.turn.testPassed === false,
  }),
  testPassed: spec({
    summary: 'The last verification run this turn passed.',
    params: none,
    reads: ['turn.testPassed'],
    example: { guard: 'testPassed', to: 'verify' },
    needs: { tools: ['run'] },
    test: (view) => view.turn.testPassed === true,
  }),
  finishRefused: spec({
    summary: 'The verification gate refused a finish call this turn.',
    params: none,
    reads: ['turn.finishRefused'],
    example: { guard: 'finishRefused', to: 'verify', settle: true },
    needs: { gate: true, tools: ['finish'] },
    test: (view) => view.turn.finishRefused,
  }),
  editedSinceTest: spec({
    summary: 'In this phase, an edit was made after the last verification run.',
    params: none,
    reads: ['facts.editedInPhase', 'facts.editedSinceTest'],
    example: { guard: 'editedSinceTest', to: 'build' },
    needs: { edits: true, phaseRelative: true },
    test: (view) => view.facts.editedInPhase && view.facts.editedSinceTest,
  }),
  testedAfterEdit: spec({
    summary: 'In this phase, an edit was made and then a verification command ran.',
    params: none,
    reads: ['facts.editedInPhase', 'facts.testedSinceEdit'],
    example: { guard: 'testedAfterEdit', to: 'verify', settle: true },
    needs: { edits: true, phaseRelative: true },
    test: (view) => view.facts.editedInPhase && view.facts.testedSinceEdit,
  }),
  todoProgress: spec({
    summary: 'At least `count` todo items are done.',
    params: z.strictObject({ count: z.number().int().positive().default(1).describe('Todo items that must be ticked off') }),
    reads: ['facts.todoDone'],
    example: { guard: 'todoProgress', count: 2, to: 'verify' },
    needs: { tools: ['update_todo'] },
    counts: { param: 'count', read: (view) => view.facts.todoDone },
    test: (view, params) => view.facts.todoDone >= params.count,
  }),
  phaseSteps: spec({
    summary: 'The phase has taken at least `min` steps (model replies) since it was entered.',
    params: atLeast('steps in this phase'),
    reads: ['phaseSteps'],
    example: { guard: 'phaseSteps', min: 3, to: 'build' },
    needs: { phaseRelative: true },
    counts: { param: 'min', read: (view) => view.phaseSteps },
    test: (view, params) => view.phaseSteps >= params.min,
  }),
  phaseTestRuns: spec({
    summary: 'At least `min` verification runs since the phase was entered.',
    params: atLeast('verification runs in this phase'),
    reads: ['facts.phaseTestRuns'],
    example: { guard: 'phaseTestRuns', min: 3, to: 'plan' },
    needs: { tools: ['run'], phaseRelative: true },
    counts: { param: 'min', read: (view) => view.facts.phaseTestRuns },
    test: (view, params) => view.facts.phaseTestRuns >= params.min,
  }),
  failedRunsInRow: spec({
    summary: 'The last `min` verification runs all failed.',
    params: atLeast('failed verification runs in a row'),
    reads: ['facts.failedRunsInRow'],
    example: { guard: 'failedRunsInRow', min: 3, to: 'plan' },
    needs: { tools: ['run'] },
    counts: { param: 'min', read: (view) => view.facts.failedRunsInRow },
    test: (view, params) => view.facts.failedRunsInRow >= params.min,
  }),
  gateRefusals: spec({
    summary: 'The verification gate has refused at least `min` finish calls in the run.',
    params: atLeast('refused finish calls'),
    reads: ['facts.gateRefusals'],
    example: { guard: 'gateRefusals', min: 3, to: 'stalled', reason: 'The model kept calling finish without passing tests.' },
    needs: { gate: true },
    counts: { param: 'min', read: (view) => view.facts.gateRefusals },
    test: (view, params) => view.facts.gateRefusals >= params.min,
  }),
  always: spec({
    summary: 'Always true: an unconditional exit.',
    params: none,
    reads: [],
    example: { guard: 'always', to: 'build' },
    test: () => true,
  }),
} as const;

/** The verification gate's guard; also usable as an exit condition. */
const GATE_GUARDS = {
  testsPassedSinceLastEdit: spec({
    summary: 'The test command passed at least `runs` times since the last edit (and each named check its own number of times).',
    params: z.strictObject({
      runs: z.number().int().positive().default(1).describe('Passing runs of the test command wanted after the last edit'),
      checks: z
        .record(z.string(), z.number().int().positive())
        .default({})
        .describe('More checks by name (verification.checks) and the passing runs each wants'),
    }),
    reads: ['facts.passingRunsSinceEdit', 'facts.checks'],
    example: { guard: 'testsPassedSinceLastEdit', runs: 2, to: 'verify' },
    needs: { tools: ['run'] },
    counts: { param: 'runs', read: (view) => view.facts.passingRunsSinceEdit },
    test: (view, params) =>
      view.facts.passingRunsSinceEdit >= params.runs &&
      Object.entries(params.checks).every(([name, runs]) => (view.facts.checks[name]?.passesSinceEdit ?? 0) >= runs),
  }),
  todoComplete: spec({
    summary: 'Every item on the todo list is done, and each item named in `items` is on it and done.',
    params: z.strictObject({
      items: z.array(z.string().min(1)).default([]).describe('Todo items (their text, any case) that must be on the list and ticked off'),
    }),
    reads: ['facts.todo'],
    example: { guard: 'todoComplete', items: ['reviewed'], to: 'verify' },
    test: (view, params) => openTodo(view, params.items).length === 0,
    why: (view, params) => openTodo(view, params.items).join('; '),
  }),
  filesChanged: spec({
    summary: 'Each of `paths` (workspace paths; `*` matches within a name, `**` across folders) was changed by an edit in the run.',
    params: z.strictObject({ paths: z.array(z.string().min(1)).min(1).describe('Files that must have been changed') }),
    reads: ['facts.editedPaths'],
    example: { guard: 'filesChanged', paths: ['CHANGELOG.md'], to: 'verify' },
    // Only edit_file says which file it changed (a command that edits does not).
    needs: { tools: ['edit_file'] },
    test: (view, params) => unchangedPaths(view, params.paths).length === 0,
    why: (view, params) => `not changed yet: ${unchangedPaths(view, params.paths).join(', ')}`,
  }),
  commandPassed: spec({
    summary: 'The exact `command` (after trimming) exited 0 after the last edit.',
    params: z.strictObject({ command: z.string().min(1).describe('The command, as the model must run it') }),
    reads: ['facts.commandsPassedSinceEdit'],
    example: { guard: 'commandPassed', command: 'npm run lint', to: 'verify' },
    needs: { tools: ['run'] },
    test: (view, params) => view.facts.commandsPassedSinceEdit.includes(params.command.trim()),
    why: (_view, params) => `\`${params.command.trim()}\` has not passed since the last edit`,
  }),
  agentApproved: spec({
    summary: 'The latest child of `agent` (delegate) finished after the last edit with a report that begins with approve.',
    params: z.strictObject({ agent: z.string().min(1).describe('The agent whose verdict counts, e.g. reviewer') }),
    reads: ['reviews'],
    example: { guard: 'agentApproved', agent: 'reviewer', to: 'verify' },
    test: (view, params) => {
      // Own keys only: an agent named like an object property (constructor) never reads the prototype.
      const review = Object.hasOwn(view.reviews, params.agent) ? view.reviews[params.agent] : undefined;
      return review?.sinceEdit === true && review.status === 'done' && review.verdict === 'approve';
    },
    why: (view, params) => reviewGap(view, params.agent),
  }),
} as const;

/** Why an agent's approval does not count yet, with its reasons when it gave some. */
function reviewGap(view: GuardView, agent: string): string {
  const review = Object.hasOwn(view.reviews, agent) ? view.reviews[agent] : undefined;
  if (!review) return `no ${agent} has reviewed the change yet (delegate it to ${agent})`;
  if (!review.sinceEdit) return `the change was edited after ${agent}'s review; ask ${agent} again`;
  if (review.status !== 'done') return `${agent} stopped before finishing (${review.status})`;
  if (review.verdict === 'reject') return `${agent} rejected the change: ${review.report}`;
  return `${agent}'s report does not begin with approve or reject`;
}

/** What keeps `todoComplete` from holding: named items missing or open, then other open items. */
function openTodo(view: GuardView, items: readonly string[]): string[] {
  const find = (name: string) => view.facts.todo.find((item) => item.task.trim().toLowerCase() === name.trim().toLowerCase());
  const named = items.flatMap((name) => {
    const item = find(name);
    if (!item) return [`no todo item "${name}" (add it with update_todo, then tick it off)`];
    return item.done ? [] : [`todo item "${item.task}" is not done`];
  });
  const others = view.facts.todo.filter((item) => !item.done && !items.some((name) => find(name) === item));
  return others.length > 0
    ? [...named, `${others.length} todo item${others.length > 1 ? 's' : ''} open: ${others.map((item) => item.task).join(', ')}`]
    : named;
}

function unchangedPaths(view: GuardView, paths: readonly string[]): string[] {
  return paths.filter((pattern) => !view.facts.editedPaths.some((path) => pathMatches(pattern, path)));
}

/** A workspace path against a pattern: `*` within one name, `**` across folders; a leading `./` is ignored. */
function pathMatches(pattern: string, path: string): boolean {
  const clean = (text: string) => text.replace(/^\.\//, '');
  const name = (part: string) => part.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replace(/\*/g, '[^/]*');
  // `**/` is any number of folders, none included; a `**` elsewhere is anything.
  const source = clean(pattern)
    .split('**/')
    .map((piece) => piece.split('**').map(name).join('.*'))
    .join('(?:.*/)?');
  return new RegExp(`^${source}$`).test(clean(path));
}

const stallLimit = z.strictObject({ limit: z.number().int().positive().describe('Count at which it holds') });

function stallSpec(rule: StallRuleName): GuardSpec<typeof stallLimit> {
  const entry: { limit: number; counts: string; needsTools?: readonly string[] } = STALL_RULES[rule];
  return {
    summary: `The stall counter of ${rule} reached \`limit\`: ${entry.counts}.`,
    params: stallLimit,
    reads: [`stall.${rule}.count`],
    example: { guard: rule, limit: entry.limit * 2, to: 'plan' },
    ...(entry.needsTools ? { needs: { tools: entry.needsTools } } : {}),
    counts: { param: 'limit', read: (view) => view.stall[rule]?.count ?? 0 },
    test: (view, params) => (view.stall[rule]?.count ?? 0) >= params.limit,
  };
}

/** The stall rules' guards: each compares its rule's counter with `limit` (see rules/stall-rules.ts). */
const STALL_GUARDS = Object.fromEntries(STALL_RULE_NAMES.map((rule) => [rule, stallSpec(rule)])) as Record<StallRuleName, GuardSpec<typeof stallLimit>>;

/** Every built-in guard a rules file may name, by kind. */
export const GUARD_CATALOGUE = {
  phase: PHASE_GUARDS as Record<keyof typeof PHASE_GUARDS, GuardSpec>,
  gate: GATE_GUARDS as Record<keyof typeof GATE_GUARDS, GuardSpec>,
  stall: STALL_GUARDS as Record<StallRuleName, GuardSpec>,
};

export type BuiltInGuardName = keyof typeof PHASE_GUARDS | keyof typeof GATE_GUARDS | StallRuleName;

/** Every built-in guard by name. */
export const BUILT_IN_GUARDS: Readonly<Record<BuiltInGuardName, GuardSpec>> = { ...GUARD_CATALOGUE.phase, ...GUARD_CATALOGUE.gate, ...GUARD_CATALOGUE.stall };

export function isBuiltInGuard(name: string): name is BuiltInGuardName {
  return Object.hasOwn(BUILT_IN_GUARDS, name);
}

/** A guard's parameters with its defaults filled in (they were checked when the rules loaded). */
export function guardParams(name: string, raw: Record<string, unknown>): Record<string, unknown> {
  return isBuiltInGuard(name) ? (BUILT_IN_GUARDS[name].params.parse(raw) as Record<string, unknown>) : raw;
}
