import type { RecordedRun, RecordedStep } from 'rein/testing';
import { type ActionMap, DEFAULT_ACTION_MAP, mapShell } from '../action-map.js';
import { FormatError, type LineSource } from './errors.js';
import { actionRegexOf, findActions } from './mini-swe-agent-actions.js';
import { normalize } from './observation.js';

/**
 * mini-swe-agent's `.traj.json`, read as mini-swe-agent itself parsed it:
 * `{ info: { exit_status, mini_version, config, … }, messages: [{ role, content, extra }], trajectory_format }`.
 *
 * - 1.x (`mini-swe-agent-1`): each assistant message is one model call; its
 *   action is the one match of the producer's regex for that version
 *   (mini-swe-agent-actions.ts); zero or several matches is a `none` step
 *   (mini-swe-agent answered it with a format error). The next user message
 *   is the observation (`<returncode>N</returncode><output>…`).
 * - 2.x (`mini-swe-agent-1.1`): an assistant message carries its parsed
 *   actions in `extra.actions` (tool-call models may send several); a format
 *   error is a user message with `extra.interrupt_type: "FormatError"` and no
 *   assistant message; observations are `tool` (by `tool_call_id`) or `user`
 *   messages; the run ends with an `exit` message.
 *
 * The finish is the producer's submission (the command whose output began
 * with the submit marker ended the run as `Submitted`), not any command that
 * mentions the marker.
 */

interface Message {
  role?: unknown;
  content?: unknown;
  tool_call_id?: unknown;
  extra?: { actions?: unknown; interrupt_type?: unknown; returncode?: unknown; exit_status?: unknown; model_response?: unknown };
}

interface Trajectory {
  info: { exit_status?: unknown; instance_id?: unknown; mini_version?: unknown; config?: never };
  messages: Message[];
  instance_id?: unknown;
  trajectory_format?: unknown;
}

export function isMiniSweAgent(value: unknown): boolean {
  const record = value as { messages?: unknown; info?: unknown } | null;
  return typeof record === 'object' && record !== null && Array.isArray(record.messages) && typeof record.info === 'object' && record.info !== null;
}

const EXIT_STATUS: Record<string, string> = {
  Submitted: 'submitted',
  LimitsExceeded: 'cost_limit',
  CostLimitExceeded: 'cost_limit',
  StepLimitExceeded: 'step_limit',
  TimeExceeded: 'time_limit',
  ContextWindowExceeded: 'context_limit',
  ContextWindowExceededError: 'context_limit',
  TimeoutError: 'time_limit',
  FormatError: 'format_error',
  RepeatedFormatError: 'format_error',
};

export function miniSweAgentRun(value: unknown, where: LineSource, map: ActionMap = DEFAULT_ACTION_MAP): RecordedRun {
  if (!isMiniSweAgent(value)) throw new FormatError(where, 'not a mini-swe-agent trajectory: needs "info" and a "messages" array');
  const record = value as Trajectory;
  let regex: RegExp;
  try {
    regex = actionRegexOf(record.info, record.trajectory_format);
  } catch (error) {
    throw new FormatError(where, (error as Error).message);
  }
  const status = String(record.info.exit_status ?? '');
  const v2 = record.trajectory_format === 'mini-swe-agent-1.1' || record.messages.some((message) => message.role === 'exit' || message.role === 'tool');
  const steps = v2 ? secondFormatSteps(record.messages, regex, map) : firstFormatSteps(record.messages, { regex, map, submitted: status === 'Submitted' });
  const instance =
    typeof record.instance_id === 'string' ? record.instance_id : typeof record.info.instance_id === 'string' ? record.info.instance_id : undefined;
  return {
    id: instance ?? where.file,
    system: 'mini-swe-agent',
    ...(instance ? { instance } : {}),
    resolved: null,
    ...(status ? { exitStatus: EXIT_STATUS[status] ?? (status.toLowerCase().includes('limit') ? 'cost_limit' : 'error') } : {}),
    steps,
    origin: { file: where.file },
  };
}

