import type { Rules } from '../rules/schema.js';

/** Writes progress as a run goes: one rewritten line on a terminal, plain lines otherwise. */
export interface StatusLine {
  onTrace(kind: string, data: Record<string, unknown>): void;
  finish(): void;
}

interface Stream { isTTY?: boolean; columns?: number; write(text: string): boolean }

/**
 * The live status line: phase, step/limit, elapsed/limit, tokens and the last
 * tool, redrawn in place on a TTY; on a pipe, one plain line per event that
 * matters (phase change, tool call, nudge, gate decision, warning).
 *
 * @example const status = createStatusLine(process.stderr, rules); startRun({ ..., onTrace: status.onTrace });
 */
export function createStatusLine(stream: Stream, rules: Rules, now: () => number = Date.now): StatusLine {
  const started = now();
  const state = { phase: '-', step: 0, tokens: 0, cached: 0, lastTool: '-', drawn: false };
  const tty = Boolean(stream.isTTY);
  const draw = () => {
    const elapsed = Math.round((now() - started) / 1000);
    const line = `[rein] ${state.phase.padEnd(6)} step ${state.step}/${rules.budgets.maxSteps}  ${elapsed}s/${rules.budgets.maxSeconds}s  tokens ${state.tokens} (cached ${state.cached})  last: ${state.lastTool}`;
    const width = (stream.columns ?? 120) - 1;
    stream.write(`\r\x1b[2K${line.slice(0, width)}`);
    state.drawn = true;
  };
  const say = (text: string) => {
    if (tty) { if (state.drawn) stream.write('\r\x1b[2K'); stream.write(text + '\n'); draw(); } else stream.write(text + '\n');
  };
  return {
    onTrace(kind, data) {
      if (kind === 'transition') {
        const phase = String(data.to ?? '').split('.')[0] ?? '';
        if (phase && phase !== state.phase) { state.phase = phase; if (!tty) say(`[rein] phase ${phase}`); }
      } else if (kind === 'model') {
        state.step = Number(data.step ?? state.step);
        const usage = data.usage as { promptTokens?: number; completionTokens?: number; cachedTokens?: number } | undefined;
        state.tokens += (usage?.promptTokens ?? 0) + (usage?.completionTokens ?? 0);
        state.cached += usage?.cachedTokens ?? 0;
      } else if (kind === 'tool') {
        state.lastTool = `${String(data.name)}${data.ok ? '' : ' (failed)'}`;
        if (!tty) say(`[rein] step ${state.step} ${describeTool(data)}`);
      } else if (kind === 'stall') say(`[rein] stall: ${String(data.rule)} → nudge: ${String(data.message)}`);
      else if (kind === 'finish') say(data.allowed ? '[rein] finish accepted by the verification gate' : '[rein] finish refused by the verification gate (no passing test run after the last edit)');
      else if (kind === 'budget_warning') say(`[rein] warning: 75% of the ${String(data.budget)} budget used`);
      else if (kind === 'context') say(`[rein] context: ${String(data.action)}`);
      else if (kind === 'retry') say(`[rein] model call failed, retrying: ${String(data.error)}`);
      if (tty) draw();
    },
    finish() { if (tty && state.drawn) stream.write('\r\x1b[2K'); },
  };
}

function describeTool(data: Record<string, unknown>): string {
  const args = data.args && typeof data.args === 'object' ? data.args as Record<string, unknown> : {};
  const main = args.command ?? args.path ?? args.pattern ?? '';
  const text = String(main).replace(/\s+/g, ' ').slice(0, 80);
  return `${String(data.name)}${text ? ` ${text}` : ''}${data.ok ? '' : ' (failed)'}`;
}
