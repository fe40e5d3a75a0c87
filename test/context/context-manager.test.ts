import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ContextRules, manageContext, summaryRange } from '../../context/context-manager.js';
import { initialContextState } from '../../context/context-state.js';
import { NO_CAPS } from '../../context/elision.js';
import { type ChatMessage, totalChars } from '../../context/messages.js';
import { checkPairing } from '../../context/pairing.js';
import { ViewBuilder } from '../../context/view-builder.js';
import { halfLifeCap, manageContextStaged } from '../../dev/bench/staged-context.js';
import { headTail } from '../../tools/shaping/shape.js';

const seedRules: ContextRules = {
  enabled: true,
  windowTokens: 15_000,
  soft: 0.6,
  hard: 0.85,
  growth: 0.18,
  lowWater: 0.45,
  keepRecent: 4,
  floor: 120,
  summarize: true,
};

function recordWith(results: string[]): ChatMessage[] {
  const record: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'task' },
  ];
  results.forEach((content, index) => {
    record.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${index}`, type: 'function', function: { name: 'run', arguments: '{}' } }] });
    record.push({ role: 'tool', tool_call_id: `c${index}`, content });
  });
  return record;
}

const fourThousand = (index: number) => `${index}`.padEnd(4000, `line ${index} of output\n`);

describe("the seed's half-life schedule (the benchmark's baseline, bench/staged-context.ts)", () => {
  it('reproduces the seed: 12 results of ~4,000 chars become 198, 448×4, 948×2, 1,948, then 4 whole', () => {
    const record = recordWith(Array.from({ length: 12 }, (_, index) => fourThousand(index)));
    const decision = manageContextStaged(record, initialContextState(4), { ...seedRules, baseCap: 2000 }, new ViewBuilder(), {
      force: false,
      overheadTokens: 0,
    });
    const sizes = decision.view.messages.filter((message) => message.role === 'tool').map((message) => message.content.length);
    expect(sizes).toEqual([198, 448, 448, 448, 448, 948, 948, 1948, 4000, 4000, 4000, 4000]);
  });

  it('caps halve as age doubles, with the floor', () => {
    const params = { keepRecent: 4, baseCap: 2000, floor: 120 };
    expect([0, 3, 4, 5, 6, 7, 10, 11, 18, 19, 34, 35, 1000].map((age) => halfLifeCap(age, params))).toEqual([
      null,
      null,
      2000,
      1000,
      1000,
      500,
      500,
      250,
      250,
      125,
      125,
      120,
      120,
    ]);
  });
});

describe('compaction (stage 1): results older than the newest keepRecent go to the floor, as one block', () => {
  it("on the seed's example the 8 older results go to the floor and the 4 newest stay whole; the task, the model's messages and the record are untouched", () => {
    const record = recordWith(Array.from({ length: 12 }, (_, index) => fourThousand(index)));
    const frozen = JSON.stringify(record);
    const decision = manageContext(record, initialContextState(4), seedRules, new ViewBuilder(), { force: false, overheadTokens: 0 });
    const shown = decision.view.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    const originals = record.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(shown).toEqual(originals.map((content, index) => (index < 8 ? headTail(content, seedRules.floor) : content)));
    expect(shown.slice(0, 8).every((content) => content.length <= seedRules.floor)).toBe(true);
    expect(decision.action).toBe('elided');
    expect(JSON.stringify(record)).toBe(frozen);
    const assistantAndTask = decision.view.messages.filter((message) => message.role !== 'tool');
    expect(assistantAndTask).toEqual(record.filter((message) => message.role !== 'tool'));
  });

  it("a window learnt from a rejected prompt (windowCap) is honoured: a view that fits the rules' window is cut below the cap", () => {
    const record = recordWith(Array.from({ length: 6 }, (_, index) => fourThousand(index)));
    const roomy = { ...seedRules, windowTokens: 32_000, summarize: false };
    const plain = manageContext(record, initialContextState(4), roomy, new ViewBuilder(), { force: false, overheadTokens: 0 });
    expect(plain.action).toBe('none');
    const capped = manageContext(record, { ...initialContextState(4), windowCap: Math.floor(plain.tokens * 0.75) }, roomy, new ViewBuilder(), {
      force: true,
      overheadTokens: 0,
    });
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

  it('below the soft limit and before the view has grown by `growth` of the window, the view is the record, append-only', () => {
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

  it('a later pass caps only the results added since the last one, leaving every earlier byte of the view as it was, and ends below the low-water mark', () => {
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
    expect(decision.tokens).toBeLessThanOrEqual(roomy.lowWater * roomy.windowTokens);
  });

  it('an elided result never grows back when a later pass recomputes caps', () => {
    const record = recordWith(Array.from({ length: 30 }, (_, index) => fourThousand(index)));
    const builder = new ViewBuilder();
    const state = initialContextState(4);
    const first = manageContext(record, state, seedRules, builder, { force: true, overheadTokens: 0 });
    const second = manageContext(record, first.state, seedRules, builder, { force: true, overheadTokens: 0 });
    const sizes = (view: ChatMessage[]) => view.filter((message) => message.role === 'tool').map((message) => message.content.length);
    sizes(second.view.messages).forEach((size, index) => {
      expect(size).toBeLessThanOrEqual(sizes(first.view.messages)[index]!);
    });
  });

  it('asks for a summary when the floor pass leaves the view above the low-water mark, and stops asking after 2 summary failures', () => {
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
  const arbitraryRecord = fc
    .array(fc.record({ calls: fc.integer({ min: 0, max: 3 }), size: fc.integer({ min: 1, max: 9000 }), note: fc.boolean() }), { minLength: 1, maxLength: 60 })
    .map((turns) => {
      const record: ChatMessage[] = [
        { role: 'system', content: 's' },
        { role: 'user', content: 'task' },
      ];
      turns.forEach((turn, index) => {
        const calls = Array.from({ length: turn.calls }, (_, call) => ({
          id: `t${index}c${call}`,
          type: 'function' as const,
          function: { name: 'run', arguments: '{}' },
        }));
        record.push(calls.length > 0 ? { role: 'assistant', content: null, tool_calls: calls } : { role: 'assistant', content: 'thinking' });
        for (const call of calls) record.push({ role: 'tool', tool_call_id: call.id, content: 'x'.repeat(turn.size) });
        if (turn.note) record.push({ role: 'user', content: '[harness] nudge' });
      });
      return record;
    });

  it('holds for elided views and for views with a summary, over random records', () => {
    fc.assert(
      fc.property(arbitraryRecord, fc.integer({ min: 500, max: 20_000 }), fc.boolean(), (record, windowTokens, summarized) => {
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
      }),
      { numRuns: 300 },
    );
  });

  it('an incremental view equals a view rebuilt from scratch', () => {
    fc.assert(
      fc.property(arbitraryRecord, (record) => {
        const builder = new ViewBuilder();
        let state = initialContextState(4);
        for (let length = 3; length <= record.length; length += 3) {
          state = manageContext(record.slice(0, length), state, seedRules, builder, { force: false, overheadTokens: 0 }).state;
        }
        const incremental = manageContext(record, state, seedRules, builder, { force: false, overheadTokens: 0 });
        const fresh = new ViewBuilder().viewFor(record, incremental.state);
        expect(incremental.view.messages).toEqual(fresh.messages);
      }),
      { numRuns: 200 },
    );
  });
});

/** Drives the manager over a record growing by whole turns, as the machine does: a summary when asked for, then the manager again. */
function drive(record: ChatMessage[], rules: ContextRules, turns: number[]) {
  const builder = new ViewBuilder();
  let state = initialContextState(4);
  const passes: Array<{ length: number; action: string; tokens: number; before: number; view: ChatMessage[]; settledBefore: number | null }> = [];
  let length = 2;
  for (const count of turns) {
    length = Math.min(record.length, length + 2 * count);
    const slice = record.slice(0, length);
    const settledBefore = state.settled?.version === state.version ? Math.ceil(state.settled.chars / state.charsPerToken) : null;
    let decision = manageContext(slice, state, rules, builder, { force: false, overheadTokens: 0 });
    const action = decision.action;
    if (decision.action === 'summarize') {
      const fold = decision.state.fold!;
      expect(slice[fold.through + 1]!.role).not.toBe('tool');
      state = {
        ...decision.state,
        summary: { text: `folded ${fold.from}-${fold.through}`, through: fold.through },
        summaries: decision.state.summaries + 1,
        version: decision.state.version + 1,
      };
      decision = manageContext(slice, state, rules, builder, { force: false, overheadTokens: 0 });
    }
    state = decision.state;
    passes.push({ length, action, tokens: decision.tokens, before: decision.before.tokens, view: decision.view.messages.slice(), settledBefore });
  }
  return passes;
}

describe('append-only between compactions, each down to the low-water mark', () => {
  const results = Array.from({ length: 300 }, (_, index) => fourThousand(index));
  const rules: ContextRules = { ...seedRules, windowTokens: 32_768 };

  it('a request is the previous one plus the new messages, except when a compaction is due: the view grew by `growth` of the window or reached `soft`', () => {
    const record = recordWith(results);
    const passes = drive(
      record,
      rules,
      Array.from({ length: 300 }, () => 1),
    );
    let compactions = 0;
    passes.forEach((pass, index) => {
      if (index === 0) return;
      const previous = JSON.stringify(passes[index - 1]!.view).slice(0, -1);
      const appended = JSON.stringify(pass.view).startsWith(previous);
      if (pass.action === 'none') {
        expect(appended, `step ${index}`).toBe(true);
        return;
      }
      compactions++;
      const grown = pass.before - (pass.settledBefore ?? 0);
      expect(pass.before >= rules.soft * rules.windowTokens || grown >= rules.growth * rules.windowTokens, `step ${index}`).toBe(true);
      // After it (and its summary, if one was needed) the view is at or below the low-water mark.
      expect(pass.tokens, `step ${index}`).toBeLessThanOrEqual(rules.lowWater * rules.windowTokens);
    });
    // Rarely: a compaction every few results, not every step.
    expect(compactions).toBeGreaterThan(10);
    expect(compactions).toBeLessThan(passes.length / 4);
    expect(Math.max(...passes.map((pass) => pass.tokens))).toBeLessThanOrEqual(rules.soft * rules.windowTokens + 1100);
  });

  it('changing the rule changes the schedule: a larger growth compacts less often and keeps more of each prompt', () => {
    const record = recordWith(results.slice(0, 150));
    const count = (growth: number) =>
      drive(
        record,
        { ...rules, growth },
        Array.from({ length: 150 }, () => 1),
      ).filter((pass) => pass.action !== 'none').length;
    expect(count(0.3)).toBeLessThan(count(0.1));
  });

  it("keeps the seed's guarantees over random sessions: newest results whole, task and model messages as sent, no orphaned result, the peak within the hard limit", () => {
    const session = fc.record({
      sizes: fc.array(fc.integer({ min: 1, max: 9000 }), { minLength: 5, maxLength: 120 }),
      steps: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 5, maxLength: 120 }),
      windowTokens: fc.integer({ min: 6000, max: 40_000 }),
      growth: fc.double({ min: 0.05, max: 0.3, noNaN: true }),
    });
    fc.assert(
      fc.property(session, ({ sizes, steps, windowTokens, growth }) => {
        const record = recordWith(sizes.map((size, index) => `${index}`.padEnd(size, '.')));
        const sessionRules = { ...rules, windowTokens, growth };
        for (const pass of drive(record, sessionRules, steps)) {
          expect(checkPairing(pass.view)).toEqual([]);
          expect(pass.view[0]).toBe(record[0]);
          expect(pass.view[1]).toBe(record[1]);
          for (const message of pass.view) if (message.role === 'assistant') expect(record).toContain(message);
          const tools = pass.view.filter((message) => message.role === 'tool');
          const newest = record
            .slice(0, pass.length)
            .filter((message) => message.role === 'tool')
            .slice(-rules.keepRecent);
          // Whole, unless the newest results alone overflow the hard limit (the last resort shortens them).
          if (pass.tokens <= sessionRules.hard * windowTokens && newest.every((message) => tools.includes(message))) continue;
          expect(newest.reduce((sum, message) => sum + message.content.length, 0) / 4).toBeGreaterThan(sessionRules.hard * windowTokens - 2000);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('view builder over a record on disk', () => {
  it('a compaction rebuild reads back only the results whose cap changed, in one read from the first of them', () => {
    const record = recordWith(Array.from({ length: 34 }, (_, index) => fourThousand(index)));
    const reads: Array<[number, number]> = [];
    // A record that holds only its head and the messages since the last pass in memory, like the run's: older ones must be read back.
    const stored = {
      get length() {
        return record.length;
      },
      at(index: number) {
        if (index >= 2 && index < 50) throw new Error(`message ${index} is on disk`);
        return record[index];
      },
      slice(start: number, end: number) {
        reads.push([start, end]);
        return record.slice(start, end);
      },
    };
    const builder = new ViewBuilder();
    const partial = record.slice(0, 50);
    let state = manageContext(partial, initialContextState(4), { ...seedRules, windowTokens: 32_768 }, builder, { force: false, overheadTokens: 0 }).state;
    expect(state.caps.through).toBeGreaterThan(0);
    const firstBlockEnd = state.caps.through;
    // Later results arrive; the next pass floors only them.
    const decision = manageContext(stored, state, { ...seedRules, windowTokens: 32_768, growth: 0.01 }, builder, { force: false, overheadTokens: 0 });
    state = decision.state;
    expect(decision.action).toBe('elided');
    // The first result of the new block sits after its call (reused from the view as it was).
    expect(record[firstBlockEnd + 1]!.role).toBe('assistant');
    expect(reads).toEqual([[firstBlockEnd + 2, record.length]]);
    expect(decision.view.messages).toEqual(new ViewBuilder().viewFor(record, state).messages);
    expect(state.caps).not.toBe(NO_CAPS);
  });
});

describe('when a compaction is due, and what a pass records', () => {
  // One character a token and no overhead, so sizes are exact: a record of call/result pairs with 1,000-character results.
  const exact = (results: number) => recordWith(Array.from({ length: results }, (_, index) => `r${index}`.padEnd(1000, '.')));
  const pass = (record: ChatMessage[], rules: ContextRules, state = initialContextState(1), force = false, overheadTokens = 0) =>
    manageContext(record, state, rules, new ViewBuilder(), { force, overheadTokens });
  const roomy: ContextRules = { ...seedRules, windowTokens: 1_000_000, soft: 0.9, hard: 0.95, lowWater: 0.5, growth: 0.5, summarize: false };

  it("the estimate is the view's characters over chars-per-token, rounded up, plus the fixed overhead", () => {
    const record = exact(2);
    const decision = pass(record, roomy, initialContextState(3), false, 600);
    expect(decision.action).toBe('none');
    expect(decision.tokens).toBe(Math.ceil(decision.view.chars / 3) + 600);
    expect(decision.before).toEqual({ chars: decision.view.chars, tokens: decision.tokens });
  });

  it('with context management off, a view exactly the size of the window is not an overflow; one token more is', () => {
    const record = exact(3);
    const chars = pass(record, roomy).view.chars;
    expect(pass(record, { ...roomy, enabled: false, windowTokens: chars }).action).toBe('none');
    expect(pass(record, { ...roomy, enabled: false, windowTokens: chars - 1 }).action).toBe('overflow');
  });

  it('a view that reaches `soft` of the window exactly is compacted; one token below it is not', () => {
    const record = exact(6);
    const chars = pass(record, roomy).view.chars;
    const rules = { ...roomy, soft: 0.5, hard: 0.9, lowWater: 0.45, windowTokens: chars * 2 };
    expect(pass(record, rules).action).toBe('elided');
    expect(pass(record, { ...rules, windowTokens: chars * 2 + 2 }).action).toBe('none');
  });

  it('a view that has grown by exactly `growth` of the window since the last compaction is compacted; one character less is not', () => {
    const record = exact(6);
    const chars = pass(record, roomy).view.chars;
    const rules = { ...roomy, windowTokens: 8000, growth: 0.125 };
    const since = (grown: number) => ({ ...initialContextState(1), settled: { version: 0, chars: chars - grown } });
    expect(pass(record, rules, since(1000)).action).toBe('elided');
    expect(pass(record, rules, since(999)).action).toBe('none');
  });

  it('a pass that floors results counts one compaction and a new state version; a pass with nothing to floor changes neither', () => {
    const floored = pass(exact(6), roomy, initialContextState(1), true);
    expect(floored.action).toBe('elided');
    expect([floored.state.compactions, floored.state.version]).toEqual([1, 1]);
    const again = pass(exact(6), roomy, floored.state, true);
    expect([again.state.compactions, again.state.version, again.action]).toEqual([1, 1, 'none']);
    const nothing = pass(exact(3), roomy, initialContextState(1), true);
    expect([nothing.state.compactions, nothing.state.version, nothing.action]).toEqual([0, 0, 'none']);
    // The pass still records the view's size as the base the next compaction grows from.
    expect(nothing.state.settled).toEqual({ version: 0, chars: nothing.view.chars });
  });

  it('shortening the newest results too, for a window too small, is one compaction however many steps it takes', () => {
    const record = exact(4);
    const decision = pass(record, { ...seedRules, windowTokens: 1500, summarize: false }, initialContextState(1));
    expect(decision.action).toBe('elided');
    expect(decision.state.compactions).toBe(1);
    expect(decision.state.version).toBeGreaterThan(1);
    expect(decision.tokens).toBeLessThanOrEqual(0.85 * 1500);
  });

  it('a pass that needs no summary clears a fold still pending from an earlier one', () => {
    const record = exact(2);
    const chars = pass(record, roomy).view.chars;
    const pending = { ...initialContextState(1), settled: { version: 0, chars }, fold: { from: 2, through: 3 } };
    const decision = pass(record, roomy, pending);
    expect(decision.action).toBe('none');
    expect(decision.state.fold).toBeUndefined();
    expect(decision.state.settled).toEqual({ version: 0, chars });
  });
});

describe('what a summary folds (summaryRange)', () => {
  // record indices: 0 system, 1 task, then call 2+2i and result 3+2i.
  const record = (results: number) => recordWith(Array.from({ length: results }, (_, index) => `r${index}`.padEnd(1000, '.')));

  it('folds from after the head to before the last 8 messages', () => {
    expect(summaryRange(record(10), initialContextState(1))).toEqual({ from: 2, through: 13 });
  });

  it('after an earlier summary, folds from the message after it (its text is folded in too)', () => {
    expect(summaryRange(record(10), { ...initialContextState(1), summary: { text: 's', through: 9 } })).toEqual({ from: 10, through: 13 });
  });

  it('the kept part never starts with a tool result, whose call would be folded away', () => {
    const withNote: ChatMessage[] = [...record(10), { role: 'user', content: 'note' }];
    // The last 8 would start at index 15, a result: the kept part starts at its call instead.
    expect(summaryRange(withNote, initialContextState(1))).toEqual({ from: 2, through: 13 });
  });

  it('nothing to fold when the record is no longer than its head and the kept tail', () => {
    expect(summaryRange(record(4), initialContextState(1))).toBeNull();
  });

  it('keeps verbatim as many of the newest messages as fit in SUMMARY_KEEP of the low-water mark, when that is more than 8', () => {
    const full = record(20);
    const view = new ViewBuilder().viewFor(full, initialContextState(1));
    // 40,000 tokens × 0.5 × 0.35 = 7,000 characters: the newest 6 call/result pairs (1,047 each) fit, a seventh result does not.
    expect(summaryRange(full, initialContextState(1), { view, windowTokens: 40_000, lowWater: 0.5 })).toEqual({ from: 2, through: 29 });
    // When the whole view after the head would fit, there is nothing to fold.
    expect(summaryRange(full, initialContextState(1), { view, windowTokens: 10_000_000, lowWater: 0.5 })).toBeNull();
    // A small budget keeps the plain tail of 8.
    expect(summaryRange(full, initialContextState(1), { view, windowTokens: 4_000, lowWater: 0.5 })).toEqual({ from: 2, through: 33 });
  });
});

describe('the last resort, overflow and what a pass hands back', () => {
  // One character a token and no overhead; results of 1,000 characters, calls of 47 (`c0`..`c9`), head of 7.
  const exact = (results: number, task = 'task') => {
    const record = recordWith(Array.from({ length: results }, (_, index) => `r${index}`.padEnd(1000, '.')));
    record[1] = { role: 'user', content: task };
    return record;
  };
  const resultSizes = (messages: ChatMessage[]) => messages.filter((message) => message.role === 'tool').map((message) => message.content.length);
  const pass = (record: ChatMessage[], rules: ContextRules, state = initialContextState(1), force = false) =>
    manageContext(record, state, rules, new ViewBuilder(), { force, overheadTokens: 0 });
  const floored = headTail('r0'.padEnd(1000, '.'), 120).length;
  // 4 results whole: 7 + 4 × 47 + 4 × 1,000 = 4,195 tokens. Each result shortened saves 1,000 - floored.
  const tight: ContextRules = {
    ...seedRules,
    keepRecent: 4,
    floor: 120,
    summarize: false,
    soft: 0.6,
    hard: 0.5,
    windowTokens: 2 * (4195 - 2 * (1000 - floored)),
  };

  it('above the hard limit the newest results are shortened oldest first, and only until the view is at the hard limit', () => {
    // hard × window is exactly the size with the two oldest shortened: the two newest stay whole.
    const decision = pass(exact(4), tight);
    expect(decision.tokens).toBe(tight.hard * tight.windowTokens);
    expect(resultSizes(decision.view.messages)).toEqual([floored, floored, 1000, 1000]);
    expect(decision.action).toBe('elided');
    // One token less room, and the third goes too.
    const smaller = pass(exact(4), { ...tight, windowTokens: tight.windowTokens - 2 });
    expect(resultSizes(smaller.view.messages)).toEqual([floored, floored, floored, 1000]);
  });

  it('each change of caps is one new state version; a step with fewer results than it keeps changes nothing', () => {
    // 2 results and keepRecent 4: keeping 3 and 2 changes nothing; keeping 1, then 0, shortens one result each.
    const decision = pass(exact(2), { ...tight, windowTokens: 400 });
    expect(resultSizes(decision.view.messages)).toEqual([floored, floored]);
    expect(decision.state.version).toBe(2);
    expect(decision.state.compactions).toBe(1);
  });

  it('with context management on, a view that cannot be made to fit is an overflow; exactly the window is not', () => {
    // The task alone fills the window: nothing the manager may shorten or summarize.
    const window = 2000;
    const rules = { ...tight, windowTokens: window };
    const task = (size: number) => 'x'.repeat(size);
    const full = pass(exact(0, task(window - 7 + 4)), rules);
    expect(full.tokens).toBe(window);
    expect(full.action).toBe('none');
    const over = pass(exact(0, task(window - 7 + 5)), rules);
    expect(over.tokens).toBe(window + 1);
    expect(over.action).toBe('overflow');
    // With results too: every one is shortened, and it is still an overflow.
    const withResults = pass(exact(3, task(3 * window)), rules);
    expect(resultSizes(withResults.view.messages)).toEqual([floored, floored, floored]);
    expect(withResults.action).toBe('overflow');
  });

  it('a summary is asked for only above the low-water mark: a view exactly at it after the floor pass is not summarized', () => {
    const record = exact(12);
    const rules: ContextRules = { ...seedRules, keepRecent: 4, floor: 120, summarize: true, soft: 0.9, hard: 0.95, growth: 0.9, windowTokens: 1_000_000 };
    const afterFloor = pass(record, rules, initialContextState(1), true).tokens;
    const atMark = pass(record, { ...rules, lowWater: 0.5, windowTokens: afterFloor * 2 }, initialContextState(1), true);
    expect(atMark.tokens).toBe(afterFloor);
    expect(atMark.action).toBe('elided');
    const above = pass(record, { ...rules, lowWater: 0.5, windowTokens: afterFloor * 2 - 2 }, initialContextState(1), true);
    expect(above.action).toBe('summarize');
  });

  it('a pass that changes nothing still records the size the view has now as the base the next compaction grows from', () => {
    const record = exact(3);
    const roomy: ContextRules = { ...seedRules, windowTokens: 1_000_000, soft: 0.9, hard: 0.95, lowWater: 0.5, growth: 0.5, summarize: false };
    const chars = pass(record, roomy).view.chars;
    const grownSince = { ...initialContextState(1), settled: { version: 0, chars: chars - 500 } };
    const forced = pass(record, roomy, grownSince, true);
    expect([forced.action, forced.state.version]).toEqual(['none', 0]);
    expect(forced.state.settled).toEqual({ version: 0, chars });
  });
});

describe('how much a summary keeps verbatim (summaryRange with the view)', () => {
  const record = (results: number, first?: ChatMessage) => {
    const built = recordWith(Array.from({ length: results }, (_, index) => `r${index}`.padEnd(1000, '.')));
    if (first) built.splice(2, 0, first);
    return built;
  };

  it('the budget is the window in characters (tokens × chars per token) × lowWater × SUMMARY_KEEP; a message that fills it exactly is kept', () => {
    // 4,400 tokens × 4 characters × 0.35: 6,160 characters, filled by the newest 5 call/result pairs (1,048 each) and
    // the sixth result (920). Its call does not fit, so the kept part starts at that result and moves back to the call.
    const sixthResultOf = (size: number) => {
      const full = record(20);
      const sixth = full.length - 11;
      full[sixth] = { ...(full[sixth] as ChatMessage & { role: 'tool' }), content: 'r14'.padEnd(size, '.') };
      return full;
    };
    const keep = (full: ChatMessage[]) => ({ view: new ViewBuilder().viewFor(full, initialContextState(4)), windowTokens: 4400, lowWater: 1 });
    const fits = sixthResultOf(920);
    expect(totalChars(fits.slice(-11))).toBe(4400 * 4 * 0.35);
    expect(summaryRange(fits, initialContextState(4), keep(fits))).toEqual({ from: 2, through: fits.length - 13 });
    // One character more and the sixth result no longer fits: five pairs are kept.
    const over = sixthResultOf(921);
    expect(summaryRange(over, initialContextState(4), keep(over))).toEqual({ from: 2, through: over.length - 11 });
    // The same view at 1 character a token keeps a quarter as much: the plain tail of 8.
    expect(summaryRange(fits, initialContextState(1), { ...keep(fits), windowTokens: 4400 })).toEqual({ from: 2, through: fits.length - 9 });
  });

  it('when every message after the head fits, there is nothing to fold, whatever the first of them is', () => {
    const full = record(10, { role: 'assistant', content: 'looking around' });
    const view = new ViewBuilder().viewFor(full, initialContextState(1));
    expect(summaryRange(full, initialContextState(1), { view, windowTokens: 1_000_000, lowWater: 1 })).toBeNull();
  });
});
