import { type EffectReaders, isEffectKind, readEffect, type ToolEvent } from 'rein/formats';
import type { RecordedRun, RecordedStep, RecordedTool } from 'rein/testing';
import { FormatError } from './errors.js';

/**
 * rein's own trace.jsonl: each `tool` line is a recorded action with its
 * effect (rein's tools need no mapping); a `model` line without tool calls is
 * a `none` step. Trace results are cut to 2,000 characters (head and tail),
 * which keeps equal results equal.
 */

const KNOWN: readonly string[] = ['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish'];

export const isTraceLine = (value: unknown) => typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';

export function reinTraceRun(lines: ReadonlyArray<{ value: unknown; line: number }>, file: string): RecordedRun {
  const steps: RecordedStep[] = [];
  let task: string | undefined;
  let model: string | undefined;
  let testCmd: string | undefined;
  let status: string | undefined;
  for (const { value, line } of lines) {
    if (!isTraceLine(value)) throw new FormatError({ file, line }, 'not a trace line: needs a "kind"');
    const event = value as { kind: string; [key: string]: unknown };
    if (event.kind === 'start') {
      task = String(event.task ?? '');
      model = String(event.model ?? '');
      testCmd = String(event.testCmd ?? '');
    } else if (event.kind === 'model' && Array.isArray(event.tool_calls) && event.tool_calls.length === 0) {
      steps.push({ tool: 'none', args: {}, output: '', raw: String(event.content ?? '').slice(0, 120) });
    } else if (event.kind === 'tool') {
      steps.push(stepOf(event as unknown as ToolEvent));
    } else if (event.kind === 'end') {
      status = String(event.status ?? '');
    }
  }
  return {
    id: file,
    system: 'rein',
    ...(model ? { model } : {}),
    ...(task ? { instance: task.slice(0, 60) } : {}),
    resolved: status === undefined ? null : status === 'done',
    ...(status ? { exitStatus: status === 'done' ? 'submitted' : status } : {}),
    ...(testCmd ? { testCmd } : {}),
    steps,
    origin: { file },
  };
}

function stepOf(event: ToolEvent): RecordedStep {
  const known = KNOWN.includes(event.name);
  const tool = (known ? event.name : 'run') as RecordedTool;
  const args = (typeof event.args === 'object' && event.args !== null ? event.args : {}) as Record<string, unknown>;
  const step: RecordedStep = { tool, args, output: event.result ?? '', ok: event.ok };
  if (!known) step.unmapped = event.name;
  // A trace from another rein may hold a kind this one does not know: it adds nothing.
  return event.effect && isEffectKind(event.effect.kind) ? { ...step, ...readEffect(event.effect, RECORDED) } : step;
}

const nothing = () => ({});

// What a replay needs from each kind of effect (a new kind fails tsc here until it says).
const RECORDED: EffectReaders<Partial<RecordedStep>> = {
  command: (run) => ({ exitCode: run.exitCode }),
  edit: (edit) => ({ edit: { applied: edit.applied, ...(edit.before ? { before: edit.before } : {}), ...(edit.after ? { after: edit.after } : {}) } }),
  todo: (todo) => ({ todo: todo.items }),
  read: nothing,
  search: nothing,
  job: nothing,
  finish: nothing,
  mcp: nothing,
  none: nothing,
};
