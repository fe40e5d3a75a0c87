import { stableStringify } from 'rein/lib';
import { createHarnessMachine } from 'rein/machines';
import { type Rules, type RulesInput, rulesSchema } from 'rein/rules';
import { edited, probeHarness, type ResultSpec, ran, read, searched, todo } from 'rein/testing';

/**
 * A labelled set of agent behaviours for the stall detector: ones that make
 * progress (which it must never stop) and loops (which it must end), each a
 * scripted sequence of turns run through the real machine. The test suite
 * asserts the outcomes; `npm run bench` prints the table.
 */

/** One model turn: tool calls with their results (optionally ending in a finish), or a reply without a tool call. */
type Turn = { calls: ResultSpec[]; finish?: boolean } | { say: string };

interface Behaviour {
  name: string;
  kind: 'progress' | 'loop';
  description: string;
  turns: Turn[];
}

const TEST = 'pytest -q';
const lines = (file: string, from: number, count = 100) =>
  Array.from({ length: count }, (_, index) => `${String(from + index).padStart(5)}  # ${file} line ${from + index}`).join('\n');
const readAt = (file: string, start = 1) => ({
  ...read(file, `[${file}: lines ${start}-${start + 99} of 900]\n${lines(file, start)}`),
  args: { path: file, start },
});
const fix: Turn[] = [
  { calls: [edited('pkg/core.py', { before: 'core-0', after: 'core-fixed' })] },
  { calls: [ran(TEST, 0, '42 passed in 0.31s')], finish: true },
];
const times = <T>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, index) => make(index));
const items = (done: number) => ['find the bug', 'read the tests', 'fix it', 'run the tests'].map((task, index) => ({ task, done: index < done }));

function exploreThenFix(): Turn[] {
  // The case: a 32-module package, 30 different files read and 6 different identifiers searched,
  // a todo list after 10 reads and an item ticked after 25, then the fix on turn 45.
  const turns: Turn[] = [];
  for (let index = 0; index < 36; index++) {
    if (index === 10) turns.push({ calls: [todo(items(0))] });
    if (index === 25) turns.push({ calls: [todo(items(1))] });
    turns.push({ calls: [index % 6 === 5 ? searched(`ident_${index}`, `pkg/m${index}.py:12: def ident_${index}(`) : readAt(`pkg/m${index}.py`)] });
  }
  while (turns.length < 42) turns.push({ calls: [readAt('pkg/core.py', turns.length * 100)] });
  return [...turns, ...fix];
}

function cheapDistinct(count: number): Turn[] {
  const turns: Turn[] = [];
  for (let index = 0; index < count; index++) {
    if (index > 0 && index % 15 === 0) turns.push({ calls: [todo([...items(Math.min(4, index / 15)), { task: `check area ${index}`, done: false }])] });
    const kind = index % 5;
    if (kind === 0) turns.push({ calls: [readAt(`src/f${index}.py`, (index % 7) * 100 + 1)] });
    else if (kind === 1) turns.push({ calls: [searched(`name_${index}`, `src/f${index}.py:3: name_${index} = 1`)] });
    else if (kind === 2) turns.push({ calls: [ran(`wc -l src/f${index}.py`, 0, `${100 + index} src/f${index}.py`)] });
    else if (kind === 3) turns.push({ calls: [ran(`head -n ${index} src/f${index}.py`, 0, lines(`src/f${index}.py`, 1, 5))] });
    else turns.push({ calls: [ran(`git log --oneline -n ${index}`, 0, `abc${index} commit ${index}`)] });
  }
  return [...turns, ...fix];
}

function refactorOneFile(): Turn[] {
  const edits = times(15, (index): Turn => ({ calls: [edited('big.py', { before: `v${index}`, after: `v${index + 1}` })] }));
  return [...edits, { calls: [ran(TEST, 0, '42 passed in 0.31s')], finish: true }];
}

