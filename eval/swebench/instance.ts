import { existsSync, readFileSync } from 'node:fs';
import { formatZodError, UsageError } from 'rein/lib';
import { z } from 'zod';
import { LOG_PARSERS, logParser } from './log-parsers.js';

/**
 * A test list as SWE-bench ships it: a JSON array, or (in the Hugging Face
 * datasets) a string holding one.
 */
const testList = z.preprocess(
  (value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  },
  z.array(z.string(), { error: 'expected a JSON array of test names (or a string holding one)' }),
);

/**
 * One SWE-bench instance record, with the field names of SWE-bench's
 * datasets and harness (`instance_id`, `repo`, `base_commit`,
 * `problem_statement`, `test_patch`, `FAIL_TO_PASS`, `PASS_TO_PASS`,
 * `environment_setup_commit`); other fields (`patch`, `hints_text`,
 * `version`, …) are kept and ignored. rein's additions: `test_cmd` (the
 * agent's verification command), `grade_cmd` and `log_parser` (how the
 * grader runs the tests and reads their log, which SWE-bench keeps per
 * repository in its harness; grade-command.ts has its defaults), and
 * `timeout_s` and `check_timeout_s`, as in a task.json.
 */
const sweBenchInstanceSchema = z.looseObject({
  instance_id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only (it names folders)')
    .max(200),
  repo: z
    .string()
    .regex(/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/, 'owner/name')
    .refine((repo) => !repo.split('/').some((part) => part === '.' || part === '..'), 'owner/name'),
  base_commit: z.string().regex(/^[0-9a-f]{7,64}$/, 'a commit hash'),
  problem_statement: z.string().min(1),
  FAIL_TO_PASS: testList.refine((tests) => tests.length > 0, 'at least one test'),
  PASS_TO_PASS: testList.default([]),
  test_patch: z.string().optional(),
  test_cmd: z.string().min(1).optional().describe("rein's addition: the agent's verification command (the gate's)"),
  grade_cmd: z.string().min(1).optional().describe("rein's addition: the command the grader runs (default: SWE-bench harness's for the repository)"),
  log_parser: z
    .string()
    .refine((name) => logParser(name) !== null, {
      message: `expected one of SWE-bench's parsers: ${Object.keys(LOG_PARSERS).join(', ')} (or parse_log_<name>)`,
    })
    .optional()
    .describe("rein's addition: which of SWE-bench's log parsers reads the grading log (default: the repository's)"),
  environment_setup_commit: z.string().optional().describe('Kept; SWE-bench builds its environment from it, local grading uses this machine’s'),
  timeout_s: z.number().positive().max(86_400).optional().describe("rein's addition: the agent's time budget"),
  check_timeout_s: z.number().positive().max(86_400).optional().describe("rein's addition: the time each grading command may take"),
});

export type SweBenchInstance = z.infer<typeof sweBenchInstanceSchema>;

interface InstanceFile {
  instances: SweBenchInstance[];
  /** Records skipped, with why (line or index, then the problem). */
  problems: Array<{ id: string; problem: string }>;
}

/**
 * Reads a SWE-bench instance file: JSONL (one record a line, as the
 * harness's exports), or a JSON array. A bad record is reported and skipped;
 * a duplicate `instance_id` keeps the first.
 *
 * @example const { instances } = loadInstances('swe-bench-verified.jsonl');
 */
export function loadInstances(path: string): InstanceFile {
  if (!existsSync(path)) throw new UsageError(`instance file not found: ${path}`);
  const text = readFileSync(path, 'utf8');
  const entries = parseEntries(text, path);
  const instances: SweBenchInstance[] = [];
  const problems: InstanceFile['problems'] = [];
  const seen = new Set<string>();
  for (const { where, value } of entries) {
    if (value instanceof Error) {
      problems.push({ id: where, problem: value.message });
      continue;
    }
    const parsed = sweBenchInstanceSchema.safeParse(value);
    const id = typeof (value as { instance_id?: unknown })?.instance_id === 'string' ? String((value as { instance_id: string }).instance_id) : where;
    if (!parsed.success) {
      problems.push({ id, problem: formatZodError(parsed.error, { input: value }).slice(0, 3).join('; ') });
    } else if (seen.has(parsed.data.instance_id)) {
      problems.push({ id, problem: `duplicate instance_id (${where}); the first is used` });
    } else {
      seen.add(parsed.data.instance_id);
      instances.push(parsed.data);
    }
  }
  if (instances.length === 0 && problems.length === 0) throw new UsageError(`${path}: no instances`);
  return { instances, problems };
}

function parseEntries(text: string, path: string): Array<{ where: string; value: unknown }> {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new UsageError(`${path}: not valid JSON: ${(error as Error).message}`);
    }
    return (value as unknown[]).map((entry, index) => ({ where: `record ${index}`, value: entry }));
  }
  return text.split('\n').flatMap((line, index) => {
    if (line.trim() === '') return [];
    try {
      return [{ where: `line ${index + 1}`, value: JSON.parse(line) as unknown }];
    } catch (error) {
      return [{ where: `line ${index + 1}`, value: new Error(`not valid JSON: ${(error as Error).message}`) }];
    }
  });
}
