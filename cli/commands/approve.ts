import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeApprovalAnswer } from 'rein/actors';
import { didYouMean, UsageError } from 'rein/lib';
import { type PendingApproval, REMEMBER_SCOPES, type RememberScope } from 'rein/rules';
import { hasSavedState, loadState, runFile } from 'rein/run';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

const APPROVE_USAGE = `rein approve <run-dir> [--deny] [--message M] [--remember SCOPE] [--call ID]

Answers the tool call a run is waiting on (a headless run that exited with code 5, or a
running one from another terminal). The answer is bound to that call's id and the hash of
its arguments: if the run has moved on to another call, the run denies instead of running it.
Continue a run that exited with: rein resume <run-dir> (an answer given here counts even
after the approval's timeout ran out while the run was down).

  --deny             deny the call (default: approve it); the model gets a tool result saying so
  --message M        said to the model with the answer (why it was denied, what to do instead)
  --remember SCOPE   once (default), command (this exact call, rest of the run), tool (this tool,
                     rest of the run), run (every call, rest of the run), repository (this exact
                     call in every later run on this repository; kept in the trust store)
  --call ID          only answer if the waiting call has this id (as printed by a previous rein approve)
  --show             print the waiting call and answer nothing`;

const APPROVE_FLAGS: FlagSpec = {
  deny: { type: 'boolean' },
  message: { type: 'string' },
  remember: { type: 'string' },
  call: { type: 'string' },
  show: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

export async function approveCommand(argv: string[], io: Io): Promise<number> {
  const parsed = parseCommand('rein approve', argv, APPROVE_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(APPROVE_USAGE + '\n');
    return EXIT.done;
  }
  const [dir, ...extra] = parsed.positionals;
  if (!dir) throw new UsageError(`rein approve: expected <run-dir>\n\n${APPROVE_USAGE}`);
  if (extra.length > 0) throw new UsageError(`rein approve: unexpected argument "${extra[0]}"`);
  const { pending, runDir, agent } = waitingCall(resolve(dir));
  if (agent) io.stdout.write(`asked by agent "${agent}", a delegated child (${runDir}):\n`);
  io.stdout.write(describe(pending));
  if (parsed.values.show) return EXIT.done;
  const callId = stringFlag(parsed, 'call');
  if (callId !== undefined && callId !== pending.callId)
    throw new UsageError(`rein approve: the run now waits on call ${pending.callId}, not ${callId}; nothing was answered (check it with --show)`);
  const remember = rememberScope(stringFlag(parsed, 'remember'));
  const verdict = parsed.values.deny ? 'deny' : 'allow';
  const message = stringFlag(parsed, 'message');
  writeApprovalAnswer(runFile(runDir, 'approvalAnswer'), {
    callId: pending.callId,
    argsHash: pending.argsHash,
    verdict,
    by: 'command',
    ...(message ? { message } : {}),
    ...(remember !== 'once' ? { remember } : {}),
  });
  io.stderr.write(
    `rein: ${verdict === 'allow' ? 'approved' : 'denied'} call ${pending.callId}${remember !== 'once' ? ` (remembered for this ${remember})` : ''}; a running run takes it at once, an exited one with: npx rein resume ${dir}\n`,
  );
  return EXIT.done;
}

/**
 * The call the run's saved state waits on: the state is written before anyone is asked, so it is the authority. A run
 * parked because a delegated child waits is answered in that child's directory (`agents/…`, at any depth).
 */
function waitingCall(runDir: string): { pending: PendingApproval; runDir: string; agent?: string } {
  if (!hasSavedState(runFile(runDir, 'state'))) throw new UsageError(`rein approve: ${runDir} has no saved state: is it a rein run directory?`);
  const found = pendingIn(runDir);
  if (!found) throw new UsageError(`rein approve: no call is waiting for an approval in ${runDir}`);
  return found;
}

function pendingIn(runDir: string, agent?: string): { pending: PendingApproval; runDir: string; agent?: string } | null {
  if (!hasSavedState(runFile(runDir, 'state'))) return null;
  const saved = loadState(runFile(runDir, 'state'));
  const snapshot = saved.snapshot as { status?: string; context?: { approvals?: { pending?: PendingApproval | null } } };
  const pending = snapshot.context?.approvals?.pending;
  if (snapshot.status === 'active' && pending) return { pending, runDir, ...(agent ? { agent } : {}) };
  const agents = join(runDir, 'agents');
  if (!existsSync(agents)) return null;
  for (const name of readdirSync(agents).sort()) {
    // The child's directory is `<step>-<call>-<task>-<agent>`: the agent's name is its last part.
    const found = pendingIn(join(agents, name), name.split('-').slice(3).join('-') || name);
    if (found) return found;
  }
  return null;
}

function describe(pending: PendingApproval): string {
  const args = JSON.stringify(pending.args, null, 2);
  return `call ${pending.callId} (${pending.phase} phase, step ${pending.step}): ${pending.tool}\n${args.length > 2000 ? `${args.slice(0, 2000)}…` : args}\nwhy asked: ${pending.reason}\n`;
}

function rememberScope(value: string | undefined): RememberScope {
  if (value === undefined) return 'once';
  if (!(REMEMBER_SCOPES as readonly string[]).includes(value))
    throw new UsageError(`rein approve: --remember expects one of ${REMEMBER_SCOPES.join(', ')}, got "${value}"${didYouMean(value, REMEMBER_SCOPES)}`);
  return value as RememberScope;
}
