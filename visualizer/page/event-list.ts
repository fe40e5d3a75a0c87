import { h, setText } from './dom.js';
import type { Entry } from './entries.js';
import { FILTERS, type Filter, filterOf } from './event-filters.js';
import { describeEntry, type RowText } from './event-format.js';
import type { RowHints } from './harness-events.js';
import { type ListScope, ScopeBar } from './scope-bar.js';
import type { Timeline } from './timeline.js';

export type { ListScope } from './scope-bar.js';

const ROW_HEIGHT = 28;
const OVERSCAN = 8;

/**
 * The timeline as a virtualized list: only the rows in view (plus a few)
 * exist in the DOM, so 10,000 events scroll like 10. Chips filter by kind,
 * the search box by text (a row's words, and every field of its line:
 * arguments, results, errors); a scope picked on the chart narrows it to
 * the times a state was entered or an arrow taken. The row at the
 * scrubber's position is marked.
 *
 * @example const list = new EventList(timeline, (index) => app.moveTo(index), () => app.pick(null)); list.appended(0);
 */
export class EventList {
  readonly element: HTMLDivElement;
  private readonly scroller: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private readonly rows = new Map<number, HTMLDivElement>();
  private readonly texts: Array<RowText | undefined> = [];
  private readonly haystacks: Array<string | undefined> = [];
  private readonly scopeBar: ScopeBar;
  private readonly chips: HTMLButtonElement[];
  private readonly enabled = new Set<Filter>(FILTERS.filter((filter) => filter.on).map((filter) => filter.key));
  private readonly counter: HTMLSpanElement;
  private visible: number[] = [];
  private query = '';
  private current = -1;
  private revealPending = false;
  private frame = 0;
  // Kept from scroll and resize events: reading them while rendering would force a layout every frame.
  private scrollTop = 0;
  private height = 0;

  constructor(
    private readonly timeline: Timeline,
    private readonly onPick: (index: number) => void,
    onClear: () => void,
  ) {
    this.chips = FILTERS.map((filter) => {
      const chip = h(
        'button',
        { class: `chip${filter.on ? ' on' : ''}`, title: filter.title, 'aria-pressed': String(filter.on), 'data-filter': filter.key },
        filter.label,
      );
      chip.addEventListener('click', () => this.toggle(filter.key, chip));
      return chip;
    });
    const search = h('input', { type: 'search', class: 'search', placeholder: 'Filter events…', 'aria-label': 'Filter events by text' });
    search.addEventListener('input', () => {
      this.query = search.value.trim().toLowerCase();
      this.refilter();
    });
    this.counter = h('span', { class: 'count' });
    this.spacer = h('div', { class: 'spacer' });
    this.scroller = h('div', { class: 'rows', role: 'list', tabindex: 0 }, this.spacer);
    this.scroller.addEventListener('scroll', () => {
      this.scrollTop = this.scroller.scrollTop;
      this.schedule();
    });
    this.scroller.addEventListener('click', (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>('.row');
      if (row?.dataset.index) this.onPick(Number(row.dataset.index));
    });
    new ResizeObserver((entries) => {
      this.height = entries[0]?.contentRect.height ?? this.scroller.clientHeight;
      this.revealPending = true;
      this.schedule();
    }).observe(this.scroller);
    this.scopeBar = new ScopeBar(() => this.refilter(), onClear);
    this.element = h(
      'div',
      { class: 'events' },
      h('div', { class: 'list-head' }, h('div', { class: 'filters' }, ...this.chips, search, this.counter), this.scopeBar.element),
      this.scroller,
    );
  }

  /** Entries from `from` on were appended to the timeline. */
  appended(from: number): void {
    for (let index = from; index < this.timeline.length; index++) if (this.passes(this.timeline.entries[index]!)) this.visible.push(index);
    this.layout();
  }

  /** Entries from `from` on moved (a line joined its cause): their rows are made again. */
  changedFrom(from: number): void {
    this.texts.length = Math.min(this.texts.length, from);
    this.haystacks.length = Math.min(this.haystacks.length, from);
    this.visible = this.visible.filter((index) => index < from);
    for (const [index, element] of this.rows)
      if (index >= from) {
        element.remove();
        this.rows.delete(index);
      }
    this.appended(from);
  }

  /** Narrows the list to a scope picked on the chart (null: the whole list again). */
  setScope(scope: ListScope | null): void {
    this.scopeBar.show(scope);
    for (const chip of this.chips) chip.disabled = scope !== null;
    this.refilter();
  }

  /** Marks the row at (or just before) `index`; scrolls it into view when asked. */
  setCurrent(index: number, reveal: boolean): void {
    this.current = index;
    // Scrolling waits for the frame: reading the layout here would force it once per scrubber step.
    if (reveal) this.revealPending = true;
    this.schedule();
  }

  /** How many row elements exist (the test checks the list stays virtual). */
  get renderedRows(): number {
    return this.rows.size;
  }

