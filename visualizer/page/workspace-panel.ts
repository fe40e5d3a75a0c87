import type { DiffView, WorkspaceSteps } from '../server/page-data.js';
import { h } from './dom.js';
import { pageSession, SESSION_HEADER } from './session.js';

/** A running run's steps are fetched again at most this often while the page shows a step not yet kept. */
const REFETCH_MS = 1500;

/**
 * The workspace at the step shown: what changed against the step before and against the start, and the `rein
 * rewind` and `rein fork` commands for that step, each with a copy button; a fork's origin and a run's forks, as
 * links where a server serves the page. A running run's page (`url`) fetches the steps again as the run keeps them.
 *
 * @example const panel = new WorkspacePanel(data.workspace ?? null, data.workspaceUrl ?? null); panel.show(3);
 */
export class WorkspacePanel {
  readonly element = h('section', { class: 'workspace', 'aria-label': 'workspace at this step' });
  private readonly title = h('span', { class: 'title' }, 'Workspace');
  private readonly meta = h('span', { class: 'meta' }, 'no step kept yet');
  private readonly body = h('div', { class: 'body' });
  private shown = '';
  private kept: number[] = [];
  private wanted = 0;
  private fetching = false;
  private retry = 0;

  constructor(
    private workspace: WorkspaceSteps | null,
    private readonly url: string | null,
  ) {
    this.keep(workspace);
    // Folded on a live page, where the run's events want the room; open on a replay. A click opens or folds it.
    const fold = h('details', { open: url === null }, h('summary', { class: 'head' }, this.title, this.meta), this.body);
    this.element.append(fold);
  }

  /** Shows the latest kept step at or before `step` (the step in progress has no snapshot yet). */
  show(step: number): void {
    this.wanted = step;
    if (this.url && step > (this.kept.at(-1) ?? -1)) this.refetch();
    this.render(step);
  }

  private render(step: number): void {
    const workspace = this.workspace;
    const at = this.kept.filter((kept) => kept <= step).at(-1) ?? this.kept[0];
    if (!workspace || at === undefined) return;
    const key = `${at}:${this.kept.length}:${workspace.forks?.length ?? 0}`;
    if (key === this.shown) return;
    this.shown = key;
    const view = workspace.steps[at]!;
    const { runDir, model } = workspace;
    this.title.textContent = `Workspace after step ${at}`;
    this.meta.textContent = `${view.state} · ${counts(view.sinceStart)} since the start`;
    this.body.replaceChildren(
      diffBlock(`since step ${this.kept[Math.max(0, this.kept.indexOf(at) - 1)]}`, view.sincePrevious),
      diffBlock('since the start', view.sinceStart),
      commandRow(`npx rein rewind ${runDir} --to ${at}`),
      commandRow(`npx rein fork ${runDir} --at ${at} --model ${model}`),
      ...relatives(workspace),
    );
    this.element.dataset.step = String(at);
  }

  private keep(workspace: WorkspaceSteps | null): void {
    this.workspace = workspace;
    this.kept = Object.keys(workspace?.steps ?? {})
      .map(Number)
      .sort((a, b) => a - b);
  }

  /** Fetches the steps again (one request at a time), and again later while the step wanted is not kept yet. */
  private refetch(): void {
    if (this.fetching || this.retry || !this.url) return;
    this.fetching = true;
    void fetch(this.url, { headers: { [SESSION_HEADER]: pageSession() }, cache: 'no-store' })
      .then((response) => (response.ok ? (response.json() as Promise<WorkspaceSteps | null>) : null))
      .then(
        (workspace) => {
          if (workspace?.steps) this.keep(workspace);
        },
        () => undefined,
      )
      .finally(() => {
        this.fetching = false;
        if (this.wanted > (this.kept.at(-1) ?? -1))
          this.retry = window.setTimeout(() => {
            this.retry = 0;
            this.show(this.wanted);
          }, REFETCH_MS);
        this.render(this.wanted);
      });
  }
}

/** A fork's origin and a run's forks: links that open their pages at the fork step where a server serves this one. */
function relatives(workspace: WorkspaceSteps): HTMLElement[] {
  const rows: HTMLElement[] = [];
  if (workspace.forkOf)
    rows.push(
      h(
        'div',
        { class: 'origin' },
        'A fork of ',
        runLink(workspace.forkOf.runDir, workspace.forkOf.step, 'origin'),
        ` at step ${workspace.forkOf.step}`,
        served() ? null : h('code', {}, ` (${workspace.forkOf.command})`),
      ),
    );
  if (workspace.forks?.length)
    rows.push(
      h(
        'div',
        { class: 'forks' },
        `Forks (${workspace.forks.length}):`,
        h('ul', {}, ...workspace.forks.map((fork) => h('li', {}, runLink(fork.runDir, fork.step, 'fork'), ` at step ${fork.step}`))),
      ),
    );
  return rows;
}

/** Served pages only: a page opened from a file has no server to ask for another run's page. */
const served = () => location.protocol === 'http:' || location.protocol === 'https:';

function runLink(runDir: string, step: number, kind: 'origin' | 'fork'): HTMLElement {
  if (!served()) return h('code', { class: `run-link ${kind}` }, runDir);
  const query = new URLSearchParams({ run: runDir, step: String(step) });
  return h('a', { class: `run-link ${kind}`, href: `/?${query}` }, runDir);
}

const counts = (diff: DiffView) => `+${diff.added.length} ~${diff.modified.length} -${diff.deleted.length}`;

function diffBlock(title: string, diff: DiffView): HTMLElement {
  const count = diff.added.length + diff.modified.length + diff.deleted.length + diff.more;
  const lines = [
    ...diff.added.map((path) => h('li', { class: 'added' }, `+ ${path}`)),
    ...diff.modified.map((path) => h('li', { class: 'modified' }, `~ ${path}`)),
    ...diff.deleted.map((path) => h('li', { class: 'deleted' }, `- ${path}`)),
  ];
  if (diff.more > 0) lines.push(h('li', {}, `… and ${diff.more} more`));
  return h('details', { class: 'diff', open: count > 0 && count <= 12 }, h('summary', {}, `${title}: ${counts(diff)}`), h('ul', {}, ...lines));
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
