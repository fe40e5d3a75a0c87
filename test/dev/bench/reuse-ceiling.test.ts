import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../context/messages.js';
import { totalChars } from '../../../context/messages.js';
import { budgetCeiling, compactingCeiling, reuseCeiling, sessionRecord } from '../../../dev/bench/prefix-cache.js';
import { describeReuseTarget } from '../../../dev/bench/sections/prompt-cache.js';

/** A head and `steps` calls with results of one size, so every step's pair has the same bytes and characters. */
function evenRecord(steps: number, resultChars: number): ChatMessage[] {
  const record: ChatMessage[] = [
    { role: 'system', content: 'You are a software agent.' },
    { role: 'user', content: 'Fix the parser.' },
  ];
  for (let step = 1; step <= steps; step++) {
    const id = `call_${step}`;
    record.push({ role: 'assistant', content: 'Next.', tool_calls: [{ id, type: 'function', function: { name: 'run', arguments: '{}' } }] });
    record.push({ role: 'tool', tool_call_id: id, content: 'x'.repeat(resultChars) });
  }
  return record;
}

const pairBytes = (record: ChatMessage[]) => JSON.stringify(record.slice(2, 4)).length;
const pairChars = (record: ChatMessage[]) => totalChars(record.slice(2, 4));

describe('reuse ceilings of the prompt-cache bench', () => {
  it('without compactions, the ceiling is one minus the new calls and results over the bytes sent', () => {
    const record = evenRecord(6, 500);
    expect(reuseCeiling(record, 60_000)).toBeCloseTo(1 - (6 * pairBytes(record)) / 60_000, 12);
  });

  it('a peak the session never reaches forces no compaction and leaves the plain ceiling', () => {
    const record = evenRecord(6, 500);
    const ceiling = compactingCeiling(record, 60_000, { keepRecent: 2, peakChars: 1_000_000 });
    expect(ceiling).toEqual({ reuse: reuseCeiling(record, 60_000), compactions: 0 });
  });

  it('each step past the peak compacts down to the head and the newest results, which are sent again', () => {
    const record = evenRecord(6, 500);
    const head = totalChars(record.slice(0, 2));
    // Room for the head and two and a half steps: the third step passes the peak, and so does every one after
    // it, since a compaction keeps the newest two whole.
    const peakChars = head + 2.5 * pairChars(record);
    const ceiling = compactingCeiling(record, 60_000, { keepRecent: 2, peakChars });
    expect(ceiling.compactions).toBe(4);
    // Each compaction sends the older of the two newest results again, on top of the six new ones.
    expect(ceiling.reuse).toBeCloseTo(1 - ((6 + 4) * pairBytes(record)) / 60_000, 12);
  });

  it('a compaction that keeps three newest results sends two of them again, and leaves room for fewer steps before the next', () => {
    const record = evenRecord(6, 500);
    const head = totalChars(record.slice(0, 2));
    const peakChars = head + 3.5 * pairChars(record);
    const ceiling = compactingCeiling(record, 60_000, { keepRecent: 3, peakChars });
    expect(ceiling.compactions).toBe(3);
    expect(ceiling.reuse).toBeCloseTo(1 - ((6 + 3 * 2) * pairBytes(record)) / 60_000, 12);
  });

  it('on the bench session, keeping more results whole forces more compactions and lowers the ceiling', () => {
    const record = sessionRecord({ steps: 100, resultChars: 4000, windowTokens: 32_768, charsPerToken: 2.5 });
    const limits = { peakChars: 0.85 * 32_768 * 2.5 };
    const one = compactingCeiling(record, 3_000_000, { ...limits, keepRecent: 1 });
    const four = compactingCeiling(record, 3_000_000, { ...limits, keepRecent: 4 });
    expect(one.reuse).toBeCloseTo(reuseCeiling(record, 3_000_000), 12);
    expect(four.compactions).toBeGreaterThan(one.compactions);
    expect(four.reuse).toBeLessThan(one.reuse);
  });

  it('a byte budget the growing view would pass forces compactions the peak does not, and lowers the ceiling', () => {
    const record = evenRecord(8, 500);
    const limits = { keepRecent: 2, peakChars: 1_000_000 };
    // Every request whole, append-only: what sending everything costs.
    const appendOnly = Array.from({ length: 8 }, (_, step) => JSON.stringify(record.slice(0, 4 + 2 * step)).length).reduce((sum, size) => sum + size, 0);
    expect(budgetCeiling(record, appendOnly + 100, limits)).toEqual({ reuse: reuseCeiling(record, appendOnly + 100), compactions: 0 });
    const tight = budgetCeiling(record, appendOnly - 100, limits);
    expect(tight.compactions).toBe(1);
    // The one compaction sends the older of the two newest results again.
    expect(tight.reuse).toBeCloseTo(1 - (9 * pairBytes(record)) / (appendOnly - 100), 12);
    const tighter = budgetCeiling(record, appendOnly / 2, limits);
    expect(tighter.compactions).toBeGreaterThan(1);
    expect(tighter.reuse).toBeLessThan(tight.reuse);
    // Below what the head and the newest results alone take at every step, nothing fits.
    expect(budgetCeiling(record, 1000, limits)).toEqual({ reuse: Number.NaN, compactions: null });
  });

  it("on the bench session at 100 steps and 4 chars/token, the seed's bytes force twice the compactions the peak does", () => {
    const record = sessionRecord({ steps: 100, resultChars: 4000, windowTokens: 32_768, charsPerToken: 4 });
    const limits = { keepRecent: 4, peakChars: 0.85 * 32_768 * 4 };
    expect(compactingCeiling(record, 4_035_608, limits).compactions).toBe(3);
    const budget = budgetCeiling(record, 4_035_608, limits);
    expect(budget.compactions).toBe(6);
    expect(budget.reuse).toBeLessThan(0.9);
  });

  it('the text names the cases where no context manager can reach 90% reuse, and only those', () => {
    const rows = [
      { steps: 100, charsPerToken: 4, ceiling: 0.9 },
      { steps: 100, charsPerToken: 2.5, ceiling: 0.8818 },
      { steps: 500, charsPerToken: 2.5, ceiling: 0.899 },
    ];
    expect(describeReuseTarget(rows, 4)).toBe(
      'At 100 steps at 2.5 chars/token and 500 steps at 2.5 chars/token the tightest ceiling is below 90.0%: no context manager that keeps the newest 4 results whole ' +
        'and stays under the peak reuses 90.0% of its prompts while sending no more than the cheaper of the seed and rein before.',
    );
    expect(describeReuseTarget(rows.slice(0, 1), 4)).toBe('The tightest ceiling is at or above 90.0% in every case.');
  });
});
