import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { resolveEndpoint } from 'rein/actors';
import { ModelEndpointError, UsageError } from 'rein/lib';
import { parseConfigurations } from 'rein-eval/configurations.js';
import { type JobRunner, runEval } from 'rein-eval/eval-runner.js';
import { loadPriceTable } from 'rein-eval/prices.js';
import { isInstanceFile } from 'rein-eval/swebench/tasks.js';
import { formatEvalTable } from 'rein-eval/terminal.js';
import { type FlagSpec, listFlag, numberFlag, type ParsedCommand, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { checkReachable } from '../preflight.js';

const EVAL_USAGE = `rein eval <tasks-dir> [--preset NAME]... [--config [PRESET:]FILE]... [options]
rein eval <instances.jsonl> --repos DIR --model NAME [options]

Runs every task under every configuration in a fresh copy of its repo/, grades
it with the task's check_cmd, and writes <out>/results.jsonl, summary.md and
report.html. Re-running with the same --out resumes: finished runs are kept.

  --preset NAME          a configuration: default, bash-only, no-context-management,
                         no-stall-detector, no-verification-gate, no-plan, strict (repeatable)
  --config FILE          a configuration: the default preset plus a rules file, labelled by
                         the file's name; PRESET:FILE layers it on another preset (repeatable)
                         The first configuration is the baseline the others are paired against.
  --model NAME           run against an OpenAI-compatible endpoint (OPENAI_BASE_URL / OPENAI_API_KEY);
                         without it each task runs its simulated model, offline
  --base-url URL         the endpoint (or OPENAI_BASE_URL)
  --repeat K             runs per task and configuration (default 1); compared by majority
  --parallel N           runs at once, each in its own process (default: CPUs, at most 4)
  --out DIR              output directory (default: ./rein-eval-<date>-<time>)
  --task ID              run only this task (repeatable)
  --prices FILE          JSON price table: {"model": {"input": 3, "cachedInput": 0.3, "output": 15}}, USD per million tokens
  --keep-workspaces      keep each run's temp workspace
  --json                 print the summary as JSON on stdout
  --queue URL            fan out: put the runs on a Redis queue (redis://host:6379[/db], or
                         rediss://… for TLS) for \`rein worker --queue URL\` on any number of
                         machines, and collect their results here; --parallel, --keep-workspaces
                         and --base-url then belong to the workers
  --attempts N           with --queue: times a run may start; a run whose worker died is re-run
                         in a fresh workspace until then (default 2)
  --atif                 write each run's ATIF-v1.7 trajectory beside its trace (runs/…/trajectory.json)

SWE-bench: given a .jsonl/.json file of SWE-bench instances, each is checked out at
its base_commit from --repos DIR (clones or bare mirrors named owner__name[.git],
owner/name[.git] or name[.git]; no network), run on its problem_statement, graded
by FAIL_TO_PASS and PASS_TO_PASS (test_patch applied; each test name appended to the
instance's test_cmd, default python3 -m pytest -q), and its diff against base_commit
(test files and rein's own left out) goes to <out>/predictions.jsonl for the official harness.
  --repos DIR            where the instances' repositories are`;

const EVAL_FLAGS: FlagSpec = {
  preset: { type: 'string', multiple: true },
  config: { type: 'string', multiple: true },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  repeat: { type: 'string' },
  parallel: { type: 'string' },
  out: { type: 'string' },
  task: { type: 'string', multiple: true },
  prices: { type: 'string' },
  'keep-workspaces': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  queue: { type: 'string' },
  attempts: { type: 'string' },
  repos: { type: 'string' },
  atif: { type: 'boolean' },
};

export async function evalCommand(argv: string[], io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommand('rein eval', argv, EVAL_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(EVAL_USAGE + '\n');
    return EXIT.done;
  }
  const [tasksDir, ...extra] = parsed.positionals;
  if (!tasksDir) throw new UsageError(`rein eval: expected <tasks-dir>\n\n${EVAL_USAGE}`);
  if (extra.length > 0) throw new UsageError(`rein eval: unexpected argument "${extra[0]}"`);
  // A queue stores each task's folder for the workers; an instance file's repositories are local mirrors it cannot ship.
  if (isInstanceFile(tasksDir) && stringFlag(parsed, 'queue') !== undefined)
    throw new UsageError('rein eval: SWE-bench instance files run on this machine (their repositories are local mirrors); drop --queue');
  const configurations = parseConfigurations(listFlag(parsed, 'preset'), listFlag(parsed, 'config'));
  const model = stringFlag(parsed, 'model');
  if (isInstanceFile(tasksDir) && model === undefined)
    throw new UsageError('rein eval: SWE-bench instances have no simulated model: pass --model NAME (and OPENAI_BASE_URL or OPENAI_API_KEY)');
  const runner = await queueRunner(parsed, env);
  // With a queue the endpoint is each worker's own: nothing about it is needed (or sent) here.
  const endpoint = model === undefined ? undefined : runner ? { model } : resolveEndpoint({ model, baseURL: stringFlag(parsed, 'base-url'), env });
  if (endpoint?.baseURL) {
    const problem = await checkReachable(endpoint.baseURL);
    if (problem) throw new ModelEndpointError(problem);
  }
  const outDir = stringFlag(parsed, 'out') ?? join(process.cwd(), `rein-eval-${stamp()}`);
  if (runner) sayWhatStopping(io, outDir);
  io.stderr.write(`rein eval: ${tasksDir}, configurations ${configurations.map((config) => config.label).join(', ')}; output in ${shortPath(outDir)}\n`);
  const result = await runEval({
    tasksDir,
    configurations,
    outDir,
    ...(endpoint ? { endpoint: { model: endpoint.model, ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}) } } : {}),
    repeat: numberFlag('rein eval', parsed, 'repeat', { integer: true }) ?? 1,
    parallel: numberFlag('rein eval', parsed, 'parallel', { integer: true }) ?? Math.max(1, Math.min(4, availableParallelism())),
    only: listFlag(parsed, 'task'),
    ...(stringFlag(parsed, 'prices') ? { prices: loadPriceTable(stringFlag(parsed, 'prices')!) } : {}),
    keepWorkspaces: Boolean(parsed.values['keep-workspaces']),
    env,
    progress: io.stderr,
    ...(runner ? { runner } : {}),
    ...(stringFlag(parsed, 'repos') ? { repos: stringFlag(parsed, 'repos')! } : {}),
    ...(parsed.values.atif ? { atif: true } : {}),
  });
  for (const entry of result.view.problems) io.stderr.write(`rein eval: skipped task ${entry.id}: ${entry.problem}\n`);
  if (result.kept > 0) io.stderr.write(`rein eval: resumed: kept ${result.kept} finished runs, ran ${result.ran}\n`);
  io.stderr.write(
    `\n${formatEvalTable(result.view)}\n\nrein eval: ${[result.files.summary, result.files.report, result.files.results, ...(result.files.predictions ?? [])].map(shortPath).join(', ')}\n`,
  );
  if (parsed.values.json) {
    io.stdout.write(
      JSON.stringify({
        outDir: result.outDir,
        files: result.files,
        ran: result.ran,
        kept: result.kept,
        configurations: result.view.stats,
        comparisons: result.view.comparisons,
        skipped: result.view.problems,
      }) + '\n',
    );
  }
  return EXIT.done;
}

