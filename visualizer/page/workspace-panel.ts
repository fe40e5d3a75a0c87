import type { DiffView, WorkspaceSteps } from '../server/page-data.js';
import { h } from './dom.js';

/**
 * The workspace at the step shown: what changed against the step before and against the start, and the `rein
 * rewind` and `rein fork` commands for that step, each with a copy button.
 *
 * @example const panel = new WorkspacePanel(data.workspace); panel.show(3);
 */
export class WorkspacePanel {
  readonly element = h('section', { class: 'workspace', 'aria-label': 'workspace at this step' });
  private shown: number | null = null;
  private readonly kept: number[];

  constructor(private readonly workspace: WorkspaceSteps) {
    this.kept = Object.keys(workspace.steps)
      .map(Number)
      .sort((a, b) => a - b);
  }

  /** Shows the latest kept step at or before `step` (the step in progress has no snapshot yet). */
  show(step: number): void {
    const at = this.kept.filter((kept) => kept <= step).at(-1) ?? this.kept[0];
    if (at === undefined || at === this.shown) return;
    this.shown = at;
    const view = this.workspace.steps[at]!;
    const { runDir, model } = this.workspace;
    this.element.replaceChildren(
      h('header', {}, h('span', { class: 'title' }, `Workspace after step ${at}`), h('span', { class: 'meta' }, view.state)),
      diffBlock(`since step ${this.kept[Math.max(0, this.kept.indexOf(at) - 1)]}`, view.sincePrevious),
      diffBlock('since the start', view.sinceStart),
      commandRow(`npx rein rewind ${runDir} --to ${at}`),
      commandRow(`npx rein fork ${runDir} --at ${at} --model ${model}`),
    );
    this.element.dataset.step = String(at);
  }
}

function diffBlock(title: string, diff: DiffView): HTMLElement {
  const count = diff.added.length + diff.modified.length + diff.deleted.length + diff.more;
  const lines = [
    ...diff.added.map((path) => h('li', { class: 'added' }, `+ ${path}`)),
    ...diff.modified.map((path) => h('li', { class: 'modified' }, `~ ${path}`)),
    ...diff.deleted.map((path) => h('li', { class: 'deleted' }, `- ${path}`)),
  ];
  if (diff.more > 0) lines.push(h('li', {}, `… and ${diff.more} more`));
  return h(
    'details',
    { class: 'diff', open: count > 0 && count <= 12 },
    h('summary', {}, `${title}: +${diff.added.length} ~${diff.modified.length} -${diff.deleted.length}`),
    h('ul', {}, ...lines),
  );
}

function commandRow(command: string): HTMLElement {
  const copy = h('button', { class: 'tool copy', type: 'button', title: 'Copy the command' }, 'Copy');
  copy.addEventListener('click', () => {
    void navigator.clipboard?.writeText(command).then(
      () => {
        copy.textContent = 'Copied';
      },
      () => {
        copy.textContent = 'Select and copy';
      },
    );
  });
  return h('div', { class: 'command' }, h('code', {}, command), copy);
}
