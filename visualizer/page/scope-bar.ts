import { h } from './dom.js';
import type { Entry } from './entries.js';

/** A subset of the timeline picked on the chart: the times a state was entered or an arrow taken. */
export interface ListScope {
  /** What the bar over the list says: `entered build.think`. */
  label: string;
  matches(entry: Entry): boolean;
  /** For a state: everything that happened while the run was in it (a wider subset the person can switch to). */
  inside?: { label: string; matches(entry: Entry): boolean };
}

/**
 * The bar over the event list while a chart pick narrows it: what it
 * shows, "and inside" to widen a state's entries to everything while the
 * run was there, and × to show everything again.
 *
 * @example const bar = new ScopeBar(() => list.refilter(), () => app.pick(null)); bar.show(scope);
 */
export class ScopeBar {
  readonly element = h('div', { class: 'scope', hidden: true, role: 'status' });
  private scope: ListScope | null = null;
  private wide = false;

  constructor(
    private readonly changed: () => void,
    private readonly clear: () => void,
  ) {}

  get active(): boolean {
    return this.scope !== null;
  }

  show(scope: ListScope | null): void {
    this.scope = scope;
    this.wide = false;
    this.render();
  }

  /** The test the list applies now: the entries, or everything inside. */
  matches(entry: Entry): boolean {
    const scope = this.scope;
    if (!scope) return true;
    return this.wide && scope.inside ? scope.inside.matches(entry) : scope.matches(entry);
  }

  private render(): void {
    const scope = this.scope;
    this.element.hidden = scope === null;
    if (!scope) {
      this.element.replaceChildren();
      return;
    }
    const clear = h(
      'button',
      { class: 'tool close', type: 'button', title: "Show every event again (or click the chart's background)", 'aria-label': 'Clear the chart filter' },
      '×',
    );
    clear.addEventListener('click', () => this.clear());
    const parts: Node[] = [h('span', { class: 'scope-label' }, this.wide && scope.inside ? scope.inside.label : scope.label)];
    if (scope.inside) {
      const toggle = h(
        'button',
        { class: `chip${this.wide ? ' on' : ''}`, type: 'button', 'aria-pressed': String(this.wide), title: 'Also list what happened while the run was there' },
        'and inside',
      );
      toggle.addEventListener('click', () => {
        this.wide = !this.wide;
        this.render();
        this.changed();
      });
      parts.push(toggle);
    }
    this.element.replaceChildren(...parts, clear);
  }
}
