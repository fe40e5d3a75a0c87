import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { openAIModelSource, resolveEndpoint } from 'rein/actors';
import { ModelEndpointError, UsageError } from 'rein/lib';
import { approvalModeNotice, approvalOverride, type Plain, unsandboxedAsks } from 'rein/rules';
import { checkTaskFits, chooseRunDir, loadRules } from 'rein/run';
import { resolveSandbox } from 'rein/sandbox';
import type { RunObservers } from 'rein-visualizer/server/live-viz.js';
import { keepsServing, parsePort } from 'rein-visualizer/server/viz-flags.js';
import { type FlagSpec, numberFlag, type ParsedCommand, parseCommand, stringFlag } from '../args.js';
import { executeRun, type Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { errorSummary, HEADLESS_FLAGS, HEADLESS_USAGE, type HeadlessOptions, headlessOptions, writeSummary } from '../headless.js';
import { askAboutProjectServers } from '../mcp-config-prompt.js';
import { OTEL_FLAGS, OTEL_USAGE, otelSettings } from '../otel-flags.js';
import { checkReachable } from '../preflight.js';
import { readTask } from '../task-input.js';

const RUN_USAGE = `rein run <repo> "<task>" --test-cmd "<cmd>" [options]
rein run <repo> --task-file FILE --test-cmd "<cmd>" [options]
rein run <repo> - --test-cmd "<cmd>" [options]          (the task on standard input)

  --task-file FILE       the task from FILE (- for standard input), for tasks too long for one argument (128 KiB);
                         a task larger than the context window is refused with the numbers before the run starts
  --test-cmd CMD         the verification command the gate requires (or verification.command in the rules)
  --model NAME           model name (or REIN_MODEL)
  --base-url URL         OpenAI-compatible endpoint (or OPENAI_BASE_URL); the key comes from OPENAI_API_KEY
                         how to talk to it is in the rules: model.profile (openai, vllm, ollama, llamacpp,
                         lmstudio, openrouter, …: rein rules profiles), model.toolCalling, model.stream
  --config FILE          rules file (default: rein.config.json|yaml|yml|ts|mts|mjs|js in the repo)
  --preset NAME          default, bash-only, no-context-management, no-stall-detector, no-verification-gate, no-plan, strict
  --max-steps N          step budget            --max-seconds N     time budget
  --max-tokens N         token cap              --max-cost USD      cost cap (needs a price for the model)
  --context-window N     the model's context window, in tokens
  --approval MODE        Codex's modes: untrusted (only known-safe reading commands run unasked), on-request
                         (trust the sandbox: ask only for MCP tools, and for commands when there is no
                         sandbox), never (ask about nothing); rein's ask-commands (ask before every command,
                         job and MCP tool); sets approvals.default/ask/allow
  --trace PATH           trace file (default: <run-dir>/trace.jsonl)
  --run-dir DIR          where the trace, record and saved state go (default: <repo>/.rein/runs/<id>)
  --viz                  serve the live visualizer on 127.0.0.1 (the URL is printed)
  --viz-port N           its port (default: any free port)
  --viz-exit             stop it when the run ends (default: serve until Ctrl+C; also when CI is set)
  --json                 print one JSON summary line at the end
  --fsync                fsync the record, journal and state every step: resumable after a power loss too
                         (without it, after kill -9 or a crash of rein)
${HEADLESS_USAGE}
${OTEL_USAGE}`;

/** Flags shared by commands that run the harness. */
const RUN_FLAGS: FlagSpec = {
  'test-cmd': { type: 'string' },
  'task-file': { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  config: { type: 'string' },
  preset: { type: 'string' },
  'max-steps': { type: 'string' },
  'max-seconds': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-cost': { type: 'string' },
  'context-window': { type: 'string' },
  approval: { type: 'string' },
  trace: { type: 'string' },
  'run-dir': { type: 'string' },
  viz: { type: 'boolean' },
  'viz-port': { type: 'string' },
  'viz-exit': { type: 'boolean' },
  json: { type: 'boolean' },
  fsync: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  ...OTEL_FLAGS,
  ...HEADLESS_FLAGS,
};

/** Rule overrides from the command-line flags (the last rules layer). */
function ruleOverrides(command: string, parsed: ParsedCommand): Plain {
  return {
    budgets: {
      maxSteps: numberFlag(command, parsed, 'max-steps', { integer: true }),
      maxSeconds: numberFlag(command, parsed, 'max-seconds'),
      maxTokens: numberFlag(command, parsed, 'max-tokens', { integer: true }),
      maxCostUsd: numberFlag(command, parsed, 'max-cost'),
    },
    context: { windowTokens: numberFlag(command, parsed, 'context-window', { integer: true }) },
    verification: { command: stringFlag(parsed, 'test-cmd') },
    ...approvalOverride(stringFlag(parsed, 'approval')),
  };
}

/** A mode that trusts the sandbox (on-request) asks before commands and jobs when the run has none: there is nothing to trust then. */
function trustSandboxOrAsk(rules: Awaited<ReturnType<typeof loadRules>>['rules'], mode: string | undefined, io: Io): void {
  const deprecated = approvalModeNotice(mode);
  if (deprecated) io.stderr.write(`rein: ${deprecated}\n`);
  const sandbox = resolveSandbox({ sandbox: rules.permissions.sandbox, network: rules.permissions.network });
  const asks = unsandboxedAsks(mode, sandbox.kind === 'bwrap');
  if (asks.length === 0) return;
  rules.approvals.ask = [...rules.approvals.ask, ...asks] as typeof rules.approvals.ask;
  io.stderr.write(
    `rein: --approval ${mode} trusts the sandbox, and this run has none (${'reason' in sandbox ? sandbox.reason : 'off'}): commands and jobs ask first\n`,
  );
}

export async function runCommand(argv: string[], io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommand('rein run', argv, RUN_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(RUN_USAGE + '\n');
    return EXIT.done;
  }
  const [repo, given, ...extra] = parsed.positionals;
  const taskFile = stringFlag(parsed, 'task-file');
  if (!repo || (!given && taskFile === undefined))
    throw new UsageError(`rein run: expected <repo> and "<task>" (or --task-file FILE, or - for standard input)\n\n${RUN_USAGE}`);
  if (given !== undefined && taskFile !== undefined)
    throw new UsageError(`rein run: the task is given twice: as "${given.slice(0, 40)}" and with --task-file; give one`);
  if (extra.length > 0) throw new UsageError(`rein run: unexpected argument "${extra[0]}" (quote the task)`);
  const headless = headlessOptions(parsed);
  try {
    const task = await readTask(taskFile ?? given!, taskFile !== undefined);
    return await startRunCommand(parsed, repo, task, headless, io, env);
  } catch (error) {
    // A run that never started still leaves its summary, so an outside tool always finds one.
    if (!(error instanceof RunStartedError)) writeSummary(headless, errorSummary(error));
    throw error instanceof RunStartedError ? error.cause : error;
  }
}

/**
 * The rules with the flags' overrides on top. A bad flag does not hide a bad
 * rules file (the file is still checked, without the flags): both are reported.
 */
async function loadRulesReportingBoth(parsed: ParsedCommand, workspace: string) {
  let overrides: Plain = {};
  let flagError: UsageError | null = null;
  try {
    overrides = ruleOverrides('rein run', parsed);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    flagError = error;
  }
  const load = loadRules({ preset: stringFlag(parsed, 'preset'), configPath: stringFlag(parsed, 'config'), workspace, overrides });
  if (!flagError) return load;
  const fileError = await load.then(
    () => null,
    (error: unknown) => error,
  );
  if (fileError instanceof UsageError) throw new UsageError(`${flagError.message}\n${fileError.message}`);
  throw flagError;
}

/** Wraps an error thrown after executeRun took over: it wrote the summary itself. */
class RunStartedError extends Error {
  constructor(override readonly cause: unknown) {
    super('run started');
  }
}

async function startRunCommand(parsed: ParsedCommand, repo: string, task: string, headless: HeadlessOptions, io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const vizPort = parsePort('rein run', '--viz-port', stringFlag(parsed, 'viz-port'));
  const otel = await otelSettings('rein run', parsed, env, (text) => io.stderr.write(text));
  const workspace = resolve(repo);
  if (!existsSync(workspace) || !statSync(workspace).isDirectory()) throw new UsageError(`rein run: repo not found or not a directory: ${repo}`);
  const { rules, guards, actions, tools, configPath, sources, hookFunctions, fingerprint, notices } = await loadRulesReportingBoth(parsed, workspace);
  for (const notice of notices)
    io.stderr.write(`${notice}
`);
  trustSandboxOrAsk(rules, stringFlag(parsed, 'approval'), io);
  const testCmd = rules.verification.command;
  if (!testCmd && rules.verification.gate)
    throw new UsageError('rein run: no verification command: pass --test-cmd "<cmd>" (or set verification.command in the rules)');
  // Before the endpoint is asked anything: a task the window cannot hold never starts (startRun checks it with the tools too).
  try {
    checkTaskFits({ task, rules });
  } catch (error) {
    throw error instanceof UsageError ? new UsageError(`rein run: ${error.message}`) : error;
  }
  const endpoint = resolveEndpoint({ model: stringFlag(parsed, 'model'), baseURL: stringFlag(parsed, 'base-url'), env });
  // A cost cap over a model with no price would never bite: say so instead of running without it.
  if (rules.budgets.maxCostUsd !== undefined && !rules.model.prices[endpoint.model]) {
    throw new UsageError(
      `rein run: --max-cost needs a price for model "${endpoint.model}": set model.prices["${endpoint.model}"] = { input, cachedInput, output } (USD per million tokens) in the rules`,
    );
  }
  if (endpoint.baseURL) {
    const problem = await checkReachable(endpoint.baseURL);
    if (problem) throw new ModelEndpointError(problem);
  }
  // Said once the run will start (a usage error or an unreachable endpoint stays one line).
  if (!insideGit(workspace))
    io.stderr.write(
      `rein: warning: ${workspace} is not in a git repository; undo and diffs of the agent's changes need git (git init && git add -A && git commit -m start)\n`,
    );
  await askAboutProjectServers(rules, workspace, { input: process.stdin, output: process.stderr });
  const model = openAIModelSource(endpoint, rules);
  const secrets = [env.OPENAI_API_KEY].filter((value): value is string => Boolean(value));
  const execute = (observers: RunObservers) =>
    executeRun({
      io,
      env,
      json: Boolean(parsed.values.json),
      headless,
      otel,
      run: {
        workspace,
        task,
        testCmd: testCmd ?? '',
        rules,
        model,
        runDir: chooseRunDir(workspace, stringFlag(parsed, 'run-dir')),
        ...(stringFlag(parsed, 'trace') ? { tracePath: resolve(stringFlag(parsed, 'trace')!) } : {}),
        secrets,
        ...(parsed.values.fsync ? { fsync: true } : {}),
        guards,
        actions,
        hookFunctions,
        tools,
        ...(configPath ? { configPath } : {}),
        ...(fingerprint ? { configFingerprint: fingerprint } : {}),
        rulesSources: sources,
        onTrace: observers.onTrace,
        inspect: observers.inspect,
        ...(observers.answerSources ? { answerSources: observers.answerSources } : {}),
      },
      onStart: observers.onStart,
    }).catch((error: unknown) => {
      throw new RunStartedError(error);
    });
  if (!parsed.values.viz) return execute({});
  // The visualizer loads only when asked for: it would slow every run's start.
  const { withLiveViz } = await import('rein-visualizer/server/live-viz.js');
  return withLiveViz(
    { port: vizPort, rules, secrets, log: (text) => io.stderr.write(text), keepServing: keepsServing(Boolean(parsed.values['viz-exit']), env) },
    execute,
  );
}

/** Whether a directory is inside a git work tree (a `.git` here or in a parent). */
function insideGit(dir: string): boolean {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, '.git'))) return true;
    if (dirname(current) === current) return false;
  }
}
