import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mcnemarExact, mcnemarP } from '../../eval/mcnemar.js';

/** P(min(heads, tails) ≤ k) over all 2^n equally likely flip directions, by enumeration. */
function bruteForceP(onlyA: number, onlyB: number): number {
  const n = onlyA + onlyB;
  const k = Math.min(onlyA, onlyB);
  let extreme = 0;
  for (let outcome = 0; outcome < 2 ** n; outcome++) {
    let heads = 0;
    for (let bit = 0; bit < n; bit++) heads += (outcome >> bit) & 1;
    if (Math.min(heads, n - heads) <= k) extreme++;
  }
  return extreme / 2 ** n;
}

describe('exact McNemar test', () => {
  it("gives the seed's sanity values: 8 flips one way p = 0.0078, 5 and 3 p = 0.7266", () => {
    expect(mcnemarP(8, 0)).toBe(0.0078);
    expect(mcnemarP(0, 8)).toBe(0.0078);
    expect(mcnemarP(5, 3)).toBe(0.7266);
    expect(mcnemarP(3, 5)).toBe(0.7266);
  });

  it('is 1 with no flips or a balanced split, and rounds half to even like Python round(p, 4)', () => {
    expect(mcnemarP(0, 0)).toBe(1);
    expect(mcnemarP(4, 4)).toBe(1);
    expect(mcnemarP(1, 0)).toBe(1);
    expect(mcnemarP(6, 0)).toBe(0.0312); // 2/64 = 0.03125 exactly
    expect(mcnemarP(10, 0)).toBe(0.002); // 2/1024 = 0.001953125
    expect(mcnemarP(5, 1)).toBe(0.2188); // 14/64 = 0.21875: a tie on an odd digit rounds up
    expect(mcnemarP(1, 5)).toBe(0.2188);
  });

  it('refuses flip counts that are negative or not whole numbers, naming the problem', () => {
    for (const [onlyA, onlyB] of [
      [-1, 0],
      [0, -1],
      [1.5, 0],
      [0, 2.5],
      [Number.NaN, 1],
    ] as const) {
      expect(() => mcnemarP(onlyA, onlyB)).toThrow(new RangeError('flip counts must be whole numbers ≥ 0'));
    }
  });

  it('matches a brute-force enumeration of every outcome for up to 14 flips', () => {
    for (let n = 0; n <= 14; n++) {
      for (let onlyA = 0; onlyA <= n; onlyA++) {
        const brute = n === 0 ? 1 : bruteForceP(onlyA, n - onlyA);
        expect(Math.abs(mcnemarP(onlyA, n - onlyA) - brute)).toBeLessThanOrEqual(0.00005 + 1e-12);
      }
    }
  });

  it('is symmetric, at most 1, and falls as the split gets more lopsided', () => {
    fc.assert(
      fc.property(fc.nat(300), fc.nat(300), (a, b) => {
        const p = mcnemarP(a, b);
        expect(p).toBe(mcnemarP(b, a));
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        if (a > b) expect(mcnemarP(a + 1, b)).toBeLessThanOrEqual(p);
      }),
    );
  });

  it("pairs two task → solved maps like the seed's mcnemar_exact, ignoring tasks on one side only", () => {
    const a = { t1: true, t2: true, t3: false, t4: true, only_in_a: true };
    const b = { t1: false, t2: true, t3: true, t4: false, only_in_b: false };
    expect(mcnemarExact(a, b)).toEqual({ tasks: 4, only_a: 2, only_b: 1, p_value: 1 });
    const eight = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`t${index}`, true]));
    const lost = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`t${index}`, index >= 8]));
    expect(mcnemarExact(eight, lost)).toEqual({ tasks: 10, only_a: 8, only_b: 0, p_value: 0.0078 });
  });

  it('agrees with a direct count over every paired outcome of a 4-task set', () => {
    const outcomes: Array<[boolean, boolean]> = [
      [true, true],
      [true, false],
      [false, true],
      [false, false],
    ];
    for (let code = 0; code < 4 ** 4; code++) {
      const a: Record<string, boolean> = {};
      const b: Record<string, boolean> = {};
      let onlyA = 0;
      let onlyB = 0;
      for (let task = 0; task < 4; task++) {
        const [x, y] = outcomes[Math.floor(code / 4 ** task) % 4]!;
        a[`t${task}`] = x;
        b[`t${task}`] = y;
        if (x && !y) onlyA++;
        if (y && !x) onlyB++;
      }
      const result = mcnemarExact(a, b);
      expect([result.only_a, result.only_b]).toEqual([onlyA, onlyB]);
      expect(Math.abs(result.p_value - (onlyA + onlyB === 0 ? 1 : bruteForceP(onlyA, onlyB)))).toBeLessThanOrEqual(0.00005 + 1e-12);
    }
  });
});
