import { call, type ScriptContext, type ScriptedReply } from 'rein/actors';
import type { ChatMessage } from 'rein/context';
import type { Fix, Simulation } from './simulation-schema.js';

/**
 * A simulated reviewer for the offline suite: a delegated child with read-only tools that reads every file the
 * task's fixes touch and finishes with a verdict. It knows what the task asks (the task's `simulation` block, as a
 * reviewer who understood the task would), so it approves when every fix is in the files and rejects otherwise,
 * naming the file, the requirement and the line still to change. It tests the reviewer recipe's plumbing (the
 * delegate call, the verdict guard, the parent acting on the reasons, the cost of the review); it says nothing about
 * how often a real model's review catches a real mistake, or rejects a good change.
 *
 * @example const script = createSimulatedReviewer(simulation);
 */
export function createSimulatedReviewer(simulation: Simulation): (messages: readonly ChatMessage[], context: ScriptContext) => ScriptedReply {
  const paths = [...new Set(simulation.fixes.map((fix) => fix.path))];
  let seen = '';
  return (_messages, context) => {
    seen += `\n${context.lastResults.join('\n')}`;
    const path = paths[context.call];
    if (path !== undefined) return { content: `Reading ${path}.`, calls: [call('read_file', { path })] };
    const missing = simulation.fixes.filter((fix) => !applied(fix, seen));
    const summary =
      missing.length === 0
        ? 'APPROVE: every requirement of the task is in the code.'
        : `REJECT: ${missing.map((fix) => `${fix.path}: ${fix.todo ?? fix.reveal ?? 'a required change is missing'} (it still has \`${firstLine(fix.old)}\`)`).join('; ')}`;
    return { content: 'Review done.', calls: [call('finish', { summary })] };
  };
}

/** Every non-empty line of the fix's new text is in what the reviewer read. */
function applied(fix: Fix, seen: string): boolean {
  return fix.new
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .every((line) => seen.includes(line));
}

/** The first non-empty line of a fix's old text: what a review quotes and the builder looks for. */
export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find(Boolean) ?? text
  );
}
