import { z } from 'zod';
import { findDenyRule } from './permissions/deny-list.js';
import { resolveSandbox } from './sandbox/launch/bubblewrap.js';
import { runColdCommand } from './sandbox/launch/cold-command.js';
import type { GroupRunResult } from './sandbox/lifetime/process-group.js';
import { reportJob } from './shaping/job-report.js';
import { limitNote } from './shaping/limit-notes.js';
import type { JobEffect, Tool, ToolContext, ToolEffect, ToolOutcome } from './types.js';

/** How long a new background job is watched before `run` returns, so a job that fails at once says so. */
const JOB_FIRST_LOOK_MS = 1_000;

const parameters = z
  .object({
    command: z.string().describe('A bash command, run in the repository root. Output is head+tail truncated.'),
    background: z
      .boolean()
      .optional()
      .describe(
        'Start it as a background job that keeps running (a dev server, a watcher, a long build) until you stop it or the run ends; returns a job id and a log path. A command ending in & does the same.',
      ),
  })
  .strict();

/**
 * `run`: a shell command in the workspace root (seed components 1, 2 and 8).
 * The deny list is checked first; the command then runs in its own process
 * group in the run's sandbox (bubblewrap when the policy and machine allow)
 * with a filtered environment and a timeout, and the observation is
 * `exit=<code>` followed by the head and tail of the output. With
 * `background: true` or a trailing `&` it starts a background job instead
 * (see the `job` tool).
 *
 * A non-zero exit is a successful call (`ok: true`): the exit code is the
 * information. Blocked, timed-out, aborted and unstartable commands are not.
 *
 * @example await runTool.execute({ command: 'pytest -q' }, ctx) // { content: 'exit=0\n3 passed in 0.01s\n', ... }
 */
export const runTool: Tool<typeof parameters> = {
  name: 'run',
  description: 'Run a shell command in the repo root. Output is truncated. background: true (or a trailing &) starts a background job.',
  parameters,
  async execute({ command, background }, ctx) {
    const denied = findDenyRule(command, ctx.policy.deny, { approvedByPerson: ctx.approvedByPerson === true });
    if (denied !== null) {
      return outcome(`Blocked by policy: ${denied.reason}. Choose a safer action.`, false, {
        kind: 'command',
        command,
        exitCode: null,
        timedOut: false,
        blocked: true,
        blockedBy: denied.reason,
      });
    }
    const mode = ctx.sandbox?.mode ?? resolveSandbox(ctx.policy);
    if (mode.kind === 'unavailable') {
      return outcome(`Command not run: ${mode.reason}.`, false, commandEffect(command, null, false, false));
    }
    const job = background ? command : backgroundedCommand(command);
    if (job !== null) return startJob(job, ctx);
    const options = { timeoutMs: ctx.policy.timeoutSeconds * 1000, signal: ctx.signal, outputCap: ctx.limits.outputChars };
    const result = ctx.sandbox
      ? await ctx.sandbox.runCommand(command, options)
      : await runColdCommand(command, { ...options, root: ctx.root, policy: ctx.policy, protectedFiles: ctx.protectedFiles });
    return describeResult(command, result, ctx);
  },
  // A command the stopped run had started may have partly happened (a file appended to, a
  // commit made), and its output is gone: the model is told so instead of it running twice.
  async recover({ command, background }) {
    if (background || backgroundedCommand(command) !== null) {
      return outcome(`${INTERRUPTED_TEXT}A background job it started died with rein.\n`, false, lostJob(command));
    }
    return outcome(INTERRUPTED_TEXT, false, { kind: 'command', command, exitCode: null, timedOut: false, blocked: false, interrupted: true });
  },
};

export const INTERRUPTED_TEXT =
  'exit=interrupted\nNot run again: rein was stopped while this command was running, so it may have partly run and its output is lost. ' +
  'Check what it was meant to change before running it again.\n';

/**
 * The command without its trailing `&` when the whole command is meant to
 * run in the background (`npm run dev &`, `nohup server > log 2>&1 &`), else
 * null. `a && b &`, `cmd |&`, `x >&` and `\&` are not.
 *
 * @example backgroundedCommand('python -m http.server 8000 &') // 'python -m http.server 8000'
 */
export function backgroundedCommand(command: string): string | null {
  const trimmed = command.trimEnd();
  if (!trimmed.endsWith('&') || /[&|>\\]$/.test(trimmed.slice(0, -1))) return null;
  const rest = trimmed.slice(0, -1).trimEnd();
  return rest === '' || !quotesBalanced(rest) ? null : rest;
}

async function startJob(command: string, ctx: ToolContext): Promise<ToolOutcome> {
  const sandbox = ctx.sandbox;
  if (!sandbox) {
    return outcome(
      "Background job not started: background jobs need the run's sandbox (rein run); run the command in the foreground.",
      false,
      lostJob(command),
    );
  }
  let job: Awaited<ReturnType<typeof sandbox.startJob>>;
  try {
    job = await sandbox.startJob(command);
  } catch (error) {
    return outcome(`Background job not started: ${(error as Error).message}.`, false, lostJob(command));
  }
  await sandbox.waitJob(job.id, JOB_FIRST_LOOK_MS, ctx.signal);
  return reportJob(sandbox, job, 'start', ctx);
}

function describeResult(command: string, result: GroupRunResult, ctx: ToolContext): ToolOutcome {
  const { output } = result;
  // A limit the command ran into is said after its output, where the model reads on from the error it caused.
  const finish = (prefix: string) => {
    const text = output.finish(prefix);
    const note = ctx.sandbox ? limitNote(result, text, ctx.sandbox.limits) : null;
    return note === null ? text : `${text}${text.endsWith('\n') ? '' : '\n'}${note}\n`;
  };
  switch (result.ending) {
    case 'exited':
      return outcome(finish(`exit=${result.exitCode}\n`), true, commandEffect(command, result.exitCode, false, false));
    case 'timeout': {
      const prefix = `exit=timeout after ${ctx.policy.timeoutSeconds}s (process group killed)\n`;
      return outcome(finish(prefix), false, commandEffect(command, null, true, false));
    }
    case 'aborted':
      return outcome(finish('exit=aborted (process group killed)\n'), false, commandEffect(command, null, false, false));
    case 'failed':
      return outcome(`Command could not run: ${result.failure ?? 'unknown error'}`, false, commandEffect(command, null, false, false));
  }
}

function quotesBalanced(text: string): boolean {
  let quote: string | null = null;
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which is no backslash, no quote and not the open quote
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (char === '\\' && quote !== "'") at += 1;
    else if (quote === null && (char === '"' || char === "'")) quote = char;
    else if (char === quote) quote = null;
  }
  return quote === null;
}

function lostJob(command: string): JobEffect {
  return { kind: 'job', action: 'start', id: null, command, state: 'lost', exitCode: null, log: '', newBytes: 0, running: 0 };
}

function commandEffect(command: string, exitCode: number | null, timedOut: boolean, blocked: boolean): ToolEffect {
  return { kind: 'command', command, exitCode, timedOut, blocked };
}

function outcome(content: string, ok: boolean, effect: ToolEffect): ToolOutcome {
  return { content, ok, effect };
}
