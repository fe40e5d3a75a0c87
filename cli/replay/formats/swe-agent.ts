import type { RecordedRun, RecordedStep } from 'rein/testing';
import { type ActionMap, DEFAULT_ACTION_MAP, mapShell } from '../action-map.js';
import { FormatError, type LineSource } from './errors.js';
import { inferredExit, normalize } from './observation.js';

/**
 * SWE-agent's `.traj`: `{ trajectory: [{ action, observation, thought, … }], info: { exit_status, submission, … }, environment }`,
 * read as SWE-agent wrote it (sweagent/agent/agents.py). Each entry is one
 * model call, with two exceptions SWE-agent itself makes: a format error it
 * asked again for is an entry with an empty action (a `none` step), and an
 * autosubmission after an error (`Exited (autosubmitted)`) is an entry no
 * model call made (left out). `str_replace_editor view FILE` is a read
 * (`view DIR` lists it: `run ls -R`), its `str_replace`/`create`/`insert`/
 * `undo_edit` are edits, anything else is a shell command mapped by the shell
 * table. `submit` is the finish only when it submitted: with the
 * review_on_submit_m tools the first `submit` only shows a review checklist,
 * which is a command like any other. SWE-agent records no exit code, so one
 * is inferred from the output.
 */

export function isSweAgent(value: unknown): boolean {
  const record = value as { trajectory?: unknown } | null;
  return typeof record === 'object' && record !== null && Array.isArray(record.trajectory);
}

interface Entry {
  action?: unknown;
  observation?: unknown;
}

export function sweAgentRun(value: unknown, where: LineSource, map: ActionMap = DEFAULT_ACTION_MAP): RecordedRun {
  if (!isSweAgent(value)) throw new FormatError(where, 'not a SWE-agent trajectory: needs a "trajectory" array');
  const record = value as { trajectory: Entry[]; info?: { exit_status?: unknown; submission?: unknown }; environment?: unknown };
  record.trajectory.forEach((entry, index) => {
    if (typeof entry?.action !== 'string') throw new FormatError({ ...where, detail: `trajectory[${index}]` }, 'an entry needs an "action" string');
  });
  const status = String(record.info?.exit_status ?? '');
  const entries = record.trajectory.filter((entry) => !isAutosubmission(entry));
  const submitted = submissionIndex(entries, status, record.info?.submission);
  const steps = entries.map((entry, index) => {
    const output = normalize(typeof entry.observation === 'string' ? entry.observation : '');
    const action = entry.action as string;
    // A submit that did not submit (a review stage) showed the model a message, as a command would.
    if (isSubmit(action) && index !== submitted)
      return { tool: 'run' as const, args: { command: action.trim() }, output, exitCode: 0, raw: action.slice(0, 120) };
    return sweStep(action, output, map);
  });
  const environment = typeof record.environment === 'string' && INSTANCE.test(record.environment) ? record.environment : undefined;
  const instance = environment ?? where.file.match(/([\w.-]+__[\w.-]+?-\d+)/)?.[1];
  return {
    id: instance ?? where.file,
    system: 'SWE-agent',
    ...(instance ? { instance } : {}),
    resolved: null,
    ...(status ? { exitStatus: exitStatusOf(status) } : {}),
    steps,
    origin: { file: where.file },
  };
}

/** A SWE-bench instance id, as SWE-agent names its environment after it. */
const INSTANCE = /^[\w.-]+__[\w.-]+-\d+$/;

const isSubmit = (action: string) => action.trim() === 'submit' || action.startsWith('submit ');

/** The entry SWE-agent appends when it submits for the model after an error: no model call made it. */
function isAutosubmission(entry: Entry): boolean {
  return (
    typeof entry.action === 'string' &&
    entry.action.trim() === '' &&
    typeof entry.observation === 'string' &&
    entry.observation.startsWith('Exited (autosubmitted)')
  );
}

/**
 * Which `submit` submitted: the one whose observation is the submitted patch (SWE-agent puts it there), else the last
 * one of a run that ended submitted; -1 when none did.
 */
function submissionIndex(entries: readonly Entry[], status: string, submission: unknown): number {
  const submits = entries.flatMap((entry, index) => (isSubmit(String(entry.action)) ? [index] : []));
  const patch = typeof submission === 'string' ? submission.trim() : '';
  const byPatch = submits.find((index) => patch !== '' && String(entries[index]!.observation ?? '').trim() === patch);
  if (byPatch !== undefined) return byPatch;
  return status.startsWith('submitted') && submits.length > 0 ? submits.at(-1)! : -1;
}

function exitStatusOf(status: string): string {
  if (status.startsWith('submitted')) return status.includes('cost') ? 'cost_limit' : status.includes('context') ? 'context_limit' : 'submitted';
  if (status.includes('cost')) return 'cost_limit';
  if (status.includes('context')) return 'context_limit';
  return status.includes('format') ? 'format_error' : 'error';
}

function sweStep(action: string, output: string, map: ActionMap): RecordedStep {
  const raw = action.slice(0, 120);
  const editor = action.match(/^str_replace_editor\s+(\w+)\s+(\S+)([\s\S]*)$/);
  if (isSubmit(action)) return { tool: 'finish', args: { summary: 'submitted' }, output, raw };
  if (!editor) {
    if (action.trim() === '') return { tool: 'none', args: {}, output, raw };
    return { ...mapShell(action, map), output, exitCode: inferredExit(output), raw };
  }
  const [, command, path, rest = ''] = editor;
  const failed = /^(?:ERROR|Error|No replacement was performed|The path .* does not exist)/m.test(output);
  switch (command) {
    case 'view': {
      if (/^Here's the files and directories/.test(output)) return { tool: 'run', args: { command: `ls -R ${path}` }, output, exitCode: failed ? 1 : 0, raw };
      const range = rest.match(/--view_range\s+\[?\s*(\d+)/);
      return { tool: 'read_file', args: { path, ...(range ? { start: Number(range[1]) } : {}) }, output, ...(failed ? { ok: false } : {}), raw };
    }
    case 'create':
      return { tool: 'edit_file', args: { path, old: '', new: quoted(rest, 'file_text') }, output, edit: { applied: !failed, kind: 'create' }, raw };
    case 'str_replace':
      return {
        tool: 'edit_file',
        args: { path, old: quoted(rest, 'old_str'), new: quoted(rest, 'new_str') },
        output,
        edit: { applied: !failed, kind: 'replace' },
        raw,
      };
    case 'insert':
      return {
        tool: 'edit_file',
        args: { path, old: `@insert:${rest.match(/--insert_line\s+(\d+)/)?.[1] ?? '?'}`, new: quoted(rest, 'new_str') },
        output,
        edit: { applied: !failed, kind: 'insert' },
        raw,
      };
    case 'undo_edit':
      return { tool: 'edit_file', args: { path, old: '@undo', new: '' }, output, edit: { applied: !failed, kind: 'undo' }, raw };
    default:
      return { tool: 'run', args: { command: action }, output, exitCode: inferredExit(output), raw, unmapped: `str_replace_editor ${command}` };
  }
}

/** The value of `--name '…'` in an editor command line (up to the next ` --flag '` or the end). */
function quoted(rest: string, name: string): string {
  const match = rest.match(new RegExp(`--${name}\\s+'([\\s\\S]*?)'(?=\\s+--\\w+\\s|\\s*$)`));
  return match?.[1] ?? '';
}