/** `--queue URL`: the coordinator's runner; flags that only make sense on the workers are refused with where they go. */
async function queueRunner(parsed: ParsedCommand, env: NodeJS.ProcessEnv): Promise<JobRunner | undefined> {
  const url = stringFlag(parsed, 'queue');
  const attempts = numberFlag('rein eval', parsed, 'attempts', { integer: true });
  if (url === undefined) {
    if (attempts !== undefined) throw new UsageError('rein eval: --attempts applies to queued runs; add --queue redis://…');
    return undefined;
  }
  for (const flag of ['parallel', 'keep-workspaces', 'base-url']) {
    if (parsed.values[flag] !== undefined)
      throw new UsageError(
        `rein eval: with --queue, --${flag} belongs to each worker: rein worker --queue … --${flag}${flag === 'keep-workspaces' ? '' : ' …'}`,
      );
  }
  // Loaded only here: BullMQ and ioredis are large imports a local eval never needs.
  const [{ createQueueRunner }, { parseRedisUrl }] = await Promise.all([import('rein-eval/queue/coordinator.js'), import('rein-eval/queue/redis-endpoint.js')]);
  return createQueueRunner({ endpoint: parseRedisUrl(url, env), attempts: attempts ?? 2 });
}

/** Stopping a coordinator loses nothing (each result line is on disk as it comes); it says how to pick up again. */
function sayWhatStopping(io: Io, outDir: string): void {
  const stop = (code: number) => {
    io.stderr.write(
      `\nrein eval: stopped; the unfinished jobs stay on the queue and the workers go on with them. Re-run the same command (same --out ${shortPath(outDir)}) to collect their results.\n`,
    );
    process.exit(code);
  };
  process.once('SIGINT', () => stop(EXIT.interrupted));
  process.once('SIGTERM', () => stop(EXIT.terminated));
}

function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

function shortPath(path: string): string {
  const relativePath = relative(process.cwd(), path);
  return relativePath.startsWith('..') || relativePath === '' ? path : relativePath;
}
