import { describe, expect, it } from 'vitest';
import { type CapSteps, capAt, elideContent, floorCaps, NO_CAPS, sameCaps } from '../../context/elision.js';
import { headTail } from '../../lib/head-tail.js';

const floor = { keepRecent: 2, floor: 120 };

describe('caps as a step function over record indices (context/elision.ts)', () => {
  it('a result is shown whole past `through` and before the first step; otherwise at the cap of the last step at or before it', () => {
    const caps: CapSteps = {
      steps: [
        [3, 500],
        [7, 120],
      ],
      through: 9,
    };
    expect([2, 3, 5, 6, 7, 9, 10].map((index) => capAt(caps, index))).toEqual([null, 500, 500, 500, 120, 120, null]);
    expect([0, 1, 50].map((index) => capAt(NO_CAPS, index))).toEqual([null, null, null]);
  });

  it('floors every result but the newest keepRecent, as one step, and leaves the newest uncapped', () => {
    const caps = floorCaps(NO_CAPS, [3, 5, 7, 9, 11, 13], { keepRecent: 4, floor: 120 });
    expect(caps).toEqual({ steps: [[3, 120]], through: 5 });
    expect([3, 5, 7, 13].map((index) => capAt(caps, index))).toEqual([120, 120, null, null]);
  });

  it('with no more results than keepRecent nothing is capped: the caps are still none', () => {
    const caps = floorCaps(NO_CAPS, [3, 5], floor);
    expect(caps).toEqual({ steps: [], through: -1 });
    expect(sameCaps(caps, NO_CAPS)).toBe(true);
    expect(sameCaps(floorCaps(NO_CAPS, [], floor), NO_CAPS)).toBe(true);
  });

  it('a negative keepRecent counts as none kept: every result is floored', () => {
    expect(floorCaps(NO_CAPS, [3, 5], { keepRecent: -1, floor: 120 })).toEqual({ steps: [[3, 120]], through: 5 });
  });

  it('an elided result never grows back: an earlier smaller cap stays, a larger one comes down to the floor', () => {
    const previous: CapSteps = {
      steps: [
        [3, 80],
        [5, 400],
      ],
      through: 5,
    };
    const caps = floorCaps(previous, [3, 5, 7, 9, 11], floor);
    expect([3, 5, 7, 9, 11].map((index) => capAt(caps, index))).toEqual([80, 120, 120, null, null]);
    expect(caps.through).toBe(7);
  });

  it('results up to frozenThrough keep the cap they have, so the prompt prefix they form stays byte-identical', () => {
    const previous: CapSteps = { steps: [[3, 400]], through: 3 };
    const frozen = floorCaps(previous, [3, 5, 7, 9, 11], floor, 3);
    expect([3, 5, 7, 9, 11].map((index) => capAt(frozen, index))).toEqual([400, 120, 120, null, null]);
    expect(frozen).toEqual({
      steps: [
        [3, 400],
        [5, 120],
      ],
      through: 7,
    });
    // Not frozen (a forced pass), the older cap comes down to the floor as well.
    expect(floorCaps(previous, [3, 5, 7, 9, 11], floor)).toEqual({ steps: [[3, 120]], through: 7 });
    // Frozen exactly at a result's index keeps that result as it is, here whole.
    expect([3, 5].map((index) => capAt(floorCaps(NO_CAPS, [3, 5, 7], { keepRecent: 0, floor: 120 }, 3), index))).toEqual([null, 120]);
  });

  it('the newest keepRecent keep the cap an earlier pass gave them', () => {
    const previous: CapSteps = { steps: [[9, 300]], through: 9 };
    const caps = floorCaps(previous, [3, 9], { keepRecent: 1, floor: 120 });
    expect([3, 9].map((index) => capAt(caps, index))).toEqual([120, 300]);
  });

  it('consecutive results with the same cap are one step; a change of cap starts a new one', () => {
    const previous: CapSteps = {
      steps: [
        [3, 80],
        [5, 500],
      ],
      through: 5,
    };
    expect(floorCaps(previous, [3, 5, 7, 9, 11, 13], floor).steps).toEqual([
      [3, 80],
      [5, 120],
    ]);
  });

  it('two cap functions are the same only when through and every step match', () => {
    const caps: CapSteps = {
      steps: [
        [3, 120],
        [7, 80],
      ],
      through: 9,
    };
    expect(
      sameCaps(caps, {
        steps: [
          [3, 120],
          [7, 80],
        ],
        through: 9,
      }),
    ).toBe(true);
    expect(
      sameCaps(caps, {
        steps: [
          [3, 120],
          [7, 80],
        ],
        through: 11,
      }),
    ).toBe(false);
    expect(sameCaps(caps, { steps: [[3, 120]], through: 9 })).toBe(false);
    expect(
      sameCaps(caps, {
        steps: [
          [3, 120],
          [8, 80],
        ],
        through: 9,
      }),
    ).toBe(false);
    expect(
      sameCaps(caps, {
        steps: [
          [3, 120],
          [7, 81],
        ],
        through: 9,
      }),
    ).toBe(false);
    expect(
      sameCaps(caps, {
        steps: [
          [4, 120],
          [7, 80],
        ],
        through: 9,
      }),
    ).toBe(false);
  });

  it('a result is shown whole without a cap, head and tail under one', () => {
    const text = 'x'.repeat(1000);
    expect(elideContent(text, null)).toBe(text);
    expect(elideContent(text, 120)).toBe(headTail(text, 120));
    expect(elideContent(text, 120).length).toBeLessThan(200);
  });
});
