import type { Usage } from '../../lib/usage.js';
import type { HarnessOutput } from '../../machines/types.js';
import type { BudgetAmounts } from '../../rules/agents/carve.js';

/** Characters of a child's last words the parent's model is shown when it stopped before finishing. */
const FOUND_CHARS = 3000;

/** How a child ended, in the words the parent's model reads as the delegate call's result. */
interface ChildEnd {
  agent: string;
  caps: BudgetAmounts;
  output: HarnessOutput;
  /** The child's own texts, in order (what it found, if it never finished). */
  said: readonly string[];
  /** Files it changed. */
  changed: readonly string[];
}

const STOPPED: Partial<Record<HarnessOutput['status'], (caps: BudgetAmounts) => string>> = {
  step_limit: (caps) => `its step budget (${caps.steps} steps) was exhausted`,
  budget: (caps) =>
    `its ${caps.costUsd !== undefined ? `cost ($${caps.costUsd.toFixed(4)}) or ` : ''}token${caps.tokens !== undefined ? ` (${caps.tokens.toLocaleString('en-US')})` : ''} budget was exhausted`,
  timeout: (caps) => `its time budget (${caps.seconds} s) was exhausted`,
  stalled: () => 'it stalled',
  failed: () => 'it failed',
};

/**
 * The child's report: its summary when it finished; otherwise why it stopped (the budget it used up, in its own
 * numbers) and what it had found by then, never an error the parent's model has to guess at.
 *
 * @example childReport({ agent: 'explorer', caps, output, said, changed })
 */
export function childReport(end: ChildEnd): string {
  const { agent, output } = end;
  const spent = `${output.steps} steps, ${tokensOf(output.usage).toLocaleString('en-US')} tokens, $${output.usage.costUsd.toFixed(4)}`;
  const changed = end.changed.length > 0 ? `\nFiles it changed: ${end.changed.join(', ')}` : '';
  if (output.status === 'done') return `Agent "${agent}" finished (${spent}):\n${output.summary}${changed}`;
  const why = STOPPED[output.status]?.(end.caps) ?? output.status;
  return `Agent "${agent}" stopped before finishing: ${why} after ${spent} (${output.reason}).${changed}\nWhat it found before it stopped:\n${found(end.said)}`;
}

/** A child that could not be started: why, in the parent's numbers. */
export function refusalReport(agent: string, reason: string): string {
  return `Agent "${agent}" was not started: ${reason}. Do the task yourself or finish with what you have.`;
}

function found(said: readonly string[]): string {
  const text = said.filter((line) => line.trim().length > 0).join('\n---\n');
  if (text.length === 0) return '(it wrote nothing)';
  return text.length > FOUND_CHARS ? `…${text.slice(-FOUND_CHARS)}` : text;
}

function tokensOf(usage: Usage): number {
  return usage.promptTokens + usage.completionTokens;
}
