import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { ModelEndpointError, readRegularFile, sha256, UsageError } from 'rein/lib';
import { type QueueWorker, startQueueWorker } from 'rein-eval/queue/queue-worker.js';
import { PASSWORD_ENV, parseRedisUrl } from 'rein-eval/queue/redis-endpoint.js';
import { defaultCacheDir } from 'rein-eval/queue/worker-files.js';
import { type FlagSpec, listFlag, numberFlag, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { checkReachable } from '../preflight.js';

const WORKER_USAGE = `rein worker --queue redis://host:6379[/db] [options]

Takes the jobs \`rein eval --queue\` puts on a Redis queue and runs each as
rein eval runs it locally: a fresh copy of the task's repo in a child process,
the same time limits and grading. Tasks come from Redis by content hash and
are cached here; the model endpoint and key are this machine's own and never
travel with a job. Run one on every machine that should take part.

  --queue URL            redis://[user:password@]host:port[/db], or rediss://… for TLS
                         (or set REIN_QUEUE; a password can come from ${PASSWORD_ENV})
  --parallel N           jobs at once, each in its own process (default: CPUs, at most 4)
  --base-url URL         this machine's OpenAI-compatible endpoint for --model evals
                         (or OPENAI_BASE_URL); the key is OPENAI_API_KEY
  --api-key-file FILE    read the endpoint's key from FILE instead of OPENAI_API_KEY
  --cache DIR            where tasks are cached (default: $XDG_CACHE_HOME/rein or ~/.cache/rein)
  --stall-seconds N      a job whose worker stops renewing its lock for N seconds (killed,
                         frozen, cut off) is re-run by another worker (default 30)
  --max-result-mb N      cap on each job's compressed trace and run files sent back (default 32)
  --idle-exit N          exit after N seconds without a job (for batch machines)
  --keep-workspaces      keep each run's temp workspace
  --trust-rules FILE     a rules file you reviewed (repeatable): a job whose rules file has the
                         same sha256 is run with it as it is. Any other job rules file is not
                         trusted: a code file (.ts/.mjs/.js) is refused, a JSON/YAML file may
                         only keep or narrow the rules (a queue is not your own --config)
  --host-task-code       trust this queue's task code as a local eval does: each task's
                         setup_cmd outside the sandbox, its simulated model module imported.
                         Without it setup_cmd runs in the sandbox (network on, for installs)
                         and a task's simulated model module is refused

Ctrl+C (or SIGTERM) finishes the running jobs and exits; a second one exits at
once, and those jobs are re-run by other workers.`;

const WORKER_FLAGS: FlagSpec = {
  queue: { type: 'string' },
  parallel: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key-file': { type: 'string' },
  cache: { type: 'string' },
  'stall-seconds': { type: 'string' },
  'max-result-mb': { type: 'string' },
  'idle-exit': { type: 'string' },
  'keep-workspaces': { type: 'boolean' },
  'trust-rules': { type: 'string', multiple: true },
  'host-task-code': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

export async function workerCommand(argv: string[], io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommand('rein worker', argv, WORKER_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(WORKER_USAGE + '\n');
    return EXIT.done;
  }
  if (parsed.positionals.length > 0) throw new UsageError(`rein worker: unexpected argument "${parsed.positionals[0]}"`);
  const url = stringFlag(parsed, 'queue') ?? env.REIN_QUEUE;
  if (!url) throw new UsageError(`rein worker: expected --queue redis://host:6379 (or REIN_QUEUE)\n\n${WORKER_USAGE}`);
  const runEnv = modelEnvironment(parsed, env);
  const baseURL = runEnv.OPENAI_BASE_URL;
  if (baseURL) {
    const problem = await checkReachable(baseURL);
    if (problem) throw new ModelEndpointError(problem);
  }
  const log = (text: string) => io.stderr.write(`rein worker: [${new Date().toISOString().slice(11, 19)}] ${text}\n`);
  const worker = await startQueueWorker({
    endpoint: parseRedisUrl(url, env),
    parallel: numberFlag('rein worker', parsed, 'parallel', { integer: true }) ?? Math.max(1, Math.min(4, availableParallelism())),
    cache: stringFlag(parsed, 'cache') ?? defaultCacheDir(env),
    stallSeconds: numberFlag('rein worker', parsed, 'stall-seconds') ?? 30,
    maxResultBytes: Math.round((numberFlag('rein worker', parsed, 'max-result-mb') ?? 32) * 1024 * 1024),
    keepWorkspaces: Boolean(parsed.values['keep-workspaces']),
    env: runEnv,
    modelEndpoint: baseURL || runEnv.OPENAI_API_KEY ? { ...(baseURL ? { baseURL } : {}) } : null,
    trustedRules: listFlag(parsed, 'trust-rules').map(trustedRulesHash),
    hostTaskCode: Boolean(parsed.values['host-task-code']),
    log,
  });
  return await untilStopped(worker, log, numberFlag('rein worker', parsed, 'idle-exit'));
}

/** The sha256 of a rules file the operator reviewed, read now (the job's copy must be byte for byte the same). */
function trustedRulesHash(file: string): string {
  try {
    return sha256(readRegularFile(file));
  } catch (error) {
    throw new UsageError(`rein worker: --trust-rules ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (error as Error).message}`);
  }
}

/** The runs' environment: the worker's own, with the endpoint and key its flags name. */
function modelEnvironment(parsed: ReturnType<typeof parseCommand>, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const runEnv = { ...env };
  const baseURL = stringFlag(parsed, 'base-url');
  if (baseURL) runEnv.OPENAI_BASE_URL = baseURL;
  const keyFile = stringFlag(parsed, 'api-key-file');
  if (keyFile) {
    if (!existsSync(keyFile)) throw new UsageError(`rein worker: --api-key-file: ${keyFile} not found`);
    runEnv.OPENAI_API_KEY = readFileSync(keyFile, 'utf8').trim();
  }
  return runEnv;
}

/** Runs until Ctrl+C, SIGTERM or (with --idle-exit) a quiet spell; returns the exit code. */
function untilStopped(worker: QueueWorker, log: (text: string) => void, idleExit: number | undefined): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (code: number, why: string) => {
      if (stopping) {
        log('stopping now; the running jobs will be re-run by other workers');
        worker.abandon();
        process.exit(code);
      }
      stopping = true;
      log(why);
      clearInterval(idle);
      worker
        .close()
        .then(
          () => code,
          (error: unknown) => {
            log(`while stopping: ${(error as Error).message}`);
            return code;
          },
        )
        .then((exitCode) => {
          process.removeListener('SIGINT', onInt);
          process.removeListener('SIGTERM', onTerm);
          resolve(exitCode);
        });
    };
    const onInt = () => stop(EXIT.interrupted, 'stopping: finishing the running jobs first (Ctrl+C again to stop now)');
    const onTerm = () => stop(EXIT.terminated, 'stopping: finishing the running jobs first (SIGTERM again to stop now)');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    const idle = setInterval(() => {
      if (idleExit !== undefined && worker.idleSeconds() >= idleExit) stop(EXIT.done, `no job for ${idleExit} s; exiting`);
    }, 1_000);
  });
}
