import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manageContext, summaryRange, type ContextRules } from '../../context/context-manager.js';
import { initialContextState } from '../../context/context-state.js';
import { halfLifeCap } from '../../context/elision.js';
import type { ChatMessage } from '../../context/messages.js';
import { ViewBuilder } from '../../context/view-builder.js';
import { checkPairing } from '../../context/pairing.js';

const seedRules: ContextRules = { enabled: true, windowTokens: 15_000, soft: 0.6, hard: 0.85, keepRecent: 4, baseCap: 2000, floor: 120, summarize: true };

function recordWith(results: string[]): ChatMessage[] {
  const record: ChatMessage[] = [{ role: 'system', content: 'sys' }, { role: 'user', content: 'task' }];
  results.forEach((content, index) => {
    record.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${index}`, type: 'function', function: { name: 'run', arguments: '{}' } }] });
    record.push({ role: 'tool', tool_call_id: `c${index}`, content });
  });
  return record;
}

const fourThousand = (index: number) => `${index}`.padEnd(4000, `line ${index} of output\n`);

describe('half-life elision (stage 1)', () => {
  it('reproduces the seed: 12 results of ~4,000 chars become 198, 448×4, 948×2, 1,948, then 4 whole', () => {
    const record = recordWith(Array.from({ length: 12 }, (_, index) => fourThousand(index)));
    const frozen = JSON.stringify(record);
    const decision = manageContext(record, initialContextState(4), seedRules, new ViewBuilder(), { force: false, overheadTokens: 0 });
    const sizes = decision.view.messages.filter((message) => message.role === 'tool').map((message) => message.content.length);
    expect(sizes).toEqual([198, 448, 448, 448, 448, 948, 948, 1948, 4000, 4000, 4000, 4000]);
    expect(decision.action).toBe('elided');
    expect(JSON.stringify(record)).toBe(frozen);
    const assistantAndTask = decision.view.messages.filter((message) => message.role !== 'tool');
    expect(assistantAndTask).toEqual(record.filter((message) => message.role !== 'tool'));
  });

  it('a window learnt from a rejected prompt (windowCap) is honoured: a view that fits the rules\' window is cut below the cap', () => {
    const record = recordWith(Array.from({ length: 6 }, (_, index) => fourThousand(index)));
    const roomy = { ...seedRules, windowTokens: 32_000, summarize: false };
    const plain = manageContext(record, initialContextState(4), roomy, new ViewBuilder(), { force: false, overheadTokens: 0 });
    expect(plain.action).toBe('none');
    const capped = manageContext(record, { ...initialContextState(4), windowCap: Math.floor(plain.tokens * 0.75) }, roomy, new ViewBuilder(), { force: true, overheadTokens: 0 });
    expect(capped.action).toBe('elided');
    expect(capped.tokens).toBeLessThan(plain.tokens * 0.75);
  });

  it('a window too small for the newest results whole: they are shortened too (newest last), instead of the run ending', () => {
    const record = recordWith(Array.from({ length: 4 }, (_, index) => fourThousand(index)));
    const tiny = { ...seedRules, windowTokens: 3_000 };
    const decision = manageContext(record, initialContextState(4), tiny, new ViewBuilder(), { force: false, overheadTokens: 0 });
    expect(decision.action).toBe('elided');
    expect(decision.tokens).toBeLessThanOrEqual(tiny.hard * tiny.windowTokens);
    const sizes = decision.view.messages.filter((message) => message.role === 'tool').map((message) => message.content.length);
    // The newest result keeps the most; the record itself is untouched.
    expect(sizes.at(-1)).toBe(Math.max(...sizes));
    expect(sizes.every((size) => size < 4000) || sizes.at(-1) === 4000).toBe(true);
    expect(record.filter((message) => message.role === 'tool').every((message) => message.content.length === 4000)).toBe(true);
    expect(checkPairing(decision.view.messages)).toEqual([]);
  });

  it('caps halve as age doubles, with the floor', () => {
    const params = { keepRecent: 4, baseCap: 2000, floor: 120 };
    expect([0, 3, 4, 5, 6, 7, 10, 11, 18, 19, 34, 35, 1000].map((age) => halfLifeCap(age, params))).toEqual([null, null, 2000, 1000, 1000, 500, 500, 250, 250, 125, 125, 120, 120]);
  });

  it('below the soft limit the view is the record, append-only', () => {
    const record = recordWith(['a', 'b']);
    const builder = new ViewBuilder();
    const first = manageContext(record, initialContextState(4), seedRules, builder, { force: false, overheadTokens: 0 });
    expect(first.view.messages).toEqual(record);
    expect(first.action).toBe('none');
  });

  it('freezes caps between threshold crossings: later steps only append (prefix stays byte-identical)', () => {
    const record = recordWith(Array.from({ length: 12 }, (_, index) => fourThousand(index)));
    const builder = new ViewBuilder();
    let decision = manageContext(record, initialContextState(4), seedRules, builder, { force: false, overheadTokens: 0 });
    const before = JSON.stringify(decision.view.messages);
    record.push(...recordWith([fourThousand(12)]).slice(2));
    decision = manageContext(record, decision.state, seedRules, builder, { force: false, overheadTokens: 0 });
    expect(decision.action).toBe('none');
    expect(JSON.stringify(decision.view.messages).startsWith(before.slice(0, -1))).toBe(true);
  });

  it('a later pass caps only the results added since the last one, tighter if needed, leaving every earlier byte of the view as it was', () => {
    // A window where capping the new results by age alone would not leave enough room: they are capped tighter instead.
    const roomy = { ...seedRules, windowTokens: 14_000, summarize: false };
    const record = recordWith(Array.from({ length: 14 }, (_, index) => fourThousand(index)));
    const builder = new ViewBuilder();
    const first = manageContext(record, initialContextState(4), roomy, builder, { force: false, overheadTokens: 0 });
    expect(first.action).toBe('elided');
    // Copied now: the builder appends to the same view as the record grows.
    const firstWhole = first.view.messages.length - 2 * roomy.keepRecent;
    const kept = JSON.stringify(first.view.messages.slice(0, firstWhole));
    let decision = first;
    for (let step = 14; step < 60; step++) {
      record.push(...recordWith([fourThousand(step)]).slice(2));
      decision = manageContext(record, decision.state, roomy, builder, { force: false, overheadTokens: 0 });
      if (decision.action === 'elided') break;
    }
    expect(decision.action).toBe('elided');
    // Everything before the results the first pass left whole is byte for byte the first pass's view.
    expect(JSON.stringify(decision.view.messages.slice(0, firstWhole))).toBe(kept);
    expect(decision.tokens).toBeLessThan((roomy.soft - 0.15) * roomy.windowTokens);
  });

  it('an elided result never grows back when a later pass recomputes caps', () => {
    const record = recordWith(Array.from({ length: 30 }, (_, index) => fourThousand(index)));
    const builder = new ViewBuilder();
    const state = initialContextState(4);
    const first = manageContext(record, state, seedRules, builder, { force: true, overheadTokens: 0 });
    const second = manageContext(record, first.state, seedRules, builder, { force: true, overheadTokens: 0 });
    const sizes = (view: ChatMessage[]) => view.filter((message) => message.role === 'tool').map((message) => message.content.length);
    sizes(second.view.messages).forEach((size, index) => expect(size).toBeLessThanOrEqual(sizes(first.view.messages)[index]!));
  });

  it('asks for a summary over the hard limit, and falls back to floor elision after 2 summary failures', () => {
    const big = recordWith(Array.from({ length: 40 }, (_, index) => fourThousand(index)));
    const small: ContextRules = { ...seedRules, windowTokens: 3000 };
    const decision = manageContext(big, initialContextState(4), small, new ViewBuilder(), { force: false, overheadTokens: 0 });
    expect(decision.action).toBe('summarize');
    const exhausted = { ...initialContextState(4), summaryFailures: 2 };
    const fallback = manageContext(big, exhausted, small, new ViewBuilder(), { force: true, overheadTokens: 0 });
    expect(fallback.action).not.toBe('summarize');
    const old = fallback.view.messages.filter((message) => message.role === 'tool').slice(0, -4);
    expect(Math.max(...old.map((message) => message.content.length))).toBeLessThanOrEqual(120);
  });

  it('with context management off, reports overflow once the window is full', () => {
    const record = recordWith(Array.from({ length: 20 }, (_, index) => fourThousand(index)));
    const off = { ...seedRules, enabled: false };
    const decision = manageContext(record, initialContextState(4), off, new ViewBuilder(), { force: false, overheadTokens: 0 });
    expect(decision.action).toBe('overflow');
    expect(decision.view.messages).toEqual(record);
  });
});

describe('view invariant: every tool call is answered right after it, no orphan results', () => {
  const arbitraryRecord = fc.array(
    fc.record({ calls: fc.integer({ min: 0, max: 3 }), size: fc.integer({ min: 1, max: 9000 }), note: fc.boolean() }),
    { minLength: 1, maxLength: 60 },
  ).map((turns) => {
    const record: ChatMessage[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'task' }];
    turns.forEach((turn, index) => {
      const calls = Array.from({ length: turn.calls }, (_, call) => ({ id: `t${index}c${call}`, type: 'function' as const, function: { name: 'run', arguments: '{}' } }));
      record.push(calls.length > 0 ? { role: 'assistant', content: null, tool_calls: calls } : { role: 'assistant', content: 'thinking' });
      for (const call of calls) record.push({ role: 'tool', tool_call_id: call.id, content: 'x'.repeat(turn.size) });
      if (turn.note) record.push({ role: 'user', content: '[harness] nudge' });
    });
    return record;
  });

  it('holds for elided views and for views with a summary, over random records', () => {
    fc.assert(fc.property(arbitraryRecord, fc.integer({ min: 500, max: 20_000 }), fc.boolean(), (record, windowTokens, summarized) => {
      const rules = { ...seedRules, windowTokens };
      let state = initialContextState(4);
      if (summarized) {
        const range = summaryRange(record, state);
        if (range) state = { ...state, summary: { text: 'summary', through: range.through }, version: 1 };
      }
      const decision = manageContext(record, state, rules, new ViewBuilder(), { force: true, overheadTokens: 0 });
      expect(checkPairing(decision.view.messages)).toEqual([]);
      expect(decision.view.messages[0]).toBe(record[0]);
      expect(decision.view.messages[1]).toBe(record[1]);
    }), { numRuns: 300 });
  });

  it('an incremental view equals a view rebuilt from scratch', () => {
    fc.assert(fc.property(arbitraryRecord, (record) => {
      const builder = new ViewBuilder();
      let state = initialContextState(4);
      for (let length = 3; length <= record.length; length += 3) {
        state = manageContext(record.slice(0, length), state, seedRules, builder, { force: false, overheadTokens: 0 }).state;
      }
      const incremental = manageContext(record, state, seedRules, builder, { force: false, overheadTokens: 0 });
      const fresh = new ViewBuilder().viewFor(record, incremental.state);
      expect(incremental.view.messages).toEqual(fresh.messages);
    }), { numRuns: 200 });
  });
});
