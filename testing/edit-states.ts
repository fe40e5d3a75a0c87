import { shortHash } from '../lib/short-hash.js';
import type { RecordedStep } from './recorded-run.js';

/**
 * The states of each edited file, reconstructed from the recorded edits
 * alone (a recording has no file contents): a file is its first known
 * content plus the stack of changes on it. A change that is the exact
 * reverse of the last one (`old`/`new` swapped) or an undo pops the stack,
 * so the file is back in an earlier state and the stall detector can see
 * edit thrash; any other change pushes a new state. A create starts the file
 * over from its content.
 */
export class EditStates {
  private readonly stacks = new Map<string, Array<{ old: string; new: string; state: string }>>();
  private readonly bases = new Map<string, string>();

  /** The edit's before/after state hashes; an edit that did not take effect leaves the file as it was. */
  apply(step: RecordedStep): { path: string; before: string; after: string } {
    const path = String(step.args.path ?? step.args.file ?? '?');
    const before = this.state(path);
    if (step.edit?.applied === false) return { path, before, after: before };
    const stack = this.stacks.get(path) ?? [];
    const kind = step.edit?.kind;
    const oldText = String(step.args.old ?? '');
    const newText = String(step.args.new ?? step.args.command ?? step.raw ?? '');
    if (kind === 'create') {
      this.bases.set(path, shortHash(`create\u0000${newText}`));
      this.stacks.set(path, []);
    } else if (kind === 'undo' || oldText === '@undo') {
      stack.pop();
      this.stacks.set(path, stack);
    } else {
      const top = stack.at(-1);
      if (top && top.old === newText && top.new === oldText) stack.pop();
      else stack.push({ old: oldText, new: newText, state: shortHash(`${before}\u0000${oldText}\u0000${newText}`) });
      this.stacks.set(path, stack);
    }
    return { path, before, after: this.state(path) };
  }

  private state(path: string): string {
    return this.stacks.get(path)?.at(-1)?.state ?? this.bases.get(path) ?? shortHash(`original\u0000${path}`);
  }
}