  private toggle(filter: Filter, chip: HTMLButtonElement): void {
    if (this.enabled.has(filter)) this.enabled.delete(filter);
    else this.enabled.add(filter);
    chip.classList.toggle('on', this.enabled.has(filter));
    chip.setAttribute('aria-pressed', String(this.enabled.has(filter)));
    this.refilter();
  }

  private refilter(): void {
    this.visible = [];
    this.revealPending = true;
    this.appended(0);
  }

  private passes(entry: Entry): boolean {
    if (this.scopeBar.active) {
      if (!this.scopeBar.matches(entry)) return false;
    } else if (!this.enabled.has(filterOf(entry))) return false;
    if (!this.query) return true;
    const row = this.rowText(entry);
    return `${row.badge} ${row.text} ${row.meta}`.toLowerCase().includes(this.query) || this.haystack(entry).includes(this.query);
  }

  /** Every field of the line as text, for search: arguments, results, errors. */
  private haystack(entry: Entry): string {
    let text = this.haystacks[entry.index];
    if (text === undefined) {
      try {
        text = JSON.stringify(entry.data).toLowerCase();
      } catch {
        text = '';
      }
      this.haystacks[entry.index] = text;
    }
    return text;
  }

  private rowText(entry: Entry): RowText {
    let row = this.texts[entry.index];
    if (!row) {
      row = describeEntry(entry, entry.kind === 'transition' ? this.timeline.matchOf(entry) : null, this.hintsFor(entry));
      this.texts[entry.index] = row;
    }
    return row;
  }

  private hintsFor(entry: Entry): RowHints {
    return entry.kind === 'context' ? { charsPerToken: this.timeline.charsPerToken(entry.index) } : {};
  }

  /** Position in `visible` of the last row at or before the current index. */
  private currentRow(): number {
    let low = 0;
    let high = this.visible.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.visible[middle]! <= this.current) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found;
  }

  private reveal(): void {
    const row = this.currentRow();
    if (row < 0) return;
    const top = row * ROW_HEIGHT;
    if (top >= this.scrollTop && top + ROW_HEIGHT <= this.scrollTop + this.height) return;
    const next = Math.min(Math.max(0, top - this.height / 2), Math.max(0, this.visible.length * ROW_HEIGHT - this.height));
    this.scroller.scrollTop = next;
    this.scrollTop = next;
  }

  private layout(): void {
    this.spacer.style.height = `${this.visible.length * ROW_HEIGHT}px`;
    setText(this.counter, `${this.visible.length.toLocaleString('en-US')} / ${this.timeline.length.toLocaleString('en-US')}`);
    this.schedule();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private render(): void {
    if (this.revealPending) {
      this.revealPending = false;
      this.reveal();
    }
    const { scrollTop, height: clientHeight } = this;
    const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.visible.length - 1, Math.ceil((scrollTop + clientHeight) / ROW_HEIGHT) + OVERSCAN);
    const wanted = new Set<number>();
    for (let row = first; row <= last; row++) wanted.add(this.visible[row]!);
    // Rows that scrolled away are reused for the ones that scrolled in.
    const spare: HTMLDivElement[] = [];
    for (const [index, element] of this.rows)
      if (!wanted.has(index)) {
        spare.push(element);
        this.rows.delete(index);
      }
    const currentIndex = this.visible[this.currentRow()] ?? -1;
    for (let row = first; row <= last; row++) {
      const index = this.visible[row]!;
      let element = this.rows.get(index);
      if (!element) {
        element = spare.pop() ?? this.spacer.appendChild(emptyRow());
        this.fillRow(element, this.timeline.entries[index]!);
        this.rows.set(index, element);
      }
      element.style.transform = `translateY(${row * ROW_HEIGHT}px)`;
      element.classList.toggle('current', index === currentIndex);
      element.classList.toggle('future', index > this.current);
    }
    for (const element of spare) element.remove();
  }

  private fillRow(element: HTMLDivElement, entry: Entry): void {
    const row = this.rowText(entry);
    const start = this.timeline.startT;
    const time = entry.t !== null && start !== null ? `+${(entry.t - start).toFixed(entry.t - start < 100 ? 2 : 0)}s` : '';
    element.className = `row tone-${row.tone}`;
    element.dataset.index = String(entry.index);
    element.dataset.kind = entry.kind;
    element.title = row.title ?? `${row.badge}: ${row.text}`;
    const [idx, clock, badge, body, meta] = element.children;
    idx!.textContent = String(entry.index);
    clock!.textContent = time;
    badge!.textContent = row.badge;
    body!.textContent = row.text;
    meta!.textContent = row.meta;
  }
}

function emptyRow(): HTMLDivElement {
  return h(
    'div',
    { class: 'row', role: 'listitem' },
    h('span', { class: 'idx' }),
    h('span', { class: 'time' }),
    h('span', { class: 'badge' }),
    h('span', { class: 'text' }),
    h('span', { class: 'meta' }),
  );
}
