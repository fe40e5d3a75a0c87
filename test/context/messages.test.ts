import { describe, expect, it } from 'vitest';
import { type ChatMessage, messageChars, totalChars } from '../../context/messages.js';
import { checkPairing } from '../../context/pairing.js';
import { WorkingView } from '../../context/working-view.js';

const call = (id: string, name = 'run', args = '{}') => ({ id, type: 'function' as const, function: { name, arguments: args } });

describe("the size of a message (the seed's measure, context/messages.ts)", () => {
  it("is its content, plus each tool call's id, name and arguments and 40 characters of framing", () => {
    expect(messageChars({ role: 'user', content: 'hello' })).toBe(5);
    expect(messageChars({ role: 'assistant', content: null })).toBe(0);
    expect(messageChars({ role: 'assistant', content: 'ok', tool_calls: [call('c1', 'run', '{"a":1}'), call('c22', 'grep', '{}')] })).toBe(
      2 + (2 + 3 + 7 + 40) + (3 + 4 + 2 + 40),
    );
    // A tool result counts its content only, whatever its call id.
    expect(messageChars({ role: 'tool', tool_call_id: 'a-long-call-id', content: 'abc' })).toBe(3);
  });

  it('a list is the sum of its messages', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'assistant', content: null, tool_calls: [call('c1')] },
      { role: 'tool', tool_call_id: 'c1', content: 'out' },
    ];
    expect(totalChars(messages)).toBe(3 + (2 + 3 + 2 + 40) + 3);
    expect(totalChars([])).toBe(0);
  });
});

describe('tool-call pairing (context/pairing.ts)', () => {
  it('a well-formed list has no problems: each call answered right after it, in any order', () => {
    expect(
      checkPairing([
        { role: 'user', content: 'task' },
        { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
        { role: 'tool', tool_call_id: 'b', content: '' },
        { role: 'tool', tool_call_id: 'a', content: '' },
        { role: 'assistant', content: 'done' },
      ]),
    ).toEqual([]);
  });

  it('names a result with no open call, a call left unanswered before the next message, and one never answered', () => {
    expect(
      checkPairing([
        { role: 'user', content: 'task' },
        { role: 'tool', tool_call_id: 'x', content: '' },
      ]),
    ).toEqual(['message 1: result for x has no open call']);
    expect(
      checkPairing([
        { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
        { role: 'tool', tool_call_id: 'a', content: '' },
        { role: 'user', content: 'next' },
      ]),
    ).toEqual(['message 2: calls b not answered before a user message']);
    expect(
      checkPairing([
        { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
        { role: 'assistant', content: 'next' },
      ]),
    ).toEqual(['message 1: calls a, b not answered before a assistant message']);
    expect(checkPairing([{ role: 'assistant', content: null, tool_calls: [call('a'), call('b')] }])).toEqual(['end: calls a, b never answered']);
  });

  it('a result answers only a call of the assistant message just before it', () => {
    expect(
      checkPairing([
        { role: 'assistant', content: null, tool_calls: [call('a')] },
        { role: 'tool', tool_call_id: 'a', content: '' },
        { role: 'user', content: 'more' },
        { role: 'tool', tool_call_id: 'a', content: '' },
      ]),
    ).toEqual(['message 3: result for a has no open call']);
  });
});

describe('the working view held in the machine context (context/working-view.ts)', () => {
  it('hands back the messages it was built with and persists as null', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'task' }];
    const view = new WorkingView(messages);
    expect(view.messages).toEqual([{ role: 'user', content: 'task' }]);
    expect(JSON.stringify({ view })).toBe('{"view":null}');
  });
});
