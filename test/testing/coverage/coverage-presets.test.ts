import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../../rules/presets.js';
import { coverage } from './coverage-helper.js';

// Each check explores a few thousand states: seconds alone, much longer on a loaded two-core machine.
// The presets have a file of their own so that they run beside the rule variations in coverage.test.ts.
describe('model-based coverage: every transition of every preset is taken', { timeout: 180_000 }, () => {
  for (const preset of PRESETS) {
    it(`preset ${preset.name}`, async () => {
      const { report, text, replay } = coverage(preset.rules, `preset ${preset.name}`);
      console.log(text);
      expect(
        report.missing.map((info) => info.key),
        text,
      ).toEqual([]);
      expect(report.unreachableStates, text).toEqual([]);
      expect(report.transitions.length).toBeGreaterThan(40);
      // Every covered transition, taken again by running its path with scripted actors via machine.provide().
      expect(report.witnesses.size).toBe(report.transitions.length);
      expect([...(await replay())]).toEqual([]);
    });
  }
});
