import type { Attributes } from '@opentelemetry/api';
import type { TraceRecord as TraceLine } from 'rein/formats';
import { EVENT, REIN } from './conventions.js';
import { bool, defined, num, record, str } from './line-fields.js';

/** A span event: its name and attributes (the time is the line's). */
export interface LineEvent {
  name: string;
  attributes: Attributes;
}

/** A phase change, with the guard that decided it and the event it happened on. */
export function phaseEvent(line: TraceLine, from: string, to: string): LineEvent {
  return {
    name: EVENT.phase,
    attributes: defined({ [REIN.from]: from || undefined, [REIN.to]: to, [REIN.guard]: str(line.guard), [REIN.event]: str(line.event) }),
  };
}

/**
 * The run-level event of a rein line (gate, stall, budget, rule action, resume,
 * and kinds this version does not know), or null for lines that become spans
 * or attach to one. Texts that can carry the workspace's contents (a nudge
 * naming a file, a rule action's notices) only with `content`.
 */
export function runEvent(line: TraceLine, content: boolean): LineEvent | null {
  switch (line.kind) {
    case 'finish':
      return {
        name: EVENT.gate,
        attributes: defined({
          [REIN.gateAllowed]: bool(line.allowed),
          [REIN.gateWhy]: str(line.why),
          [REIN.gateGuard]: str(line.guard),
          [REIN.gateRefusals]: num(line.refusals),
          [REIN.step]: num(line.step),
        }),
      };
    case 'stall':
      return {
        name: EVENT.stall,
        attributes: defined({
          [REIN.stallRule]: str(line.rule),
          [REIN.stallLimit]: num(line.limit),
          [REIN.stallCount]: num(line.count),
          [REIN.stallFirings]: num(line.firings),
          [REIN.stallMaxNudges]: num(line.maxNudges),
          [REIN.stallReason]: str(line.reason),
          [REIN.step]: num(line.step),
          [REIN.message]: content ? str(line.message) : undefined,
        }),
      };
    case 'budget_warning':
      return {
        name: EVENT.budgetWarning,
        attributes: defined({
          [REIN.budget]: str(line.budget),
          [REIN.limit]: num(line.limit) ?? num(line.limitSeconds),
          [REIN.share]: num(line.share),
          [REIN.used]: num(line.used),
          [REIN.step]: num(line.step),
        }),
      };
    case 'rule_action':
      return {
        name: EVENT.ruleAction,
        attributes: defined({
          [REIN.action]: str(line.action),
          [REIN.problem]: str(line.problem),
          [REIN.step]: num(line.step),
          [REIN.message]: content && Array.isArray(line.notices) ? line.notices.filter((notice) => typeof notice === 'string').join('\n') : undefined,
        }),
      };
    case 'resume':
      return { name: EVENT.resume, attributes: defined({ [REIN.from]: str(line.fromState), [REIN.message]: str(line.note) }) };
    case 'job':
      return {
        name: EVENT.job,
        attributes: defined({
          [REIN.jobId]: str(line.id),
          [REIN.jobState]: str(line.state),
          [REIN.exitCode]: num(line.exitCode),
          [REIN.jobCause]: str(line.cause),
          [REIN.command]: content ? str(line.command) : undefined,
        }),
      };
    case 'secrets_masked':
      return {
        name: EVENT.secretsMasked,
        attributes: defined({
          [REIN.step]: num(line.step),
          [REIN.secretKinds]: Array.isArray(line.findings)
            ? [...new Set(line.findings.map((finding) => String((finding as { kind?: unknown }).kind)))].join(',')
            : undefined,
        }),
      };
    case 'progress': {
      const results = Array.isArray(line.results) ? line.results.map(record) : [];
      return {
        name: EVENT.progress,
        attributes: defined({
          [REIN.step]: num(line.step),
          [REIN.progressTools]: results.map((result) => str(result.name) ?? '').join(','),
          [REIN.progressKinds]: [...new Set(results.flatMap((result) => (Array.isArray(result.kinds) ? result.kinds.map(String) : [])))].join(','),
        }),
      };
    }
    case 'approval_ask':
      return {
        name: EVENT.approvalAsk,
        attributes: defined({
          [REIN.step]: num(line.step),
          [REIN.callId]: str(line.callId),
          [REIN.toolName]: str(line.tool),
          [REIN.approvalReason]: str(line.reason),
        }),
      };
    case 'approval_decision':
      return {
        name: EVENT.approvalDecision,
        attributes: defined({
          [REIN.step]: num(line.step),
          [REIN.callId]: str(line.callId),
          [REIN.toolName]: str(line.tool),
          [REIN.approvalVerdict]: str(line.verdict),
          [REIN.approvalBy]: str(line.by),
          [REIN.approvalWaitedMs]: num(line.waitedMs),
          [REIN.approvalRemember]: str(line.remember),
          [REIN.approvalMismatch]: bool(line.mismatch),
          [REIN.message]: content ? str(line.message) : undefined,
        }),
      };
    case 'hook':
      return {
        name: EVENT.hook,
        attributes: defined({
          [REIN.step]: num(line.step),
          [REIN.hookMoment]: str(line.moment),
          [REIN.hookDecision]: str(line.decision),
          [REIN.hookMs]: num(line.ms),
          [REIN.hookWhere]: str(line.where),
          [REIN.exitCode]: num(line.exitCode),
          [REIN.problem]: str(line.problem),
          [REIN.command]: content ? str(line.command) : undefined,
        }),
      };
    case 'start':
    case 'transition':
    case 'model':
    case 'tool':
    case 'context':
    case 'retry':
    case 'end':
    case 'interrupted':
    case 'crash':
      return null;
    default:
      return { name: `${EVENT.unknownPrefix}${line.kind}`, attributes: defined({ [REIN.step]: num(line.step) }) };
  }
}

/** A `context` line (an elision, a summary, a rejected prompt) as an event on the next `chat` span. */
export function contextEvent(line: TraceLine): LineEvent {
  const before = record(line.before);
  const after = record(line.after);
  return {
    name: EVENT.context,
    attributes: defined({
      [REIN.contextAction]: str(line.action),
      [REIN.step]: num(line.step),
      // A summary reports what it folded and what it wrote; a rejected prompt, its size and the window learnt.
      [REIN.beforeChars]: num(before.chars) ?? num(line.foldedChars),
      [REIN.beforeTokens]: num(before.tokens) ?? num(line.rejectedTokens),
      [REIN.afterChars]: num(after.chars) ?? num(line.summaryChars),
      [REIN.afterTokens]: num(after.tokens) ?? num(line.windowCap),
      [REIN.error]: str(line.error),
    }),
  };
}

/** A `retry` line (a request the endpoint failed, tried again) as an event on the `chat` span it delayed. */
export function retryEvent(line: TraceLine): LineEvent {
  return {
    name: EVENT.retry,
    attributes: defined({ [REIN.retryAttempt]: num(line.attempt), [REIN.retryDelayMs]: num(line.delayMs), [REIN.error]: str(line.error) }),
  };
}