function tddCycle(): Turn[] {
  const turns: Turn[] = [];
  for (let failing = 5; failing >= 0; failing--) {
    const failed = times(failing, (index) => `FAILED tests/test_calc.py::test_case_${index} - AssertionError`).join('\n');
    turns.push({ calls: [ran(TEST, failing > 0 ? 1 : 0, failing > 0 ? `${failed}\n${failing} failed, ${10 - failing} passed in 0.2s` : '10 passed in 0.2s')] });
    if (failing > 0) turns.push({ calls: [edited('calc.py', { before: `c${failing}`, after: `c${failing - 1}` })] });
  }
  turns.push({ calls: [ran(TEST, 0, '10 passed in 0.2s')], finish: true });
  return turns;
}

function pollLongProcess(): Turn[] {
  const turns: Turn[] = [{ calls: [ran('nohup make build > build.log 2>&1 &', 0, '')] }];
  for (let poll = 1; poll <= 20; poll++) turns.push({ calls: [ran('tail -n 3 build.log', 0, `[${poll * 5}/100] compiling module_${poll}.c`)] });
  return [...turns, { calls: [ran(TEST, 0, '42 passed in 0.31s')], finish: true }];
}

/** Behaviours that make progress: the stall detector may remind, never end them. */
export const PROGRESS_BEHAVIOURS: readonly Behaviour[] = [
  {
    name: 'explore 32-module package, fix on turn 45',
    kind: 'progress',
    description: '30 different files read, 6 identifiers searched, todo written and ticked, then the fix',
    turns: exploreThenFix(),
  },
  {
    name: 'explore 40 distinct files',
    kind: 'progress',
    description: '40 reads of different files, then the fix',
    turns: [...times(40, (index): Turn => ({ calls: [readAt(`lib/file${index}.py`)] })), ...fix],
  },
  {
    name: '150 distinct cheap actions',
    kind: 'progress',
    description: 'reads at new offsets, new greps, wc/head/git log with new arguments, a todo update every 15 steps',
    turns: cheapDistinct(150),
  },
  { name: '15-edit refactor of one file', kind: 'progress', description: '15 distinct edits to one file, then one passing test run', turns: refactorOneFile() },
  { name: 'TDD cycle, failing set shrinks', kind: 'progress', description: 'test, edit, test… with one failure fewer each run', turns: tddCycle() },
  { name: 'poll a long process', kind: 'progress', description: 'tail build.log 20 times while a build writes new lines', turns: pollLongProcess() },
];

const LOOP_TURNS = 40;

/** Loops: the stall detector must nudge them and end them. */
export const LOOP_BEHAVIOURS: readonly Behaviour[] = [
  {
    name: 'the same read again and again',
    kind: 'loop',
    description: 'read_file on the same file and offset',
    turns: times(LOOP_TURNS, (): Turn => ({ calls: [readAt('app.py')] })),
  },
  {
    name: 'the same failing command',
    kind: 'loop',
    description: 'the same test run failing the same way',
    turns: times(LOOP_TURNS, (): Turn => ({ calls: [ran(TEST, 1, 'FAILED tests/test_app.py::test_total - assert 3 == 4\n1 failed in 0.1s')] })),
  },
  {
    name: 'the same failing test run, new timings each time',
    kind: 'loop',
    description: 'node --test failing the same way, its duration_ms different every run',
    turns: times(
      LOOP_TURNS,
      (index): Turn => ({
        calls: [
          ran(
            'node --test',
            1,
            `not ok 1 - add\n  ---\n  duration_ms: ${(10 + index * 0.37).toFixed(6)}\n  error: 1 !== 2\n# fail 1\n# duration_ms ${(80 + index * 1.9).toFixed(6)}`,
          ),
        ],
      }),
    ),
  },
  {
    name: 'A-B-A-B',
    kind: 'loop',
    description: 'two commands alternating, each showing the same output',
    turns: times(LOOP_TURNS, (index): Turn => ({ calls: [index % 2 ? ran('cat config.yml', 0, 'debug: false') : ran('ls src', 0, 'app.py util.py')] })),
  },
  {
    name: 'an edit undone and redone',
    kind: 'loop',
    description: 'the same change applied, reverted, applied…',
    turns: times(
      LOOP_TURNS,
      (index): Turn => ({ calls: [edited('app.py', index % 2 ? { before: 'changed', after: 'original' } : { before: 'original', after: 'changed' })] }),
    ),
  },
  {
    name: 'monologue',
    kind: 'loop',
    description: 'replies without a tool call',
    turns: times(LOOP_TURNS, (index): Turn => ({ say: `I believe the fix is to change line ${index % 3}.` })),
  },
  {
    name: 're-reading one file at the same offsets',
    kind: 'loop',
    description: 'read_file cycling over offsets 1, 101, 201',
    turns: times(LOOP_TURNS, (index): Turn => ({ calls: [readAt('app.py', (index % 3) * 100 + 1)] })),
  },
];

