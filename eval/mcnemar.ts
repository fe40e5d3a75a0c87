/** Result of the exact McNemar test on paired pass/fail outcomes, named as in the seed's `mcnemar_exact`. */
interface McNemarResult {
  tasks: number;
  /** Tasks A solved and B failed. */
  only_a: number;
  /** Tasks B solved and A failed. */
  only_b: number;
  /** Exact two-sided p-value, rounded to 4 places. */
  p_value: number;
}

/**
 * The exact two-sided McNemar p-value from the discordant counts: a
 * binomial test of `onlyA` vs `onlyB` flips at 1/2,
 * p = min(1, 2 · Σ_{i≤k} C(n, i) / 2^n) with n = onlyA + onlyB and
 * k = min(onlyA, onlyB); 1 when nothing flipped. Exact integer arithmetic
 * (BigInt), rounded to 4 places half-to-even, as the seed's Python
 * `round(p, 4)` does (6 flips to 0: p = 0.03125 → 0.0312).
 *
 * @example mcnemarP(8, 0) // 0.0078
 * @example mcnemarP(5, 3) // 0.7266
 */
export function mcnemarP(onlyA: number, onlyB: number): number {
  if (!Number.isInteger(onlyA) || !Number.isInteger(onlyB) || onlyA < 0 || onlyB < 0) throw new RangeError('flip counts must be whole numbers ≥ 0');
  const n = onlyA + onlyB;
  // Stryker disable next-line ConditionalExpression: a shortcut; with no flips the general path gives 2·1/2^0 ≥ 1 and returns 1 as well
  if (n === 0) return 1;
  const k = Math.min(onlyA, onlyB);
  let term = 1n;
  let tail = 1n;
  for (let i = 1; i <= k; i++) {
    term = (term * BigInt(n - i + 1)) / BigInt(i);
    tail += term;
  }
  const denominator = 1n << BigInt(n);
  const numerator = 2n * tail;
  // Stryker disable next-line EqualityOperator: at equality the rounding below gives exactly 1 too
  if (numerator >= denominator) return 1;
  return roundHalfEven(numerator * 10_000n, denominator) / 10_000;
}

/** numerator / denominator rounded to a whole number, ties to even. */
function roundHalfEven(numerator: bigint, denominator: bigint): number {
  const quotient = numerator / denominator;
  const twice = 2n * (numerator % denominator);
  const up = twice > denominator || (twice === denominator && quotient % 2n === 1n);
  return Number(up ? quotient + 1n : quotient);
}

/**
 * The seed's `mcnemar_exact`: pairs two task → solved maps on the tasks both
 * contain and tests the flips.
 *
 * @example mcnemarExact({ t1: true, t2: false }, { t1: false, t2: false }) // { tasks: 2, only_a: 1, only_b: 0, p_value: 1 }
 */
export function mcnemarExact(a: Record<string, boolean>, b: Record<string, boolean>): McNemarResult {
  const tasks = Object.keys(a).filter((task) => Object.hasOwn(b, task));
  const onlyA = tasks.filter((task) => a[task] && !b[task]).length;
  const onlyB = tasks.filter((task) => b[task] && !a[task]).length;
  return { tasks: tasks.length, only_a: onlyA, only_b: onlyB, p_value: mcnemarP(onlyA, onlyB) };
}
