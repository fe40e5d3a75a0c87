import { describe, expect, it } from 'vitest';
// @ts-expect-error: the launcher's helpers are plain JavaScript next to it, without type declarations.
import { tuningToApply, V8_TUNING } from '../../cli/bin/v8-tuning.js';

// The launcher sets V8's tuning for a rein command before the CLI loads (cli/bin/rein.js): each flag unless the user
// set it, in node's flags or NODE_OPTIONS, spelled with dashes or with underscores.

describe("the launcher's V8 tuning", () => {
  it('applies every flag when the user set none', () => {
    expect(tuningToApply([], undefined)).toEqual(V8_TUNING);
    expect(V8_TUNING.map((flag: string) => flag.split('=')[0])).toEqual(['--interrupt-budget', '--heap-growing-percent']);
  });

  it('leaves a flag the user gave node or NODE_OPTIONS, in either spelling', () => {
    expect(tuningToApply(['--interrupt_budget=100'], '')).toEqual(['--heap-growing-percent=150']);
    expect(tuningToApply(['--max-semi-space-size=4'], '--heap-growing-percent=50  --trace-gc')).toEqual(['--interrupt-budget=1081344']);
  });
});
