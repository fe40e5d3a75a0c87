import type { Rules } from '../rules/schema.js';

/** Writes progress as a run goes: one rewritten line on a terminal, plain lines otherwise. */
export interface StatusLine {
  onTrace(kind: string, data: Record<string, unknown>): void;
  finish(): void;
}

interface Stream { isTTY?: boolean; columns?: number; write(text: string): boolean }

/**
 * The live status line: phase, step/limit, elapsed/limit, tokens and the last
 * tool, redrawn in place on a TTY, with one line per action above it; on a
 * pipe, only the action lines. Each action line names the step and the phase
 * the model was called in (XState reports a turn's transitions before the
 * notes its actions emit, so the phase is taken when the step starts).
 *
 * @example const status = createStatusLine(process.stderr, rules); startRun({ ..., onTrace: status.onTrace });
 */
export function createStatusLine(stream: Stream, rules: Rules, options: { unsandboxed?: boolean; now?: () => number } = {}): StatusLine {
  const now = options.now ?? Date.now;
  // Said on every redraw, not once: commands running without the sandbox should never be a surprise.
  const warning = options.unsandboxed ? '  [UNSANDBOXED]' : '';
  const started = now();
  const state = { phase: '-', stepPhase: '-', step: 0, tokens: 0, cached: 0, lastTool: '-', drawn: false };
  const tty = Boolean(stream.isTTY);
  const draw = () => {
    const elapsed = Math.round((now() - started) / 1000);
    const line = `[rein] ${state.phase.padEnd(6)} step ${state.step}/${rules.budgets.maxSteps}  ${elapsed}s/${rules.budgets.maxSeconds}s  tokens ${state.tokens} (cached ${state.cached})${warning}  last: ${state.lastTool}`;
    stream.write(`\r\x1b[2K${line.slice(0, (stream.columns || 120) - 1)}`);
    state.drawn = true;
  };
  const say = (text: string) => {
    if (tty && state.drawn) stream.write('\r\x1b[2K');
    stream.write(`${text}\n`);
    if (tty) draw();
  };
  const action = (text: string) => say(`[rein] step ${String(state.step).padEnd(3)} ${state.stepPhase.padEnd(6)} ${text}`);
  return {
    onTrace(kind, data) {
      if (kind === 'transition') state.phase = String(data.to ?? '').split('.')[0] || state.phase;
      else if (kind === 'model') {
        state.step = Number(data.step ?? state.step);
        state.stepPhase = state.phase;
        const usage = data.usage as { promptTokens?: number; completionTokens?: number; cachedTokens?: number } | undefined;
        state.tokens += (usage?.promptTokens ?? 0) + (usage?.completionTokens ?? 0);
        state.cached += usage?.cachedTokens ?? 0;
        if (!Array.isArray(data.tool_calls) || data.tool_calls.length === 0) action('(no tool call)');
      } else if (kind === 'resume') {
        // A resumed run starts mid-step: its first lines may be the tool calls of the step that was cut short.
        state.phase = String(data.fromState ?? '').split('.')[0] || state.phase;
        state.stepPhase = state.phase;
        say(data.fromState === 'start'
          ? '[rein] resumed: the run was stopped before its first step was saved, so it starts over'
          : `[rein] resumed in ${String(data.fromState)} (${String(data.recordLength)} messages in the record)`);
      } else if (kind === 'tool') {
        if (typeof data.step === 'number') state.step = data.step;
        state.lastTool = `${String(data.name)}${data.ok ? '' : ' (failed)'}`;
        action(describeTool(data));
      } else if (kind === 'finish') {
        if (typeof data.step === 'number') state.step = data.step;
        const accepted = data.gate === false ? 'finish → accepted (the verification gate is off)' : 'finish → accepted by the verification gate';
        action(data.allowed ? accepted : `finish → refused: ${typeof data.why === 'string' ? data.why : 'no passing test run after the last edit'}`);
      }
      else if (kind === 'rule_action') say(`[rein] rule action ${String(data.action)}${Array.isArray(data.notices) ? `: "${data.notices.join(' / ')}"` : ''}`);
      else if (kind === 'stall') say(`[rein] stall (${String(data.rule)}): nudged "${String(data.message)}"`);
      else if (kind === 'budget_warning') say(`[rein] warning: 75% of the ${String(data.budget)} budget is used`);
      else if (kind === 'context') say(`[rein] context: ${describeContext(data)}`);
      else if (kind === 'retry') say(`[rein] model call failed, retry ${String(data.attempt)}: ${String(data.error)}`);
      if (tty) draw();
    },
    finish() { if (tty && state.drawn) stream.write('\r\x1b[2K'); },
  };
}

function describeTool(data: Record<string, unknown>): string {
  const args = argsObject(data.args);
  const main = String(args.command ?? args.path ?? args.pattern ?? '').replace(/\s+/g, ' ').slice(0, 70);
  const effect = data.effect as { kind?: string; applied?: boolean; exitCode?: number | null; blocked?: boolean; timedOut?: boolean; interrupted?: boolean; id?: string | null; state?: string | null } | undefined;
  let outcome = data.ok ? '' : ` → ${toolError(data.result)}`;
  if (effect?.kind === 'edit') outcome = effect.applied ? ' → applied' : ' → rejected';
  if (effect?.kind === 'command') outcome = describeCommandEnd(effect);
  if (effect?.kind === 'job' && effect.id) outcome = ` → job ${effect.id} ${effect.state === 'exited' ? `exited ${effect.exitCode}` : effect.state}`;
  return `${String(data.name)}${main ? ` ${main}` : ''}${outcome}`;
}

/** A refused call's arguments are traced as the model sent them (a string); show what it was about all the same. */
function argsObject(args: unknown): Record<string, unknown> {
  if (typeof args === 'string') {
    try {
      const parsed: unknown = JSON.parse(args);
      return parsed && typeof parsed === 'object' ? parsed as Record<string, unknown> : {};
    } catch {
      return {};
    }
  }
  return args && typeof args === 'object' ? args as Record<string, unknown> : {};
}

/** The first line of a failed call's result, so the reason is on the terminal and not only in the trace. */
function toolError(result: unknown): string {
  const first = String(result ?? '').split('\n')[0]!.replace(/^Tool error:\s*/, '').trim();
  if (!first) return 'tool error';
  return `tool error: ${first.length > 90 ? `${first.slice(0, 89)}…` : first}`;
}

function describeCommandEnd(effect: { exitCode?: number | null; blocked?: boolean; timedOut?: boolean; interrupted?: boolean }): string {
  if (effect.blocked) return ' → blocked by policy';
  if (effect.timedOut) return ' → timed out';
  if (effect.interrupted) return ' → interrupted by the stop, not run again';
  return effect.exitCode === null || effect.exitCode === undefined ? ' → did not finish' : ` → exit ${effect.exitCode}`;
}

function describeContext(data: Record<string, unknown>): string {
  const before = data.before as { tokens?: number } | undefined;
  const after = data.after as { tokens?: number } | undefined;
  if (data.action === 'elided' && before && after) return `old tool results elided, ${before.tokens} → ${after.tokens} tokens`;
  if (data.action === 'summarized') return `earlier messages summarized (${String(data.foldedChars)} → ${String(data.summaryChars)} chars)`;
  if (data.action === 'summary_failed') return `summary failed: ${String(data.error)}`;
  if (data.action === 'overflow') return 'the context window is full';
  if (data.action === 'provider_rejected_length') return `the provider rejected the prompt as too long; compacting harder (window now taken as ${String(data.windowCap)} tokens, attempt ${String(data.attempt)})`;
  return String(data.action);
}