export const BEHAVIOURS: readonly Behaviour[] = [...PROGRESS_BEHAVIOURS, ...LOOP_BEHAVIOURS];

/** How a behaviour went through the machine. */
interface BehaviourOutcome {
  status: string;
  /** Steps (model replies) taken. */
  steps: number;
  nudges: Array<{ step: number; rule: string }>;
  firstNudge: number | null;
}

/** Enough steps for the longest behaviour: the step budget is not what is measured. */
const BEHAVIOUR_RULES: RulesInput = { budgets: { maxSteps: 400 } };

/**
 * Runs a behaviour through the harness machine (pure transitions: no model,
 * no processes) from the start of a run, and reports how it ended.
 *
 * @example runBehaviour(LOOP_BEHAVIOURS[0]!).status // 'stalled'
 */
export function runBehaviour(behaviour: Behaviour, overrides: RulesInput = {}): BehaviourOutcome {
  const rules: Rules = rulesSchema.parse({ ...BEHAVIOUR_RULES, ...overrides, budgets: { ...BEHAVIOUR_RULES.budgets, ...overrides.budgets } });
  const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'plan.think', testCmd: TEST });
  const nudges: BehaviourOutcome['nudges'] = [];
  for (const turn of behaviour.turns) {
    if (probe.state.endsWith('.compact')) probe.contextReady();
    if (!probe.state.endsWith('.think')) break;
    let step: ReturnType<typeof probe.reply>;
    if ('say' in turn) {
      step = probe.reply({ content: turn.say });
    } else {
      const calls = turn.calls.map((result) => ({ name: result.name, args: result.args ?? {} }));
      probe.reply({ calls: turn.finish ? [...calls, { name: 'finish', args: { summary: 'done' } }] : calls });
      step = probe.tools(turn.calls, turn.finish ? { summary: 'done' } : undefined);
    }
    for (const note of step.notes) if (note.kind === 'stall') nudges.push({ step: probe.context.step, rule: note.rule });
  }
  const state = probe.state;
  return { status: state.includes('.') ? 'running' : state, steps: probe.context.step, nudges, firstNudge: nudges[0]?.step ?? null };
}

/**
 * When the seed's reference harness would first nudge the same behaviour:
 * its three rules (the same action and result 3 times in a row; 5 applied
 * edits to one file; 8 reads or searches without an edit), applied to the
 * same calls and results. It never ends a run.
 */
export function seedFirstNudge(behaviour: Behaviour): number | null {
  const history: string[] = [];
  const edits = new Map<string, number>();
  let readsSinceEdit = 0;
  for (const [index, turn] of behaviour.turns.entries()) {
    if ('say' in turn) continue;
    for (const result of turn.calls) {
      let nudged = false;
      history.push(`${result.name}${stableStringify(result.args ?? {})}\u0000${result.outcome.content.slice(0, 500)}`);
      const effect = result.outcome.effect;
      if (result.name === 'edit_file' && effect.kind === 'edit' && effect.applied) {
        const count = (edits.get(effect.path) ?? 0) + 1;
        edits.set(effect.path, count >= 5 ? 0 : count);
        readsSinceEdit = 0;
        nudged ||= count >= 5;
      }
      if (result.name === 'read_file' || result.name === 'grep') {
        readsSinceEdit += 1;
        if (readsSinceEdit >= 8) {
          readsSinceEdit = 0;
          nudged = true;
        }
      }
      const last = history.slice(-3);
      nudged ||= last.length === 3 && new Set(last).size === 1;
      if (nudged) return index + 1;
    }
  }
  return null;
}
