import type { RecordedRun, RecordedStep } from 'rein/testing';
import { type ActionMap, DEFAULT_ACTION_MAP, mapShell } from '../action-map.js';
import { FormatError, type LineSource } from './errors.js';
import { normalize } from './observation.js';

/**
 * mini-swe-agent's `.traj.json`: `{ info: { exit_status, … }, messages: [{ role, content }] }`.
 * Each assistant message should hold exactly one ```bash block; the next
 * user message is its observation (`<returncode>N</returncode><output>…`).
 * A reply that is not exactly one block is a `none` step (mini-swe-agent
 * answers it with a format error).
 */

interface Message {
  role?: unknown;
  content?: unknown;
}

export function isMiniSweAgent(value: unknown): boolean {
  const record = value as { messages?: unknown; info?: unknown } | null;
  return typeof record === 'object' && record !== null && Array.isArray(record.messages) && typeof record.info === 'object';
}

const EXIT_STATUS: Record<string, string> = {
  Submitted: 'submitted',
  LimitsExceeded: 'cost_limit',
  CostLimitExceeded: 'cost_limit',
  StepLimitExceeded: 'step_limit',
  ContextWindowExceeded: 'context_limit',
  TimeoutError: 'time_limit',
  FormatError: 'format_error',
};

export function miniSweAgentRun(value: unknown, where: LineSource, map: ActionMap = DEFAULT_ACTION_MAP): RecordedRun {
  if (!isMiniSweAgent(value)) throw new FormatError(where, 'not a mini-swe-agent trajectory: needs "info" and a "messages" array');
  const record = value as { info: { exit_status?: unknown; instance_id?: unknown }; messages: Message[]; instance_id?: unknown };
  const steps: RecordedStep[] = [];
  record.messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const text = textOf(message.content);
    const next = record.messages[index + 1];
    const output = next && next.role === 'user' ? normalize(textOf(next.content)) : '';
    const blocks = [...text.matchAll(/```(?:bash|sh)?\s*\n([\s\S]*?)\n```/g)].map((match) => match[1] ?? '');
    if (blocks.length !== 1) {
      steps.push({ tool: 'none', args: {}, output, raw: text.slice(0, 120) });
      return;
    }
    const command = blocks[0]!.trim();
    const exit = output.match(/<returncode>(-?\d+)<\/returncode>/);
    const exitCode = exit ? Number(exit[1]) : null;
    const mapped = mapShell(command, map);
    const step: RecordedStep = { ...mapped, output, exitCode, raw: command.slice(0, 120) };
    if (step.tool === 'edit_file') step.edit = { ...(step.edit ?? { applied: true }), applied: exitCode === 0 };
    if ((step.tool === 'read_file' || step.tool === 'grep') && exitCode !== 0 && exitCode !== null) step.ok = step.tool === 'grep' && exitCode === 1;
    steps.push(step);
  });
  const status = String(record.info.exit_status ?? '');
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

/** A message's text: a string, or the text parts of a content array. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('');
  return '';
}