function firstFormatSteps(messages: readonly Message[], options: { regex: RegExp; map: ActionMap; submitted: boolean }): RecordedStep[] {
  const steps: RecordedStep[] = [];
  let lastReply = -1;
  messages.forEach((message, index) => {
    if (message.role === 'assistant') lastReply = index;
  });
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const text = textOf(message.content);
    const next = messages[index + 1];
    const output = next?.role === 'user' ? normalize(textOf(next.content)) : '';
    const actions = findActions(options.regex, text);
    if (actions.length !== 1) {
      steps.push({ tool: 'none', args: {}, output, raw: text.slice(0, 120) });
      return;
    }
    // The submission is the last reply's command, answered with the submitted text instead of a return code.
    const submission = options.submitted && index === lastReply && next?.role === 'user' && !output.includes('<returncode>');
    steps.push(submission ? finishStep(actions[0]!, output) : commandStep(actions[0]!, output, exitCodeIn(output), options.map));
  });
  return steps;
}

function secondFormatSteps(messages: readonly Message[], regex: RegExp, map: ActionMap): RecordedStep[] {
  const steps: RecordedStep[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'user' && message.extra?.interrupt_type === 'FormatError') {
      const reply = typeof message.extra.model_response === 'string' ? message.extra.model_response : '';
      steps.push({ tool: 'none', args: {}, output: normalize(textOf(message.content)), raw: reply.slice(0, 120) });
      return;
    }
    if (message.role !== 'assistant') return;
    for (const action of actionsOf(message, regex)) {
      const observation = observationOf(messages, index, action.toolCallId);
      const output = observation ? normalize(textOf(observation.content)) : '';
      // The submission ends the run: an `exit` message (the docs show it as a user message) with exit_status Submitted.
      if (observation?.extra?.exit_status === 'Submitted') steps.push(finishStep(action.command, output));
      else {
        const code = observation?.extra?.returncode;
        steps.push(commandStep(action.command, output, typeof code === 'number' ? code : exitCodeIn(output), map));
      }
    }
  });
  return steps;
}

/** A 2.x reply's actions: what the producer parsed (`extra.actions`), else its text through the regex. */
function actionsOf(message: Message, regex: RegExp): Array<{ command: string; toolCallId?: string }> {
  const parsed = message.extra?.actions;
  if (Array.isArray(parsed))
    return parsed
      .filter((action): action is { command: string; tool_call_id?: unknown } => typeof action?.command === 'string')
      .map((action) => ({ command: action.command, ...(typeof action.tool_call_id === 'string' ? { toolCallId: action.tool_call_id } : {}) }));
  const found = findActions(regex, textOf(message.content));
  return found.length === 1 ? [{ command: found[0]! }] : [];
}

/** The message that answered an action: the `tool` message with its call id, else the message right after the reply. */
function observationOf(messages: readonly Message[], index: number, toolCallId: string | undefined): Message | undefined {
  if (toolCallId) {
    for (let at = index + 1; at < messages.length && messages[at]!.role !== 'assistant'; at++) {
      if (messages[at]!.tool_call_id === toolCallId) return messages[at];
    }
  }
  const next = messages[index + 1];
  return next && next.role !== 'assistant' ? next : undefined;
}

function finishStep(command: string, output: string): RecordedStep {
  return { tool: 'finish', args: { summary: 'submitted' }, output, raw: command.slice(0, 120) };
}

function commandStep(command: string, output: string, exitCode: number | null, map: ActionMap): RecordedStep {
  let mapped = mapShell(command, map);
  // The submit marker in a command that did not end the run (its output did not start with it) is a command like any other.
  if (mapped.tool === 'finish') mapped = { tool: 'run', args: { command: command.trim() } };
  const step: RecordedStep = { ...mapped, output, exitCode, raw: command.slice(0, 120) };
  if (step.tool === 'edit_file') step.edit = { ...(step.edit ?? { applied: true }), applied: exitCode === 0 };
  if ((step.tool === 'read_file' || step.tool === 'grep') && exitCode !== 0 && exitCode !== null) step.ok = step.tool === 'grep' && exitCode === 1;
  return step;
}

function exitCodeIn(output: string): number | null {
  const exit = output.match(/<returncode>(-?\d+)<\/returncode>/);
  return exit ? Number(exit[1]) : null;
}

/** A message's text: a string, or the text parts of a content array. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('');
  return '';
}
