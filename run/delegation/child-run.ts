import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AnswerSource } from '../../actors/approvals/approver.js';
import { RunAwaitingApproval, RunInterrupted } from '../../lib/errors.js';
import { type EndEvent, isEvent, type TraceRecord } from '../../lib/trace/trace-events.js';
import type { Usage } from '../../lib/usage.js';
import { type ChildEnding, verdictOf } from '../../machines/delegation/charge.js';
import type { HarnessContext, HarnessOutput } from '../../machines/types.js';
import type { BudgetAmounts, BudgetUse, Carved } from '../../rules/agents/carve.js';
import type { Agent } from '../../rules/agents/schema.js';
import { type Rules, rulesSchema } from '../../rules/schema.js';
import type { DelegatedTask } from '../../tools/types.js';
import { readJsonLines } from '../record/jsonl.js';
import { readOwnRunMeta, runFile } from '../record/run-dir.js';
import type { Tracer } from '../record/trace.js';
import { readRecord } from '../record/transcript.js';
import type { RunHandle, RunOptions } from '../start-run.js';
import { childReport, refusalReport } from './child-report.js';
import type { AgentLink, Launch } from './delegation.js';
import { watchChildChanges } from './workspace-changes.js';

/** One child to run: what the port decided for it, and how it reaches its parent. */
interface ChildPlan {
  options: RunOptions;
  trace: Tracer;
  launch: Launch;
  task: DelegatedTask;
  agent: Agent;
  link: AgentLink;
  runDir: string;
  /** A killed parent is being resumed: continue the child from its saved state rather than start it. */
  resume: boolean;
  signal: AbortSignal;
  carve(): Carved;
  rulesFor(caps: BudgetAmounts): Rules;
  modelFor(): RunOptions['model'];
  /** Sends the child's running totals to the parent's machine. */
  charge(totals: { steps: number; usage: Usage; ended?: ChildEnding }): void;
  /** What the parent has been charged for this child so far. */
  charged(): BudgetUse;
  /** Parks the whole run: the child waits for an approval nobody in this process can give (`approvals.headless: exit`). */
  park(what: string): void;
}

/** The report the parent's model reads, and the files the child changed. */
interface ChildResult {
  text: string;
  changed: string[];
}

/**
 * Runs one child to its end (or, after a kill, continues it from its saved state, or reads how it ended), charging the
 * parent as it spends, and reports. A child whose parent has too little left is never started.
 *
 * @example const { text } = await runChild(plan);
 */
export async function runChild(plan: ChildPlan): Promise<ChildResult> {
  const { link } = plan;
  const line = { agent: link.agent, child: link.child, callId: link.callId, depth: link.depth, runDir: plan.runDir };
  const earlier = plan.resume ? earlierRun(plan.runDir) : null;
  if (earlier?.ended) return endedEarlier(plan, earlier.ended, earlier.rules);
  let rules: Rules;
  if (earlier) rules = earlier.rules;
  else {
    const carved = plan.carve();
    if (!carved.ok) {
      plan.trace.log('agent', { ...line, event: 'refused', reason: carved.reason });
      return { text: refusalReport(link.agent, carved.reason), changed: [] };
    }
    rules = plan.rulesFor(carved.caps);
  }
  const caps = capsOf(rules);
  plan.trace.log('agent', { ...line, event: earlier ? 'resume' : 'start', caps });
  const options = childOptions(plan, rules);
  // Before the child's first command: what its commands change is compared with this (kept for a resumed child).
  mkdirSync(plan.runDir, { recursive: true });
  const changes = watchChildChanges({ workspace: options.workspace, runDir: plan.runDir, exclude: rules.snapshots.exclude });
  let handle: RunHandle;
  try {
    handle = await (earlier ? plan.launch.resume(options) : plan.launch.start(options));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    plan.trace.log('agent', { ...line, event: 'end', status: 'crashed', reason });
    return { text: `Agent "${link.agent}" could not start: ${reason}`, changed: [] };
  }
  // Sent when the totals grew (a step, its usage), not on every snapshot: each charge is a transition of the parent.
  let sent = -1;
  const report = () => {
    const totals = totalsOf(handle.actor.getSnapshot().context as HarnessContext);
    if (totals.steps === sent) return;
    sent = totals.steps;
    plan.charge(totals);
  };
  report();
  const subscription = handle.actor.subscribe({ next: report, error: () => undefined });
  const stop = () => handle.interrupt();
  plan.signal.addEventListener('abort', stop, { once: true });
  try {
    const output = await handle.done;
    const context = handle.actor.getSnapshot().context as HarnessContext;
    plan.charge({ ...totalsOf(context), ended: endingOf(output) });
    plan.trace.log('agent', { ...line, event: 'end', status: output.status, steps: output.steps, usage: output.usage, reason: output.reason });
    // Its edits, and what its commands changed: the parent's gate sees both as edits.
    const changed = [...new Set([...(context.facts.editedPaths ?? []), ...changes.changed()])];
    return { text: childReport({ agent: link.agent, caps, output, said: saidIn(plan.runDir), changed }), changed };
  } catch (error) {
    if (error instanceof RunAwaitingApproval) {
      // A headless child parked on an approval parks its parent: the delegate call never ends here, so a resumed
      // parent continues the child (its state saved with the waiting call) once the call is answered.
      plan.trace.log('agent', { ...line, event: 'end', status: 'interrupted', reason: error.message });
      plan.park(`agent "${link.agent}" (${link.child}, in ${plan.runDir}): ${error.waitingFor}`);
      return new Promise<ChildResult>(() => undefined);
    }
    // A child stopped with its parent is saved to resume like an interrupted run.
    const interrupted = error instanceof RunInterrupted;
    const reason = error instanceof Error ? error.message : String(error);
    plan.trace.log('agent', { ...line, event: 'end', status: interrupted ? 'interrupted' : 'crashed', reason });
    const what = interrupted ? 'was interrupted' : 'crashed';
    return { text: `Agent "${link.agent}" ${what}: ${reason}`, changed: [] };
  } finally {
    subscription.unsubscribe();
    plan.signal.removeEventListener('abort', stop);
  }
}

