import { describe, expect, it } from 'vitest';
import { type ContextState, initialContextState, SUMMARY_HEADER } from '../../context/context-state.js';
import type { ChatMessage, MessageRecord } from '../../context/messages.js';
import { totalChars } from '../../context/messages.js';
import { ViewBuilder } from '../../context/view-builder.js';
import { headTail } from '../../lib/head-tail.js';

/** System, task, then `count` call/result pairs; result i is `out<i>` padded to 1,000 characters. */
function recordOf(count: number): ChatMessage[] {
  const record: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'task' },
  ];
  for (let index = 0; index < count; index++) {
    record.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${index}`, type: 'function', function: { name: 'run', arguments: '{}' } }] });
    record.push({ role: 'tool', tool_call_id: `c${index}`, content: `out${index}`.padEnd(1000, '.') });
  }
  return record;
}

/** The record as the run keeps it: only the head in memory, everything else read back in slices, which are logged. */
function onDisk(record: ChatMessage[]) {
  const reads: Array<[number, number]> = [];
  const asked: number[] = [];
  const stored: MessageRecord = {
    get length() {
      return record.length;
    },
    at(index: number) {
      if (index >= 2) throw new Error(`message ${index} is on disk`);
      asked.push(index);
      return record[index];
    },
    slice(start: number, end: number) {
      reads.push([start, end]);
      return record.slice(start, end);
    },
  };
  return { stored, reads, asked };
}

const fresh = (record: MessageRecord, state: ContextState) => new ViewBuilder().viewFor(record, state);

describe('the view builder (context/view-builder.ts)', () => {
  it("with no caps and no summary the view is the record, with each message's source and the total size", () => {
    const record = recordOf(3);
    const view = fresh(record, initialContextState(4));
    expect(view.messages).toEqual(record);
    expect(view.sources).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(view.chars).toBe(totalChars(record));
  });

  it('a summary stands in for the record up to its `through`, as a user message after the head', () => {
    const record = recordOf(5);
    const state: ContextState = { ...initialContextState(4), summary: { text: 'did things', through: 7 }, version: 1 };
    const view = fresh(record, state);
    expect(view.messages[2]).toEqual({ role: 'user', content: `${SUMMARY_HEADER}\ndid things` });
    expect(view.messages.slice(3)).toEqual(record.slice(8));
    expect(view.sources).toEqual([0, 1, -1, 8, 9, 10, 11]);
    expect(view.chars).toBe(totalChars(view.messages));
  });

  it('the summary opens with a header that says it stands for earlier work; one that folds a single message is shown too', () => {
    const record = recordOf(3);
    const view = fresh(record, { ...initialContextState(4), summary: { text: 'read the code', through: 2 }, version: 1 });
    expect(view.messages[2]).toEqual({ role: 'user', content: '[Summary of earlier work]\nread the code' });
    expect(view.sources).toEqual([0, 1, -1, 3, 4, 5, 6, 7]);
  });

  it('a summary that folds nothing past the head is not shown', () => {
    const record = recordOf(2);
    const view = fresh(record, { ...initialContextState(4), summary: { text: 'nothing', through: 1 }, version: 1 });
    expect(view.messages).toEqual(record);
  });

  it('a new summary with the same caps rebuilds the view, reusing the messages it keeps without reading the record back', () => {
    const record = recordOf(6);
    const builder = new ViewBuilder();
    const state = initialContextState(4);
    builder.viewFor(record, state);
    const { stored, reads, asked } = onDisk(record);
    const summarized: ContextState = { ...state, summary: { text: 'first part', through: 7 }, version: 1 };
    const view = builder.viewFor(stored, summarized);
    expect(view.messages).toEqual(fresh(record, summarized).messages);
    expect(view.sources).toEqual([0, 1, -1, 8, 9, 10, 11, 12, 13]);
    // Not even the head is asked for again.
    expect([reads, asked]).toEqual([[], []]);
  });

  it('after a summary, a change of caps reads back only from the first result whose cap changed, and matches a view built from scratch', () => {
    const record = recordOf(6);
    const builder = new ViewBuilder();
    const summarized: ContextState = { ...initialContextState(4), summary: { text: 'first part', through: 5 }, version: 1 };
    builder.viewFor(record, summarized);
    const { stored, reads } = onDisk(record);
    // Results at 7 and 9 go to a cap of 100.
    const capped: ContextState = { ...summarized, caps: { steps: [[7, 100]], through: 9 }, version: 2 };
    const view = builder.viewFor(stored, capped);
    expect(view.messages).toEqual(fresh(record, capped).messages);
    expect(view.messages.find((message) => message.role === 'tool' && message.tool_call_id === 'c2')?.content).toBe(headTail(record[7]!.content!, 100));
    expect(reads).toEqual([[7, record.length]]);
    expect(view.chars).toBe(totalChars(view.messages));
  });

  it('only new record messages are appended while the state is unchanged', () => {
    const record = recordOf(2);
    const builder = new ViewBuilder();
    const state = initialContextState(4);
    const first = builder.viewFor(record, state);
    const firstMessages = [...first.messages];
    record.push({ role: 'user', content: 'more' });
    const next = builder.viewFor(record, state);
    // Appended in place: a step costs the new messages only, not a copy of the view.
    expect(next).toBe(first);
    expect(next.messages.slice(0, firstMessages.length)).toEqual(firstMessages);
    expect(next.messages.at(-1)).toEqual({ role: 'user', content: 'more' });
    expect(next.sources.at(-1)).toBe(record.length - 1);
  });

  it("a record shorter than what the builder has seen (another run's record) starts the view over", () => {
    const builder = new ViewBuilder();
    const state = initialContextState(4);
    builder.viewFor(recordOf(4), state);
    const shorter = recordOf(1);
    const view = builder.viewFor(shorter, state);
    expect(view.messages).toEqual(shorter);
    expect(view.sources).toEqual([0, 1, 2, 3]);
    expect(view.chars).toBe(totalChars(shorter));
  });
});
