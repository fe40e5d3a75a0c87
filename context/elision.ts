import { headTail } from '../tools/shape.js';

/** Parameters of the half-life schedule (seed component 4, stage 1). */
export interface HalfLifeParams {
  keepRecent: number;
  baseCap: number;
  floor: number;
}

/**
 * Character cap for a tool result of the given age (0 = newest), or null when
 * it is one of the newest `keepRecent` and stays whole. As a result's age
 * doubles its cap halves: tiers 0,1,1,2,2,2,2,… of `baseCap >> tier`, never
 * below `floor`. `shift` tightens every tier for a harder pass.
 *
 * @example halfLifeCap(4, { keepRecent: 4, baseCap: 2000, floor: 120 }) // 2000
 */
export function halfLifeCap(age: number, params: HalfLifeParams, shift = 0): number | null {
  if (age < params.keepRecent) return null;
  const tier = Math.floor(Math.log2(age - params.keepRecent + 1)) + shift;
  return Math.max(params.baseCap >> Math.min(tier, 30), params.floor);
}

/**
 * Caps as a step function over record indices: `[fromIndex, cap]` pairs with
 * rising indices and rising caps (older results are capped harder). A tool
 * message at index i, up to `through`, is shown at the cap of the last step
 * whose `fromIndex <= i`. Half-life caps are monotone in age, so a handful of
 * steps describes any number of elided results, and the state stays small.
 */
export interface CapSteps {
  steps: Array<[number, number]>;
  through: number;
}

export const NO_CAPS: CapSteps = { steps: [], through: -1 };

/** The cap that applies to record index `index`, or null when it is shown whole. */
export function capAt(caps: CapSteps, index: number): number | null {
  if (index > caps.through) return null;
  let cap: number | null = null;
  for (const [from, value] of caps.steps) {
    if (from > index) break;
    cap = value;
  }
  return cap;
}

/**
 * Half-life caps for the tool results at `toolIndices` (record indices,
 * oldest first), merged with the caps already in force by taking the smaller:
 * an elided result never grows back, so elision only ever changes the prefix
 * when a threshold is crossed. With `frozenThrough`, only results after that
 * record index are capped (by their age in the whole list).
 */
export function tightenCaps(previous: CapSteps, toolIndices: readonly number[], params: HalfLifeParams, shift = 0, frozenThrough = -1): CapSteps {
  const pairs: Array<[number, number]> = [];
  const count = toolIndices.length;
  let through = previous.through;
  for (let position = 0; position < count; position++) {
    const index = toolIndices[position]!;
    const old = capAt(previous, index);
    // Results up to `frozenThrough` keep what they have, so the prompt prefix they form stays byte-identical.
    if (index <= frozenThrough) {
      if (old !== null) pairs.push([index, old]);
      continue;
    }
    const fresh = halfLifeCap(count - 1 - position, params, shift);
    const cap = fresh === null ? old : old === null ? fresh : Math.min(old, fresh);
    if (cap === null) continue;
    pairs.push([index, cap]);
    through = Math.max(through, index);
  }
  return { steps: compressSteps(pairs), through };
}

function compressSteps(pairs: Array<[number, number]>): Array<[number, number]> {
  const steps: Array<[number, number]> = [];
  for (const [index, cap] of pairs) {
    const last = steps[steps.length - 1];
    if (last && last[1] === cap) continue;
    steps.push([index, cap]);
  }
  return steps;
}

/** A tool result's content as the view shows it under `cap`. */
export function elideContent(content: string, cap: number | null): string {
  return cap === null ? content : headTail(content, cap);
}
