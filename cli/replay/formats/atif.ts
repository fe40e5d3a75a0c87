import type { RecordedRun, RecordedStep } from 'rein/testing';
import { type ActionMap, DEFAULT_ACTION_MAP } from '../action-map.js';
import { FormatError, type LineSource } from './errors.js';
import { toolCallStep } from './tool-calls.js';

/**
 * ATIF (Harbor's Agent Trajectory Interchange Format, `trajectory.json`):
 * `{ schema_version: "ATIF-v…", agent, steps: [{ step_id, source, message, tool_calls, observation: { results } }] }`.
 * Each agent step's tool calls, in order, with the observation result whose
 * `source_call_id` names each; an agent step without tool calls is a `none`
 * step. Every version Harbor reads (ATIF-v1.0 to v1.7; messages and results
 * may be lists of text and image parts since v1.6). A reader of the fields the
 * replay needs, not a validator: the full model is telemetry/atif/atif-schema.ts.
 */

interface AtifStep {
  source?: unknown;
  message?: unknown;
  tool_calls?: Array<{ tool_call_id?: unknown; function_name?: unknown; arguments?: unknown }>;
  observation?: { results?: Array<{ source_call_id?: unknown; content?: unknown }> | null } | null;
}

export function isAtif(value: unknown): boolean {
  const record = value as { schema_version?: unknown; steps?: unknown } | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    typeof record.schema_version === 'string' &&
    record.schema_version.startsWith('ATIF') &&
    Array.isArray(record.steps)
  );
}

export function atifRun(value: unknown, where: LineSource, map: ActionMap = DEFAULT_ACTION_MAP): RecordedRun {
  if (!isAtif(value)) throw new FormatError(where, 'not an ATIF trajectory: needs "schema_version": "ATIF-…" and a "steps" array');
  const record = value as {
    session_id?: unknown;
    agent?: { name?: unknown; model_name?: unknown };
    steps: AtifStep[];
    extra?: { resolved?: unknown; instance?: unknown };
  };
  const steps: RecordedStep[] = [];
  record.steps.forEach((step, index) => {
    if (step?.source !== 'agent') return;
    const calls = step.tool_calls ?? [];

    if (!Array.isArray(calls)) throw new FormatError({ ...where, detail: `steps[${index}]` }, '"tool_calls" must be an array');
    if (calls.length === 0) {
      steps.push({ tool: 'none', args: {}, output: '', raw: textOf(step.message).slice(0, 120) });
      return;
    }
    const results = step.observation?.results ?? [];
    for (const call of calls) {
      if (typeof call?.function_name !== 'string') throw new FormatError({ ...where, detail: `steps[${index}]` }, 'a tool call needs a "function_name"');
      const result = results.find((entry) => entry.source_call_id === call.tool_call_id) ?? (calls.length === 1 ? results[0] : undefined);
      const args = typeof call.arguments === 'object' && call.arguments !== null ? (call.arguments as Record<string, unknown>) : {};
      steps.push(toolCallStep(call.function_name, args, textOf(result?.content), map));
    }
  });
  const instance = typeof record.extra?.instance === 'string' ? record.extra.instance : undefined;
  return {
    id: instance ?? (typeof record.session_id === 'string' ? record.session_id : where.file),
    ...(typeof record.agent?.name === 'string' ? { system: record.agent.name } : {}),
    ...(typeof record.agent?.model_name === 'string' ? { model: record.agent.model_name } : {}),
    ...(instance ? { instance } : {}),
    resolved: typeof record.extra?.resolved === 'boolean' ? record.extra.resolved : null,
    steps,
    origin: { file: where.file },
  };
}

/** A message or result's text: a string, or the text parts of a content-part list (v1.6); images add nothing. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => ((part as { type?: unknown; text?: unknown })?.type === 'text' ? String((part as { text?: unknown }).text ?? '') : ''))
    .join('\n');
}
