import type { RecordedRun, RecordedStep, RecordedTool } from 'rein/testing';
import { FormatError, type LineSource } from './errors.js';

/**
 * The compact JSONL of ../shared/realtraj (one run a line, each action
 * already mapped onto rein's tools). An output is rebuilt from its first 200
 * characters padded to its length with text derived from the hash of its
 * volatile-masked text, so equal outputs stay equal and different ones differ.
 */

const TOOLS: readonly RecordedTool[] = ['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'none'];

interface CompactStep {
  tool: string;
  args?: Record<string, unknown>;
  out_len?: number;
  out_nhash?: string;
  out_hash?: string;
  out_head?: string;
  exit?: number | null;
  write?: string;
  applied?: boolean;
  ok?: boolean;
  raw?: string;
}

/** Whether a parsed JSON line looks like a compact run (the sniffing of replay/formats/index.ts). */
export function isCompactRun(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Array.isArray((value as { steps?: unknown }).steps) && 'instance' in value;
}

/** One compact run from its parsed line. */
export function compactRun(value: unknown, where: LineSource): RecordedRun {
  if (!isCompactRun(value)) throw new FormatError(where, 'not a compact run: needs "instance" and a "steps" array');
  const line = value as { source?: string; system?: string; model?: string; instance: string; resolved?: unknown; exit_status?: string; steps: unknown[] };
  const steps = line.steps.map((step, index) => compactStep(step, { ...where, detail: `step ${index + 1}` }));
  return {
    id: `${line.source ?? line.system ?? 'run'}/${line.instance}`,
    ...(line.system ? { system: line.system } : {}),
    ...(line.model ? { model: line.model } : {}),
    instance: line.instance,
    resolved: typeof line.resolved === 'boolean' ? line.resolved : null,
    ...(line.exit_status ? { exitStatus: line.exit_status } : {}),
    steps,
    origin: { file: where.file, ...(where.line ? { line: where.line } : {}) },
  };
}

function compactStep(value: unknown, where: LineSource): RecordedStep {
  if (typeof value !== 'object' || value === null) throw new FormatError(where, 'a step must be an object');
  const step = value as CompactStep;
  if (!TOOLS.includes(step.tool as RecordedTool)) throw new FormatError(where, `unknown tool "${String(step.tool)}" (expected one of ${TOOLS.join(', ')})`);
  const tool = step.tool as RecordedTool;
  const recorded: RecordedStep = { tool, args: step.args ?? {}, output: rebuildOutput(step) };
  if (step.exit !== undefined) recorded.exitCode = step.exit;
  if (step.ok === false) recorded.ok = false;
  if (tool === 'edit_file') recorded.edit = { applied: step.applied !== false, ...(step.write ? { kind: step.write } : {}) };
  if (step.raw !== undefined) recorded.raw = step.raw;
  return recorded;
}

/** The head, padded to the recorded length with text derived from the masked hash. */
function rebuildOutput(step: Pick<CompactStep, 'out_head' | 'out_len' | 'out_nhash' | 'out_hash'>): string {
  const head = step.out_head ?? '';
  const length = step.out_len ?? head.length;
  if (length <= head.length) return head;
  const seed = step.out_nhash ?? step.out_hash ?? '';
  const filler = `\n[${seed}]`;
  return head + filler.repeat(Math.ceil((length - head.length) / filler.length)).slice(0, length - head.length);
}
