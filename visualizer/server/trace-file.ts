import { basename } from 'node:path';
import { createHarnessMachine, type HarnessMachine, type HarnessOptions } from 'rein/machines';
import { defaultRules, type Rules, rulesSchema } from 'rein/rules';
import { readJsonLines, TRACE_VERSION } from 'rein/run';
import { type GaugeLimits, type PageNote, TRACE_KINDS } from './page-data.js';

/** A trace as the visualizer needs it: every line that parsed, what did not, and the chart to draw. */
export interface LoadedTrace {
  lines: unknown[];
  notes: PageNote[];
  machine: HarnessMachine;
  rules: Rules;
  /** The run's last start or resume has an end line after it. */
  ended: boolean;
  /** Where a reader following the file goes on (after the last whole line). */
  completeBytes: number;
}

/**
 * Reads a trace without ever failing on its content: a cut last line and
 * corrupt lines become notes, unknown kinds are kept (the page shows them
 * raw), and the chart comes from the rules in the start line, or the
 * default rules when they are missing or do not fit this rein.
 *
 * @example const trace = loadTrace('.rein/runs/abc/trace.jsonl'); trace.notes.forEach((note) => console.log(note.text));
 */
export function loadTrace(path: string, extensions: HarnessOptions = {}): LoadedTrace {
  const parsed = readJsonLines<unknown>(path);
  const notes: PageNote[] = [];
  const lastBad = parsed.bad.at(-1);
  const ended = hasEnded(parsed.values);
  for (const bad of parsed.bad) {
    const cut = parsed.truncatedTail && bad === lastBad;
    const why = ended ? 'the run was killed mid-write?' : 'the run was killed mid-write, or is still writing it';
    notes.push({
      level: 'warn',
      text: cut ? `Line ${bad.line} is incomplete (${why}); it is left out.` : `Line ${bad.line} is not valid JSON (${bad.error}); it is left out.`,
    });
  }
  const start = parsed.values.find((line) => kindOf(line) === 'start') as Record<string, unknown> | undefined;
  const chart = machineForStart(start, extensions);
  notes.push(...chart.notes, ...versionNotes(start, parsed.values));
  if (parsed.values.length === 0) notes.push({ level: 'warn', text: `${basename(path)} holds no trace lines.` });
  return { lines: parsed.values, notes, machine: chart.machine, rules: chart.rules, ended, completeBytes: parsed.completeBytes };
}

/**
 * True when the last start or resume is followed by a line that stops the
 * run (its end, a Ctrl+C, a crash): nothing more comes until a resume, which
 * writes on after it.
 */
function hasEnded(lines: unknown[]): boolean {
  for (let at = lines.length - 1; at >= 0; at--) {
    const kind = kindOf(lines[at]);
    if (kind === 'end' || kind === 'interrupted' || kind === 'crash') return true;
    if (kind === 'start' || kind === 'resume') return false;
  }
  return false;
}

/** The machine the run used, rebuilt from the start line's rules; the default machine (and a note saying so) otherwise. */
function machineForStart(
  start: Record<string, unknown> | undefined,
  extensions: HarnessOptions = {},
): { machine: HarnessMachine; rules: Rules; notes: PageNote[] } {
  const fallback = (why: string) => ({
    machine: createHarnessMachine(defaultRules()),
    rules: defaultRules(),
    notes: [{ level: 'warn' as const, text: `${why}: the chart is drawn from the default rules and may differ from the run's.` }],
  });
  if (!start) return fallback('The trace has no start line');
  if (start.rules === undefined) return fallback('The start line carries no rules (an older trace)');
  const rules = rulesSchema.safeParse(start.rules);
  if (!rules.success)
    return fallback(
      `The start line's rules do not parse with this rein (${rules.error.issues[0]?.path.join('.') || 'rules'}: ${rules.error.issues[0]?.message ?? 'invalid'})`,
    );
  try {
    return { machine: createHarnessMachine(rules.data, extensions), rules: rules.data, notes: [] };
  } catch (error) {
    return fallback(`The start line's rules cannot be built here (${(error as Error).message.split('\n')[0]})`);
  }
}

function versionNotes(start: Record<string, unknown> | undefined, lines: unknown[]): PageNote[] {
  const notes: PageNote[] = [];
  if (start && start.version !== TRACE_VERSION)
    notes.push({ level: 'info', text: `Trace format version ${String(start.version ?? 'unknown')} (this rein writes ${TRACE_VERSION}).` });
  const known = new Set<string>(TRACE_KINDS);
  const unknown = new Map<string, number>();
  for (const line of lines) {
    const kind = kindOf(line) ?? '(no kind)';
    if (!known.has(kind)) unknown.set(kind, (unknown.get(kind) ?? 0) + 1);
  }
  if (unknown.size > 0) {
    const list = [...unknown].map(([kind, count]) => `${kind} ×${count}`).join(', ');
    notes.push({ level: 'info', text: `Events this version does not know are shown raw: ${list}.` });
  }
  return notes;
}

function kindOf(line: unknown): string | undefined {
  const kind = line !== null && typeof line === 'object' ? (line as { kind?: unknown }).kind : undefined;
  return typeof kind === 'string' ? kind : undefined;
}

/** The budget figures the gauges need, from the effective rules. */
export function gaugeLimits(rules: Rules): GaugeLimits {
  return {
    maxSteps: rules.budgets.maxSteps,
    stepWarnAt: rules.budgets.stepWarnAt ?? rules.budgets.warnAt,
    maxSeconds: rules.budgets.maxSeconds,
    warnAt: rules.budgets.warnAt,
    windowTokens: rules.context.windowTokens,
    soft: rules.context.soft,
    hard: rules.context.hard,
    maxTokens: rules.budgets.maxTokens ?? null,
    maxCostUsd: rules.budgets.maxCostUsd ?? null,
  };
}
