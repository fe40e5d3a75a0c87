import { type ContextEvent, type ResumeEvent, readEffect, type ToolEvent, type TraceLine } from 'rein/formats';
import { indentedLines, stripControl } from 'rein/lib';
import type { Rules } from 'rein/rules';

/** Where a resumed run goes on from, and where it had stopped when that was past the last saved step. */
function describeResume(line: ResumeEvent): string {
  if (line.fromState === 'start') return '[rein] resumed: the run was stopped before its first step was saved, so it starts over';
  const prompted = line.toolCalling ? '; tools still described in the prompt, calls read from text' : '';
  if (!line.stoppedIn) return `[rein] resumed in ${line.fromState} (${line.recordLength} messages in the record${prompted})`;
  const phase = line.stoppedIn.split('.')[0];
  return `[rein] resumed in ${phase}: it stopped in ${line.stoppedIn}, and goes on from the step saved at ${line.fromState}, whose tool calls are not run again (${line.recordLength} messages in the record${prompted})`;
}

/** Writes progress as a run goes: one rewritten line on a terminal, plain lines otherwise. */
interface StatusLine {
  onTrace(line: TraceLine): void;
  finish(): void;
}

interface Stream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): boolean;
  /** Writes rein's own redraw sequences past the output filter (cli/safe-io.ts); plain `write` without it. */
  raw?(text: string): boolean;
}

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
  const state = { phase: '-', stepPhase: '-', step: 0, tokens: 0, cached: 0, lastTool: '-', drawn: false, recoveredShapes: new Set<string>() };
  const tty = Boolean(stream.isTTY);
  const raw = (text: string) => (stream.raw ? stream.raw(text) : stream.write(text));
  const draw = () => {
    const elapsed = Math.round((now() - started) / 1000);
    const line = `[rein] ${state.phase.padEnd(6)} step ${state.step}/${rules.budgets.maxSteps}  ${elapsed}s/${rules.budgets.maxSeconds}s  tokens ${state.tokens} (cached ${state.cached})${warning}  last: ${state.lastTool}`;
    raw(
      `\r\x1b[2K${stripControl(line)
        .replace(/\n/g, ' ')
        .slice(0, (stream.columns || 120) - 1)}`,
    );
    state.drawn = true;
  };
  const say = (text: string) => {
    if (tty && state.drawn) raw('\r\x1b[2K');
    // What the model wrote (arguments, reasons, nudges) reaches the terminal as text only, on lines of its own.
    stream.write(`${indentedLines(text)}\n`);
    if (tty) draw();
  };
  const action = (text: string) => say(`[rein] step ${String(state.step).padEnd(3)} ${state.stepPhase.padEnd(6)} ${text}`);
  return {
    onTrace(line) {
      switch (line.kind) {
        case 'transition':
          state.phase = line.to.split('.')[0] || state.phase;
          break;
        case 'model':
          state.step = line.step;
          state.stepPhase = state.phase;
          state.tokens += line.usage.promptTokens + line.usage.completionTokens;
          state.cached += line.usage.cachedTokens;
          if (line.tool_calls.length === 0) action('(no tool call)');
          break;
        case 'resume':
          // A resumed run starts mid-step: its first lines may be the tool calls of the step that was cut short.
          state.phase = line.fromState.split('.')[0] || state.phase;
          state.stepPhase = state.phase;
          say(describeResume(line));
          break;
        case 'tool':
          state.step = line.step;
          state.lastTool = `${line.name}${line.ok ? '' : ' (failed)'}`;
          action(describeTool(line));
          break;
        case 'finish':
          state.step = line.step;
          if (line.allowed) action(line.gate ? 'finish → accepted by the verification gate' : 'finish → accepted (the verification gate is off)');
          else action(`finish → refused: ${line.why}`);
          break;
        case 'rule_action':
          say(`[rein] rule action ${line.action}${line.notices ? `: "${line.notices.join(' / ')}"` : ''}`);
          break;
        case 'stall':
          say(`[rein] stall: ${line.rule} (${line.reason}), nudge ${line.firings}/${line.maxNudges}: "${line.message}"`);
          break;
        case 'budget_warning':
          say(`[rein] warning: ${Math.round(line.share * 100)}% of the ${line.budget} budget is used (${line.used} of ${line.limit})`);
          break;
        case 'context':
          say(`[rein] context: ${describeContext(line)}`);
          break;
        case 'retry':
          say(`[rein] model call failed, retry ${line.attempt}: ${line.error}`);
          break;
        case 'calls_recovered': {
          // Said once per shape: a model that writes every call as text would otherwise repeat it each step.
          const fresh = line.shapes.filter((shape) => !state.recoveredShapes.has(shape));
          for (const shape of fresh) state.recoveredShapes.add(shape);
          if (fresh.length > 0)
            say(`[rein] step ${line.step}: the model wrote its tool calls as text (${fresh.join(', ')}); rein runs them as calls (trace: calls_recovered)`);
          break;
        }
        case 'tool_calling':
          say(`[rein] step ${line.step}: tools are now described in the prompt and calls read from text (${line.mode}, was ${line.from}): ${line.why}`);
          break;
        case 'mcp_server':
          if (line.state === 'restarting' || line.state === 'failed')
            say(`[rein] MCP server ${line.server} ${line.state}${line.problem ? `: ${line.problem}` : ''}`);
          break;
        case 'approval_ask':
          say(`[rein] waiting for an approval: ${line.tool} (${line.reason}); call ${line.callId}`);
          break;
        case 'approval_decision': {
          const waited = line.waitedMs !== undefined ? ` after ${Math.round(line.waitedMs / 100) / 10} s` : '';
          const said = line.message ? `: ${line.message}` : '';
          say(
            `[rein] ${line.tool} ${line.verdict === 'allow' ? 'approved' : 'denied'} by ${line.by}${waited}${line.remember ? ` (remembered for this ${line.remember})` : ''}${said}`,
          );
          break;
        }
        case 'hook':
          say(
            `[rein] hook ${line.moment}${line.where ? ` (${line.where})` : ''}: ${line.command.slice(0, 60)} → ${line.problem ? `problem: ${line.problem}` : `exit ${line.exitCode}${line.decision ? `, ${line.decision}` : ''}`}`,
          );
          break;
        default:
          break;
      }
      if (tty) draw();
    },
    finish() {
      if (tty && state.drawn) raw('\r\x1b[2K');
    },
  };
}

