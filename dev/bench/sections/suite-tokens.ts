import { PRESETS } from 'rein/rules';
import { mcnemarExact } from 'rein-eval/mcnemar.js';
import { loadTaskSet } from 'rein-eval/task.js';
import { inCheckout } from '../checkout.js';
import { withDirectPython } from '../python-on-path.js';
import { type BenchSection, listed, percent } from '../section.js';
import { measureSuiteTokens, type SuiteConfiguration, type SuiteTokens } from '../suite-tokens.js';

/**
 * The plan effect taken apart: the plan phase and the todo tool each on and off, on the tasks whose
 * simulated model keeps its requirements in a todo list.
 */
const PLAN_PARTS: Array<SuiteConfiguration & { phase: boolean; todoTool: boolean }> = [
  {
    label: 'no-plan, update_todo kept',
    preset: 'no-plan',
    rules: { tools: { enabled: ['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish'] } },
    phase: false,
    todoTool: true,
  },
  {
    label: 'default, update_todo removed',
    preset: 'default',
    rules: { tools: { enabled: ['read_file', 'grep', 'edit_file', 'run', 'finish'] } },
    phase: true,
    todoTool: false,
  },
  { label: 'bash-only, update_todo added', preset: 'bash-only', rules: { tools: { enabled: ['run', 'update_todo', 'finish'] } }, phase: false, todoTool: true },
];
const PRESET_PARTS: Record<string, { phase: boolean; todoTool: boolean }> = {
  default: { phase: true, todoTool: true },
  'no-plan': { phase: false, todoTool: false },
  'bash-only': { phase: false, todoTool: false },
};

/** Tokens and cost per solved task under every preset on the offline simulated suite, and where the plan effect comes from. */
export const suiteTokensSection: BenchSection = {
  id: 'suite',
  title: 'Tokens per solved task on the offline simulated suite (eval/suite; a simulation of the harness, not a model benchmark; nominal $3/$0.30/$15 per M)',
  async run({ parallel }) {
    const planTasks = planDependentTasks();
    const { value, note: pythonNote } = await withDirectPython(async () => ({
      presets: await measureSuiteTokens(
        PRESETS.map((preset) => ({ label: preset.name, preset: preset.name })),
        { parallel },
      ),
      parts: await measureSuiteTokens(PLAN_PARTS, { parallel, only: planTasks }),
    }));
    const { presets, parts } = value;
    const baseline = presets.find((row) => row.config === 'default')!;
    return {
      tables: [presetTable(presets, baseline), planTable(presets, parts, planTasks)],
      notes: [...lossNotes(presets, baseline), planNote(presets, parts, planTasks), pythonNote],
    };
  },
};

function planDependentTasks(): string[] {
  const { tasks } = loadTaskSet(inCheckout('eval', 'suite'));
  return tasks
    .filter((task) => task.simulated?.kind === 'registry' && task.simulated.names.includes('plan-dependent'))
    .map((task) => task.id)
    .sort();
}

const solvedMap = (row: SuiteTokens, tasks: readonly string[]) => Object.fromEntries(tasks.map((task) => [task, row.solved.includes(task)]));

function presetTable(rows: readonly SuiteTokens[], baseline: SuiteTokens) {
  const tasks = allTasks(rows);
  return {
    headers: [
      'preset',
      'resolved',
      'lost / gained vs default',
      'exact McNemar p',
      'prompt tokens',
      'cached share',
      'est. cost',
      'cost per solved task',
      'agent seconds',
    ],
    rows: rows.map((row) => {
      const test = mcnemarExact(solvedMap(baseline, tasks), solvedMap(row, tasks));
      return [
        row.config,
        `${row.resolved}/${row.tasks}`,
        row === baseline ? '-' : `${test.only_a} / ${test.only_b}`,
        row === baseline ? '-' : test.p_value.toFixed(4),
        row.promptTokens,
        percent(row.cachedShare),
        `$${row.costUsd.toFixed(3)}`,
        Number.isNaN(row.costPerSolved) ? '-' : `$${row.costPerSolved.toFixed(4)}`,
        Math.round(row.wallSeconds),
      ];
    }),
  };
}

function planTable(presets: readonly SuiteTokens[], parts: readonly SuiteTokens[], planTasks: readonly string[]) {
  const onPlanTasks = (row: SuiteTokens) => row.solved.filter((task) => planTasks.includes(task)).length;
  const yes = (on: boolean) => (on ? 'on' : 'off');
  const presetRows = Object.entries(PRESET_PARTS).map(([name, part]) => [
    name,
    yes(part.phase),
    yes(part.todoTool),
    `${onPlanTasks(presets.find((row) => row.config === name)!)}/${planTasks.length}`,
  ]);
  const partRows = PLAN_PARTS.map((part) => [
    part.label,
    yes(part.phase),
    yes(part.todoTool),
    `${onPlanTasks(parts.find((row) => row.config === part.label)!)}/${planTasks.length}`,
  ]);
  return {
    headers: [`configuration (on the ${planTasks.length} plan-dependent tasks)`, 'plan phase', 'update_todo', 'resolved'],
    rows: [...presetRows, ...partRows],
  };
}

function allTasks(rows: readonly SuiteTokens[]): string[] {
  return [...new Set(rows.flatMap((row) => row.solved))].sort();
}

/** Which tasks each configuration lost against the default, by name. */
function lossNotes(rows: readonly SuiteTokens[], baseline: SuiteTokens): string[] {
  const lost = rows
    .filter((row) => row !== baseline)
    .map((row) => {
      const missing = baseline.solved.filter((task) => !row.solved.includes(task));
      return `${row.config} lost ${missing.length > 0 ? listed(missing) : 'none'}`;
    });
  return [`Against the default (${baseline.resolved}/${baseline.tasks}): ${lost.join('; ')}.`];
}

/** Whether the plan effect follows the todo tool, the plan phase, or neither, read from the second table. */
function planNote(presets: readonly SuiteTokens[], parts: readonly SuiteTokens[], planTasks: readonly string[]): string {
  const rows = [
    ...Object.entries(PRESET_PARTS).map(([name, part]) => ({ ...part, solved: presets.find((row) => row.config === name)!.solved })),
    ...PLAN_PARTS.map((part) => ({ ...part, solved: parts.find((row) => row.config === part.label)!.solved })),
  ].map((row) => ({ ...row, count: row.solved.filter((task) => planTasks.includes(task)).length }));
  const byTool = (on: boolean) => rows.filter((row) => row.todoTool === on).map((row) => row.count);
  const withTool = byTool(true);
  const withoutTool = byTool(false);
  const range = (counts: number[]) => (Math.min(...counts) === Math.max(...counts) ? `${counts[0]}` : `${Math.min(...counts)}–${Math.max(...counts)}`);
  if (Math.min(...withTool) > Math.max(...withoutTool)) {
    return (
      `On the plan-dependent tasks the outcome follows the todo tool, not the plan phase: ${range(withTool)} of ${planTasks.length} solved wherever update_todo is offered, ` +
      `${range(withoutTool)} wherever it is not, with the phase on or off.`
    );
  }
  return `On the plan-dependent tasks the outcome does not follow the todo tool alone: with update_todo ${withTool.join(', ')} solved, without it ${withoutTool.join(', ')} (of ${planTasks.length}).`;
}
