import { fromPromise } from 'xstate';
import type { ApproverInput } from '../../machines/actor-contracts.js';
import { callFacts } from '../../rules/approvals/call-facts.js';
import type { ApprovalDecision, Decider, PendingApproval } from '../../rules/approvals/pending.js';
import { type RememberScope, toRemember } from '../../rules/approvals/remembered.js';
import type { Approvals } from '../../rules/approvals/schema.js';
import { rememberForRepository } from '../../rules/trust/index.js';
import { carriedRequestTimes, clearApprovalFiles, readApprovalAnswer, writeApprovalRequest } from './answer-file.js';

/** What someone answered: the approver binds it to the pending call. */
export interface Answer {
  verdict: 'allow' | 'deny';
  message?: string;
  remember?: RememberScope;
}

/** Someone or something that can answer while the run waits: the terminal, the visualizer page, a hook. */
export interface AnswerSource {
  by: Decider;
  ask(pending: PendingApproval, signal: AbortSignal): Promise<Answer>;
}

interface ApproverDeps {
  /** The run directory's request and answer files (`rein approve` reads the one and writes the other). */
  requestPath: string;
  answerPath: string;
  /** Who can answer in this process; none on a headless run. */
  sources: readonly AnswerSource[];
  /** What a run with no source does (approvals.headless). */
  headless: Approvals['headless'];
  /** The repository (its real path) `repository` decisions are remembered for, in the trust store. */
  repository?: string;
  /** How often the answer file is looked for, in milliseconds. */
  pollMs?: number;
  now?: () => number;
}

/**
 * The approver actor: takes the first answer from the answer file (`rein approve`, from any terminal), the terminal
 * prompt, the page or a hook; no answer within the timeout is a denial by `timeout`. Without any source it answers by
 * the headless policy, or (`exit`) waits on the answer file alone while the run parks itself (run/parts/run-to-end.ts).
 * A `repository` decision is written to the trust store here, the only writer. The answer it returns is bound to the
 * pending call; the machine checks that binding again (answerFitsPending).
 *
 * The pending call is in the saved state before anyone is asked: `awaitingApproval` is a checkpoint, saved when the
 * macrostep that entered it ends, and this actor starts within that macrostep; its first await lets the save happen.
 *
 * @example const approver = createApprover({ requestPath, answerPath, sources: [terminal], headless: 'exit' });
 */
export function createApprover(deps: ApproverDeps) {
  const now = deps.now ?? Date.now;
  return fromPromise<ApprovalDecision, ApproverInput>(async ({ input, signal }) => {
    const { pending, timeoutMs } = input;
    // The checkpoint save of the macrostep that started this actor runs before anything below (see above).
    await Promise.resolve();
    // A wait a killed run began goes on from its own start and deadline: a resume never gives the call a new timeout.
    const carried = carriedRequestTimes(deps.requestPath, pending);
    const started = carried ? Date.parse(carried.askedAt) : now();
    const waits = deps.sources.length > 0;
    const deadline = carried?.deadline ? Date.parse(carried.deadline) : waits ? started + timeoutMs : undefined;
    writeApprovalRequest(deps.requestPath, pending, {
      askedAt: new Date(started).toISOString(),
      ...(deadline !== undefined ? { deadline: new Date(deadline).toISOString() } : {}),
    });
    const timedOut = { verdict: 'deny' as const, by: 'timeout' as const, message: `no answer within ${Math.round(timeoutMs / 1000)} s` };
    const settle = (answer: Answer & { by: Decider; callId?: string; argsHash?: string }): ApprovalDecision => {
      const decision: ApprovalDecision = {
        callId: answer.callId ?? pending.callId,
        argsHash: answer.argsHash ?? pending.argsHash,
        verdict: answer.verdict,
        by: answer.by,
        ...(answer.message ? { message: answer.message } : {}),
        ...(answer.remember ? { remember: answer.remember } : {}),
        waitedMs: now() - started,
      };
      rememberInTrustFile(deps, pending, decision);
      clearApprovalFiles(deps.requestPath, deps.answerPath);
      return decision;
    };
    // An answer given while the run was parked, or before this process began to wait.
    let early: ReturnType<typeof readApprovalAnswer>;
    try {
      early = readApprovalAnswer(deps.answerPath);
    } catch (error) {
      // A malformed answer denies this call (the machine's onError); it must not deny the next one too.
      clearApprovalFiles(deps.answerPath);
      throw error;
    }
    if (early) return settle(early);
    // Past its deadline already (the run was killed while it waited, and resumed late): the timeout's answer, deny.
    if (deadline !== undefined && now() >= deadline) return settle(timedOut);
    if (!waits && deps.headless !== 'exit') {
      return settle({ verdict: deps.headless, by: 'policy', message: `answered by the headless policy (approvals.headless: ${deps.headless})` });
    }
    const race = new AbortController();
    const stop = AbortSignal.any([signal, race.signal]);
    try {
      const answers: Promise<Answer & { by: Decider }>[] = [pollAnswerFile(deps.answerPath, deps.pollMs ?? 200, stop)];
      if (waits) {
        answers.push(...deps.sources.map(async (source) => ({ ...(await source.ask(pending, stop)), by: source.by })));
        // Stryker disable next-line ArithmeticOperator: deadline is set whenever a source can answer (waits)
        answers.push(sleep(Math.max(0, (deadline ?? started + timeoutMs) - now()), stop).then(() => timedOut));
      }
      // The losers reject when the race is called off; that is expected, not an unhandled rejection.
      for (const wait of answers) wait.catch(() => undefined);
      return settle(await Promise.race(answers));
    } finally {
      race.abort();
    }
  });
}

function rememberInTrustFile(deps: ApproverDeps, pending: PendingApproval, decision: ApprovalDecision): void {
  if (decision.remember !== 'repository' || !deps.repository || decision.callId !== pending.callId || decision.argsHash !== pending.argsHash) return;
  const memory = toRemember('repository', decision.verdict, callFacts(pending.tool, JSON.stringify(pending.args)), pending.argsHash);
  if (memory) rememberForRepository(deps.repository, memory);
}

/** Resolves with the answer `rein approve` writes; a malformed file rejects (the machine then denies). */
function pollAnswerFile(path: string, everyMs: number, signal: AbortSignal): Promise<Answer & { by: Decider }> {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      try {
        const answer = readApprovalAnswer(path);
        if (answer) {
          clearInterval(timer);
          resolve(answer);
        }
      } catch (error) {
        clearInterval(timer);
        reject(error);
      }
    }, everyMs);
    signal.addEventListener('abort', () => {
      clearInterval(timer);
      reject(signal.reason);
    });
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
