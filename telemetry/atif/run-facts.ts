import type { TraceRecord } from 'rein/formats';

/** rein's facts about one model step, kept under the ATIF step's `extra.rein`. */
interface StepFacts {
  phase?: string;
  gate: TraceRecord[];
  stalls: TraceRecord[];
  compactions: TraceRecord[];
  progress: TraceRecord[];
  budgetWarnings: TraceRecord[];
  ruleActions: TraceRecord[];
  secretsMasked: TraceRecord[];
  tools: Array<{ id: string; name: string; ok: boolean; ms: number; effect: unknown }>;
  retries: TraceRecord[];
}

const STEP_LISTS = {
  finish: 'gate',
  stall: 'stalls',
  context: 'compactions',
  progress: 'progress',
  budget_warning: 'budgetWarnings',
  rule_action: 'ruleActions',
  secrets_masked: 'secretsMasked',
} as const satisfies Record<string, keyof StepFacts>;

/** A trace line without its bookkeeping fields (`i`, `kind`), as it goes into `extra`. */
function factOf(line: TraceRecord): Record<string, unknown> {
  const { i: _i, kind: _kind, ...rest } = line;
  return rest;
}

function emptyFacts(): StepFacts {
  return { gate: [], stalls: [], compactions: [], progress: [], budgetWarnings: [], ruleActions: [], secretsMasked: [], tools: [], retries: [] };
}

/**
 * Groups the trace's facts by the model step they belong to (the `step`
 * field every step-scoped line carries) and notes the phase each model call
 * was made in: the top-level state the machine was in when the reply came.
 * Retries carry no step: they belong to the call that followed them.
 */
export function collectStepFacts(lines: readonly TraceRecord[]): Map<number, StepFacts> {
  const facts = new Map<number, StepFacts>();
  const of = (step: number) => {
    const known = facts.get(step);
    if (known) return known;
    const entry = emptyFacts();
    facts.set(step, entry);
    return entry;
  };
  let state = '';
  let pendingRetries: TraceRecord[] = [];
  for (const line of lines) {
    if (line.kind === 'transition' && typeof line.to === 'string') state = line.to;
    if (line.kind === 'retry') pendingRetries.push(line);
    const step = typeof line.step === 'number' && Number.isInteger(line.step) ? line.step : null;
    if (step === null) continue;
    if (line.kind === 'model') {
      const entry = of(step);
      const phase = state.split('.')[0];
      if (phase) entry.phase = phase;
      entry.retries.push(...pendingRetries);
      pendingRetries = [];
    } else if (line.kind === 'tool') {
      of(step).tools.push({
        id: String(line.id),
        name: String(line.name),
        ok: line.ok === true,
        ms: typeof line.ms === 'number' ? line.ms : 0,
        effect: line.effect,
      });
    } else if (line.kind in STEP_LISTS) {
      of(step)[STEP_LISTS[line.kind as keyof typeof STEP_LISTS]].push(line);
    }
  }
  return facts;
}

/** The step's facts as plain JSON for `extra.rein`, leaving out what is empty. */
export function stepFactsJson(step: number, facts: StepFacts | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { step };
  if (!facts) return out;
  if (facts.phase) out.phase = facts.phase;
  if (facts.tools.length > 0) out.tools = facts.tools;
  const lists: Array<[string, TraceRecord[]]> = [
    ['gate', facts.gate],
    ['stalls', facts.stalls],
    ['compactions', facts.compactions],
    ['progress', facts.progress],
    ['budget_warnings', facts.budgetWarnings],
    ['rule_actions', facts.ruleActions],
    ['secrets_masked', facts.secretsMasked],
    ['retries', facts.retries],
  ];
  for (const [name, list] of lists) if (list.length > 0) out[name] = list.map(factOf);
  return out;
}

/** The run's own facts for the root's `extra.rein`: where and how it ran, its outcome, and every resume, gate decision, nudge and compaction. */
export function runFacts(lines: readonly TraceRecord[], start: TraceRecord | undefined, discarded: readonly TraceRecord[]): Record<string, unknown> {
  const all = (kind: string) => lines.filter((line) => line.kind === kind).map(factOf);
  const end = lastOf(lines, 'end');
  const crash = lastOf(lines, 'crash');
  const interrupted = lastOf(lines, 'interrupted');
  const outcome = end ? factOf(end) : crash ? { status: 'crashed', error: crash.error } : { status: interrupted ? 'interrupted' : 'unfinished' };
  // A fork (rein fork): the steps up to `step` are the origin's, copied; its resume line names the origin.
  const forkOf = forkPoint(lines);
  return {
    ...(forkOf ? { fork_of: { run_dir: forkOf.runDir, step: forkOf.step } } : {}),
    ...(start
      ? {
          task: start.task,
          test_cmd: start.testCmd,
          endpoint: start.endpoint,
          workspace: start.workspace,
          run_dir: start.runDir,
          sandbox: start.sandbox,
          tools: start.tools,
        }
      : {}),
    outcome,
    resumes: all('resume'),
    interruptions: all('interrupted'),
    gate_decisions: all('finish'),
    stall_nudges: all('stall'),
    compactions: all('context'),
    budget_warnings: all('budget_warning'),
    jobs: all('job'),
    discarded_replies: discarded.map(factOf),
  };
}

/** The last line of a kind. */
export function lastOf(lines: readonly TraceRecord[], kind: string): TraceRecord | undefined {
  for (let index = lines.length - 1; index >= 0; index--) if (lines[index]!.kind === kind) return lines[index];
  return undefined;
}

/**
 * Where a fork (rein fork) branched: its origin, the step, and how many record messages it copied from the origin
 * (the first resume line of its own that names the origin: a fork of a fork also carries its origin's lines, whose
 * resume names the origin's origin). Null for a run that is not a fork.
 */
export function forkPoint(lines: readonly TraceRecord[]): { runDir: string; step: number; recordLength: number | null } | null {
  const named = lines.filter((line) => line.kind === 'resume' && isForkOf(line.forkOf));
  const last = named.at(-1)?.forkOf as { runDir: string; step: number } | undefined;
  if (!last) return null;
  const first = named.find((line) => {
    const fork = line.forkOf as { runDir: string; step: number };
    return fork.runDir === last.runDir && fork.step === last.step;
  })!;
  const length = first.recordLength;
  return { runDir: last.runDir, step: last.step, recordLength: typeof length === 'number' && Number.isInteger(length) && length >= 0 ? length : null };
}

function isForkOf(value: unknown): value is { runDir: string; step: number } {
  const fork = value as { runDir?: unknown; step?: unknown } | null;
  return typeof fork === 'object' && fork !== null && typeof fork.runDir === 'string' && typeof fork.step === 'number';
}
