import { call, type ScriptedReply } from 'rein/actors';
import { type Fix, itemDone, type Simulation } from './simulation-schema.js';

/** One thing the simulated model means to do next. */
export type Intent =
  | { kind: 'read'; path: string }
  | { kind: 'command'; command: string; purpose: 'flood' | 'destructive' | 'instead'; instead?: string }
  /** `applied`: the fixes made so far (empty when first writing the list). */
  | { kind: 'todo'; applied: readonly number[] }
  | { kind: 'edit'; fix: number; variant: 'correct' | 'broken' | 'repair' }
  | { kind: 'test'; retry: boolean }
  | { kind: 'finish'; giveUp: boolean }
  /** Asks an agent the rules declare (the reviewer recipe's reviewer) to review the change. */
  | { kind: 'delegate'; agent: string };

/** How the model can act: the tool surface it was given and whether edits go through the shell. */
export interface Surface {
  tools: readonly string[];
  shellEdits: boolean;
}

/**
 * The reply that carries out an intent on the given tool surface. Without
 * `edit_file` (a shell-only surface) edits become a small node script, and
 * reads become `cat -n`, as a model limited to a shell would do it.
 *
 * @example toReply({ kind: 'test', retry: false }, simulation, 'npm test', surface)
 */
export function toReply(intent: Intent, simulation: Simulation, testCmd: string, surface: Surface): ScriptedReply {
  switch (intent.kind) {
    case 'read':
      return surface.tools.includes('read_file')
        ? { content: `Reading ${intent.path}.`, calls: [call('read_file', { path: intent.path })] }
        : { content: `Reading ${intent.path}.`, calls: [call('run', { command: `cat -n ${intent.path}` })] };
    case 'command':
      return { content: commandReason(intent), calls: [call('run', { command: intent.command })] };
    case 'todo':
      return intent.applied.length === 0
        ? { content: 'Writing down what the task asks for.', calls: [call('update_todo', { items: todoItems(simulation, intent.applied) })] }
        : { content: 'Ticking off what is done.', calls: [call('update_todo', { items: todoItems(simulation, intent.applied) })] };
    case 'edit':
      return editReply(simulation.fixes[intent.fix]!, intent.variant, surface);
    case 'test':
      return {
        content: intent.retry ? 'That failure looks flaky; running the tests again.' : 'Running the tests.',
        calls: [call('run', { command: testCmd })],
      };
    case 'delegate':
      return {
        content: `Asking ${intent.agent} to review the change.`,
        calls: [call('delegate', { tasks: [{ agent: intent.agent, task: `Review the change. The task: ${simulation.summary}` }] })],
      };
    case 'finish':
      return {
        content: intent.giveUp ? 'I could not find the cause.' : 'Done.',
        calls: [call('finish', { summary: intent.giveUp ? 'Could not make the tests pass.' : simulation.summary })],
      };
  }
}

function commandReason(intent: Extract<Intent, { kind: 'command' }>): string {
  if (intent.purpose === 'flood') return 'Reading the whole output to find the cause.';
  if (intent.purpose === 'destructive') return 'This is the quickest way.';
  return 'Blocked; doing it the safe way instead.';
}

/** The list as the model writes it: one item per requirement, ticked when every fix under it is in `applied`. */
function todoItems(simulation: Simulation, applied: readonly number[]): Array<{ task: string; done: boolean }> {
  const appliedSet = new Set(applied);
  return simulation.fixes.flatMap((fix) => (fix.todo === undefined ? [] : [{ task: fix.todo, done: itemDone(appliedSet, simulation, fix.todo) }]));
}

function editReply(fix: Fix, variant: 'correct' | 'broken' | 'repair', surface: Surface): ScriptedReply {
  const old = variant === 'repair' ? (fix.broken ?? fix.new) : fix.old;
  const replacement = variant === 'broken' ? (fix.broken ?? fix.new) : fix.new;
  const content = variant === 'repair' ? `The SyntaxError comes from my last edit to ${fix.path}; repairing it.` : `Editing ${fix.path}.`;
  if (!surface.shellEdits && surface.tools.includes('edit_file')) {
    return { content, calls: [call('edit_file', { path: fix.path, old, new: replacement })] };
  }
  return { content, calls: [call('run', { command: shellEdit(fix.path, old, replacement) })] };
}

/** A replace-once edit as a shell command (node reading its script from a heredoc); JSON strings are JS literals. */
export function shellEdit(path: string, old: string, replacement: string): string {
  const script = [
    "const fs = require('node:fs');",
    `const path = ${JSON.stringify(path)};`,
    'const source = fs.readFileSync(path, "utf8");',
    `const old = ${JSON.stringify(old)};`,
    'if (!source.includes(old)) { console.error("text not found in " + path); process.exit(1); }',
    `fs.writeFileSync(path, source.replace(old, () => ${JSON.stringify(replacement)}));`,
    'console.log("edited " + path);',
  ].join('\n');
  return `node - <<'REIN_EDIT'\n${script}\nREIN_EDIT`;
}