function describeTool(line: ToolEvent): string {
  const args = argsObject(line.args);
  const main = String(args.command ?? args.path ?? args.pattern ?? '')
    .replace(/\s+/g, ' ')
    .slice(0, 70);
  const failed = line.ok ? '' : ` → ${toolError(line.result)}`;
  const outcome = readEffect<string>(line.effect, {
    edit: (edit) => (edit.applied ? ' → applied' : ' → rejected'),
    command: (run) => describeCommandEnd(run),
    job: (job) => (job.id ? ` → job ${job.id} ${job.state === 'exited' ? `exited ${job.exitCode}` : job.state}` : failed),
    read: () => failed,
    search: () => failed,
    todo: () => failed,
    finish: () => failed,
    none: () => failed,
    mcp: (call) => (call.outcome === 'ok' || call.outcome === 'error' ? failed : ` → ${call.outcome}`),
  });
  return `${line.name}${main ? ` ${main}` : ''}${outcome}`;
}

/** A refused call's arguments are traced as the model sent them (a string); show what it was about all the same. */
function argsObject(args: unknown): Record<string, unknown> {
  if (typeof args === 'string') {
    try {
      const parsed: unknown = JSON.parse(args);
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
}

/** The first line of a failed call's result, so the reason is on the terminal and not only in the trace. */
function toolError(result: unknown): string {
  const first = String(result ?? '')
    .split('\n')[0]!
    .replace(/^Tool error:\s*/, '')
    .trim();
  if (!first) return 'tool error';
  return `tool error: ${first.length > 90 ? `${first.slice(0, 89)}…` : first}`;
}

function describeCommandEnd(effect: { exitCode?: number | null; blocked?: boolean; blockedBy?: string; timedOut?: boolean; interrupted?: boolean }): string {
  if (effect.blocked) return ` → blocked by policy${effect.blockedBy ? ` (${effect.blockedBy})` : ''}`;
  if (effect.timedOut) return ' → timed out';
  if (effect.interrupted) return ' → interrupted by the stop, not run again';
  return effect.exitCode === null || effect.exitCode === undefined ? ' → did not finish' : ` → exit ${effect.exitCode}`;
}

function describeContext(line: ContextEvent): string {
  switch (line.action) {
    case 'elided':
      return `old tool results elided, ${line.before.tokens} → ${line.after.tokens} tokens`;
    case 'summarize':
      return `the view is over the hard limit (${line.before.tokens} tokens): summarizing the middle`;
    case 'summarized':
      return `earlier messages summarized (${line.foldedChars} → ${line.summaryChars} chars)`;
    case 'summary_failed':
      return `summary failed: ${line.error}`;
    case 'overflow':
      return 'the context window is full';
    case 'provider_rejected_length':
      return `the provider rejected the prompt as too long; compacting harder (window now taken as ${line.windowCap} tokens, attempt ${line.attempt})`;
  }
}