/** The child's run options: the parent's workspace, test command, answer sources and tools registry, its own rules and directory. */
function childOptions(plan: ChildPlan, rules: Rules): RunOptions {
  const { options } = plan;
  const pass = <K extends keyof RunOptions>(key: K) => (options[key] !== undefined ? { [key]: options[key] } : {});
  return {
    workspace: options.workspace,
    task: plan.task.task,
    testCmd: options.testCmd,
    rules,
    model: plan.modelFor(),
    runDir: plan.runDir,
    agentLink: plan.link,
    ...pass('guards'),
    ...pass('actions'),
    ...pass('tools'),
    ...pass('replaceTools'),
    ...pass('secrets'),
    ...(options.answerSources ? { answerSources: options.answerSources.map((source) => namedSource(source, plan.link)) } : {}),
    ...pass('approvalPollMs'),
    ...pass('hookFunctions'),
    ...pass('env'),
    ...pass('fsync'),
    ...pass('saveState'),
    ...pass('agentModels'),
    ...pass('onNotice'),
    ...pass('configPath'),
    // With its fingerprint: a child's page (or resume) loads the rules file as the run started with it, not as changed.
    ...pass('configFingerprint'),
  } as RunOptions;
}

/** What a killed parent left of this child: its rules (its caps in them), and its end if it had one. */
function earlierRun(runDir: string): { rules: Rules; ended: EndEvent | null } | null {
  if (!existsSync(runFile(runDir, 'meta'))) return null;
  const meta = readOwnRunMeta(runDir);
  const trace = readJsonLines<TraceRecord>(runFile(runDir, 'trace')).values;
  const ended = [...trace].reverse().find((entry) => isEvent(entry, 'end')) as EndEvent | undefined;
  return { rules: rulesSchema.parse(meta.rules), ended: ended ?? null };
}

/** A child that had ended before its parent was killed: its report from its trace, charged once more (charges never double). */
function endedEarlier(plan: ChildPlan, end: EndEvent, rules: Rules): ChildResult {
  const steps = end.agents ? end.agents.reduce((sum, agent) => sum + agent.steps, 0) : end.steps;
  const output: HarnessOutput = { status: end.status, steps: end.steps, summary: end.summary, usage: end.usage, reason: end.reason };
  plan.charge({ steps, usage: end.usage, ended: endingOf(output) });
  // What it changed, against the workspace it started from (kept in its run directory).
  const changed = watchChildChanges({ workspace: plan.options.workspace, runDir: plan.runDir, exclude: rules.snapshots.exclude }).changed();
  return { text: childReport({ agent: plan.link.agent, caps: capsOf(rules), output, said: saidIn(plan.runDir), changed }), changed };
}

/** The child's totals as its parent is charged them: its steps and its own children's, its usage (theirs included). */
function totalsOf(context: HarnessContext): { steps: number; usage: Usage } {
  return { steps: context.step + (context.delegated?.steps ?? 0), usage: context.usage };
}

/** Characters of a child's report its parent's guards keep (a refusal quotes them). */
const REPORT_CHARS = 1500;

/** How a child ended, for its parent's guards: its status, its verdict, its report. */
function endingOf(output: HarnessOutput): ChildEnding {
  return { status: output.status, verdict: verdictOf(output.summary), report: output.summary.slice(0, REPORT_CHARS) };
}

function capsOf(rules: Rules): BudgetAmounts {
  const { budgets } = rules;
  return {
    steps: budgets.maxSteps,
    seconds: budgets.maxSeconds,
    ...(budgets.maxTokens !== undefined ? { tokens: budgets.maxTokens } : {}),
    ...(budgets.maxCostUsd !== undefined ? { costUsd: budgets.maxCostUsd } : {}),
  };
}

/** The child's own words, in order: what it found, for a report of a child that stopped before finishing. */
function saidIn(runDir: string): string[] {
  return readRecord(join(runDir, 'record.jsonl')).flatMap((message) =>
    message.role === 'assistant' && typeof message.content === 'string' ? [message.content] : [],
  );
}

/** The parent's answer sources (the terminal, the page), asking about the child's calls with the child named. */
function namedSource(source: AnswerSource, link: AgentLink): AnswerSource {
  return {
    by: source.by,
    ask: (pending, signal) =>
      source.ask({ ...pending, reason: `${pending.reason}; asked by agent "${link.agent}" (a child at depth ${link.depth}, ${link.child})` }, signal),
  };
}
