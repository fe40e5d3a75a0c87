import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { formatZodError, jsonSyntaxError, UsageError } from 'rein/lib';
import { rulesSchema } from 'rein/rules';
import { z } from 'zod';
import type { SimulatedModelChoice } from './simulated/model-source.js';
import { checkSimulatedModel } from './simulated/registry.js';
import { simulationSchema } from './simulated/simulation-schema.js';
import type { SweBenchTaskInfo } from './swebench/tasks.js';

/** Agent time budget when a task sets no `timeout_s`. */
export const DEFAULT_TIMEOUT_S = 600;
/** Time the grader's `check_cmd` (and `setup_cmd`) may take when the task sets no `check_timeout_s`. */
export const DEFAULT_CHECK_TIMEOUT_S = 120;

/** `task.json`: what the agent is told, how it is graded, and (for offline runs) its simulated model. */
const taskSchema = z
  .object({
    prompt: z.string().min(1).optional().describe('The task the agent is given (or `prompt_file`)'),
    prompt_file: z.string().min(1).optional().describe('A file in the task folder holding the task, for a task too long to keep in task.json (or `prompt`)'),
    test_cmd: z.string().min(1).describe('The verification command the agent is told to run'),
    check_cmd: z.string().min(1).describe("The grader's command, run in the workspace after the agent ends; never shown to the agent. Exit 0 = resolved"),
    timeout_s: z.number().positive().max(86_400).default(DEFAULT_TIMEOUT_S).describe("The agent's time budget (the harness's budgets.maxSeconds)"),
    check_timeout_s: z.number().positive().max(86_400).default(DEFAULT_CHECK_TIMEOUT_S).describe('Time limit of setup_cmd and check_cmd each'),
    setup_cmd: z.string().min(1).optional().describe('Run in the fresh workspace before the agent starts'),
    simulated_model: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .optional()
      .describe('Registered simulated model name(s), or a ./file.mjs in the task folder; used when eval runs without --model'),
    simulation: simulationSchema.optional().describe('What the registered simulated models know about this task'),
    rules: z.record(z.string(), z.unknown()).optional().describe('A rules layer for this task (e.g. a small context window), applied over the configuration'),
  })
  .strict()
  .refine((task) => (task.prompt === undefined) !== (task.prompt_file === undefined), {
    message: 'give the task as `prompt` or as `prompt_file`, one of them',
  });

type TaskFile = Omit<z.infer<typeof taskSchema>, 'prompt' | 'prompt_file'> & { prompt: string; prompt_file?: string };

/** Bytes a prompt file may have: far beyond any context window. */
const MAX_PROMPT_BYTES = 16 * 1024 * 1024;

/** A validated task: its folder, its starting workspace and its task.json. */
export interface EvalTask extends TaskFile {
  id: string;
  dir: string;
  repoDir: string;
  simulated: SimulatedModelChoice | null;
  /** Set for a task from a SWE-bench instance file: checked out from a local repository and graded by its tests. */
  swebench?: SweBenchTaskInfo;
}

export interface TaskSet {
  tasks: EvalTask[];
  /** Folders skipped, with the reason (bad task.json, no repo/, …). */
  problems: Array<{ id: string; problem: string }>;
}

/**
 * Reads every task folder under `dir` (each holding `repo/` and `task.json`),
 * sorted by name. A bad task is reported in `problems` and skipped; the rest
 * are returned. Only a missing or empty tasks directory is an error.
 *
 * @example const { tasks, problems } = loadTaskSet('eval/suite');
 */
export function loadTaskSet(dir: string): TaskSet {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new UsageError(`tasks directory not found: ${dir}`);
  const tasks: EvalTask[] = [];
  const problems: TaskSet['problems'] = [];
  for (const id of readdirSync(root).sort()) {
    const folder = join(root, id);
    if (id.startsWith('.') || id.startsWith('_') || !statSync(folder).isDirectory()) continue;
    const loaded = loadTask(id, folder);
    if ('problem' in loaded) problems.push({ id, problem: loaded.problem });
    else tasks.push(loaded);
  }
  if (tasks.length === 0 && problems.length === 0) throw new UsageError(`${dir}: no task folders (each needs repo/ and task.json)`);
  return { tasks, problems };
}

function loadTask(id: string, dir: string): EvalTask | { problem: string } {
  const file = join(dir, 'task.json');
  if (!existsSync(file)) return { problem: 'no task.json' };
  const repoDir = join(dir, 'repo');
  if (!existsSync(repoDir) || !statSync(repoDir).isDirectory()) return { problem: 'no repo/ folder' };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { problem: `task.json: not valid JSON: ${jsonSyntaxError(readFileSync(file, 'utf8'), error)}` };
  }
  const parsed = taskSchema.safeParse(json);
  if (!parsed.success) return { problem: `task.json: ${formatZodError(parsed.error, { input: json, schema: taskSchema }).slice(0, 3).join('; ')}` };
  const rulesProblem = parsed.data.rules ? checkRulesLayer(parsed.data.rules) : null;
  if (rulesProblem) return { problem: `task.json rules: ${rulesProblem}` };
  const prompt = parsed.data.prompt ?? promptFile(dir, parsed.data.prompt_file!);
  if (typeof prompt !== 'string') return prompt;
  const task = { ...parsed.data, prompt };
  const simulated = simulatedChoice(task, dir);
  if (typeof simulated === 'string') return { problem: simulated };
  return { ...task, id, dir, repoDir, simulated };
}

/** The task from `prompt_file`: a regular file inside the task folder, not empty, at most 16 MiB. */
function promptFile(dir: string, name: string): string | { problem: string } {
  const path = resolve(dir, name);
  if (!existsSync(path) || !statSync(path).isFile()) return { problem: `task.json prompt_file: ${name} not found in the task folder` };
  // Where it really is (a link included): a task folder names its own files only.
  if (!realpathSync(path).startsWith(realpathSync(dir) + sep)) return { problem: `task.json prompt_file: ${name} is outside the task folder` };
  if (statSync(path).size > MAX_PROMPT_BYTES) return { problem: `task.json prompt_file: ${name} is more than ${MAX_PROMPT_BYTES} bytes` };
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  return text.trim() === '' ? { problem: `task.json prompt_file: ${name} is empty` } : text;
}

function simulatedChoice(task: TaskFile, dir: string): SimulatedModelChoice | null | string {
  if (task.simulated_model === undefined) return null;
  const names = Array.isArray(task.simulated_model) ? task.simulated_model : [task.simulated_model];
  if (names.length === 1 && /^\.{1,2}\//.test(names[0]!)) {
    const path = resolve(dir, names[0]!);
    return existsSync(path) ? { kind: 'module', path } : `simulated_model: ${names[0]} not found in the task folder`;
  }
  if (!task.simulation) return 'simulated_model needs a `simulation` block (what the model knows about the task)';
  const problems = checkSimulatedModel(names, task.simulation);
  return problems.length > 0 ? problems.join('; ') : { kind: 'registry', names, simulation: task.simulation };
}

function checkRulesLayer(layer: Record<string, unknown>): string | null {
  const parsed = rulesSchema.safeParse(layer);
  return parsed.success ? null : formatZodError(parsed.error, { input: layer, schema: rulesSchema }).slice(0, 3).join('; ');
}
