import { headTail } from '../lib/head-tail.js';

/**
 * Caps as a step function over record indices: `[fromIndex, cap]` pairs with
 * rising indices. A tool message at index i, up to `through`, is shown at the
 * cap of the last step whose `fromIndex <= i`. Results are capped in runs
 * (a whole block at once), so a handful of steps describes any number of
 * elided results, and the state stays small.
 */
export interface CapSteps {
  steps: Array<[number, number]>;
  through: number;
}

// Stryker disable next-line UnaryOperator: through is only compared with result indices, which start after the head (2 or more), so -1 and 1 both mean none capped
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

/** Which results a pass caps: all but the newest `keepRecent`, at `floor` characters. */
interface FloorParams {
  keepRecent: number;
  floor: number;
}

/**
 * Caps every tool result at `toolIndices` (record indices, oldest first)
 * except the newest `keepRecent` at `floor`, merged with the caps already in
 * force by taking the smaller: an elided result never grows back. Results up
 * to `frozenThrough` keep the cap they have, so the prompt prefix they form
 * stays byte-identical; only the block after it changes.
 *
 * @example floorCaps(NO_CAPS, [3, 5, 7, 9, 11, 13], { keepRecent: 4, floor: 120 }) // { steps: [[3, 120]], through: 5 }
 */
// Stryker disable next-line UnaryOperator: frozenThrough is only compared with result indices, which start after the head (2 or more), so -1 and 1 both freeze none
export function floorCaps(previous: CapSteps, toolIndices: readonly number[], params: FloorParams, frozenThrough = -1): CapSteps {
  const pairs: Array<[number, number]> = [];
  const older = Math.max(0, toolIndices.length - Math.max(0, params.keepRecent));
  let through = previous.through;
  for (let position = 0; position < toolIndices.length; position++) {
    const index = toolIndices[position]!;
    const old = capAt(previous, index);
    if (position >= older || index <= frozenThrough) {
      if (old !== null) pairs.push([index, old]);
      continue;
    }
    pairs.push([index, old === null ? params.floor : Math.min(old, params.floor)]);
    through = Math.max(through, index);
  }
  return { steps: compressSteps(pairs), through };
}

/** True when two cap functions are the same. */
export function sameCaps(a: CapSteps, b: CapSteps): boolean {
  return (
    a.through === b.through &&
    a.steps.length === b.steps.length &&
    a.steps.every(([from, cap], index) => b.steps[index]![0] === from && b.steps[index]![1] === cap)
  );
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
