import type { RecordedRun, RecordedStep } from 'rein/testing';
import { type ActionMap, DEFAULT_ACTION_MAP, mapShell } from '../action-map.js';
import { FormatError, type LineSource } from './errors.js';
import { inferredExit, normalize } from './observation.js';
import { toolCallStep } from './tool-calls.js';

/**
 * OpenHands' event stream (V0, openhands/events/serialization): each event is
 * an action (`action`, `args`) or an observation (`observation`, `content`,
 * `extras`, `cause` = the id of the action it answers), with a `source`
 * (`agent`, `user`, `environment`). Read from an evaluation's `output.jsonl`
 * (one `{ instance_id, history, error, test_result, … }` a line, `history`
 * as events or as the older `[action, observation]` pairs), a trajectory
 * export (`{ trajectory: [...] }`) or a bare list of events.
 *
 * Each model call that acted is a step: the agent's actions other than its
 * system prompt and the harness's own (`recall`, `condensation`, state
 * changes), each paired with the observation that names it as cause. A reply
 * with no tool call (an agent `message`) and a malformed tool call (an
 * `error` observation from the agent that answers no action) are `none`
 * steps, as OpenHands answers both without running anything.
 */

interface OpenHandsEvent {
  id?: unknown;
  source?: unknown;
  action?: unknown;
  observation?: unknown;
  args?: Record<string, unknown>;
  content?: unknown;
  extras?: { metadata?: { exit_code?: unknown }; command?: unknown };
  cause?: unknown;
  message?: unknown;
}

/** Agent actions that no model call chose: the system prompt, memory recall, condensation, state bookkeeping. */
const NOT_MODEL_ACTIONS = new Set([
  'system',
  'recall',
  'condensation',
  'condensation_request',
  'change_agent_state',
  'null',
  'start',
  'pause',
  'resume',
  'stop',
]);

const isEvent = (value: unknown): value is OpenHandsEvent =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && ('action' in value || 'observation' in value) && 'source' in value;

/** An output.jsonl line: an instance and its history. */
export function isOpenHandsOutput(value: unknown): boolean {
  const record = value as { instance_id?: unknown; history?: unknown } | null;
  return typeof record === 'object' && record !== null && typeof record.instance_id === 'string' && Array.isArray(record.history);
}

/** A trajectory export or a bare list of events. */
export function isOpenHandsEvents(value: unknown): boolean {
  const list = Array.isArray(value) ? value : (value as { trajectory?: unknown } | null)?.trajectory;
  return Array.isArray(list) && list.length > 0 && list.every((event) => isEvent(event) || isPair(event));
}

const isPair = (value: unknown) => Array.isArray(value) && value.length === 2 && isEvent(value[0]) && isEvent(value[1]);

export function openHandsRun(value: unknown, where: LineSource, map: ActionMap = DEFAULT_ACTION_MAP): RecordedRun {
  const output = isOpenHandsOutput(value) ? (value as { instance_id: string; history: unknown[]; error?: unknown; test_result?: unknown }) : null;
  const list = output ? output.history : Array.isArray(value) ? value : (value as { trajectory?: unknown[] }).trajectory;
  if (!Array.isArray(list)) throw new FormatError(where, 'not an OpenHands event log: needs a list of events (or an output.jsonl line with "history")');
  const events = list.flatMap((entry) => (isPair(entry) ? (entry as OpenHandsEvent[]) : [entry as OpenHandsEvent]));
  const steps = stepsOf(events, where, map);
  const error = typeof output?.error === 'string' ? output.error : '';
  const finished = events.some((event) => event.source === 'agent' && event.action === 'finish');
  const resolved = (output?.test_result as { report?: { resolved?: unknown } } | undefined)?.report?.resolved;
  return {
    id: output?.instance_id ?? where.file,
    system: 'OpenHands',
    ...(output ? { instance: output.instance_id } : {}),
    resolved: typeof resolved === 'boolean' ? resolved : null,
    exitStatus: /maximum iteration/i.test(error)
      ? 'step_limit'
      : /budget|cost/i.test(error)
        ? 'cost_limit'
        : error
          ? 'error'
          : finished
            ? 'submitted'
            : 'error',
    steps,
    origin: { file: where.file, ...(where.line ? { line: where.line } : {}) },
  };
}

function stepsOf(events: readonly OpenHandsEvent[], where: LineSource, map: ActionMap): RecordedStep[] {
  const answers = new Map<unknown, OpenHandsEvent>();
  for (const event of events) if (event.observation !== undefined && event.cause !== undefined && event.cause !== null) answers.set(event.cause, event);
  const steps: RecordedStep[] = [];
  events.forEach((event, index) => {
    if (event.source !== 'agent') return;
    if (typeof event.action === 'string') {
      if (NOT_MODEL_ACTIONS.has(event.action)) return;
      const answer = event.id !== undefined ? answers.get(event.id) : undefined;
      steps.push(actionStep(event, answer, map));
    } else if (event.observation === 'error' && (event.cause === undefined || event.cause === null)) {
      steps.push({ tool: 'none', args: {}, output: normalize(String(event.content ?? '')), raw: String(event.content ?? '').slice(0, 120) });
    } else if (event.observation === undefined) {
      throw new FormatError({ ...where, detail: `event ${index}` }, 'an event needs an "action" or an "observation"');
    }
  });
  return steps;
}

function actionStep(event: OpenHandsEvent, answer: OpenHandsEvent | undefined, map: ActionMap): RecordedStep {
  const args = event.args ?? {};
  const output = normalize(typeof answer?.content === 'string' ? answer.content : '');
  const failed = answer?.observation === 'error' || /^ERROR:/.test(output);
  const raw = `${String(event.action)} ${JSON.stringify(args)}`.slice(0, 120);
  switch (event.action) {
    case 'run': {
      const command = String(args.command ?? '');
      const code = answer?.extras?.metadata?.exit_code;
      return { ...mapShell(command, map), output, exitCode: typeof code === 'number' ? code : inferredExit(output), raw: command.slice(0, 120) };
    }
    case 'read':
      return {
        tool: 'read_file',
        args: { path: String(args.path ?? ''), ...(typeof args.start === 'number' && args.start > 0 ? { start: args.start } : {}) },
        output,
        ...(failed ? { ok: false } : {}),
        raw,
      };
    case 'edit':
    case 'write': {
      // Older logs (impl_source oh_aci) keep the editor's command only in the code they ran.
      const command = args.command || /'command': '(\w+)'/.exec(String(args.translated_ipython_code ?? ''))?.[1] || 'edit';
      const kind = event.action === 'write' ? 'create' : String(command);
      const created = kind === 'create';
      return {
        tool: 'edit_file',
        args: {
          path: String(args.path ?? ''),
          old: created ? '' : String(args.old_str ?? ''),
          new: String(args.new_str ?? args.file_text ?? args.content ?? ''),
        },
        output,
        edit: { applied: !failed, kind: kind === 'str_replace' ? 'replace' : kind === 'undo_edit' ? 'undo' : kind },
        raw,
      };
    }
    case 'finish':
      return { tool: 'finish', args: { summary: String(args.final_thought ?? args.outputs ?? 'finished') }, output, raw };
    case 'message':
      // A reply without a tool call: OpenHands asks the model to go on.
      return { tool: 'none', args: {}, output, raw: String(args.content ?? event.message ?? '').slice(0, 120) };
    default:
      // think, run_ipython, browse, call_tool_mcp, delegate…: through the tool table, replayed as run and counted when it has no entry.
      return toolCallStep(String(event.action), args, output, map);
  }
}
