import { describe, expect, it } from 'vitest';
import { formatInertRules, inertRules } from '../../machines/inert-rules.js';
import { PRESETS } from '../../rules/presets.js';
import { defaultRules, rulesSchema } from '../../rules/schema.js';

// rein rules check: what a rules file says that can never fire or changes nothing (machines/inert-rules.ts).

const inert = (input: unknown) => inertRules(rulesSchema.parse(input));

describe('nothing in a rules file is silently without effect', () => {
  it('the defaults and the presets have nothing inert', () => {
    expect(inertRules(defaultRules())).toEqual([]);
    for (const preset of PRESETS)
      expect(
        inert(preset.rules).filter((entry) => entry.level === 'warning'),
        preset.name,
      ).toEqual([]);
    // A default the rules inherit unchanged is information: bash-only offers no file tools, so the file stall rules never fire.
    const bashOnly = inert(PRESETS.find((preset) => preset.name === 'bash-only')!.rules);
    expect(bashOnly.map((entry) => `${entry.level} ${entry.where} ${entry.what}`)).toContain('info stall.rules editThrash');
  });

  it('an exit whose guard needs a tool the phase does not offer: named with the tool and the fix; a working exit is not', () => {
    const readOnly = ['read_file', 'grep', 'update_todo', 'finish'];
    const found = inert({
      phases: {
        plan: {
          tools: readOnly,
          exits: [
            { guard: 'editMade', to: 'verify' },
            { guard: 'phaseSteps', min: 2, to: 'build' },
          ],
        },
      },
    });
    expect(found).toEqual([
      {
        level: 'warning',
        where: 'phases.plan.exits',
        what: 'editMade → verify',
        why: 'editMade needs edits, and phase plan offers neither edit_file nor run with verification.commandsCountAsEdits',
        fix: 'add edit_file to phases.plan.tools, or remove the exit',
      },
    ]);
    expect(inert({ phases: { plan: { tools: [...readOnly, 'edit_file'], exits: [{ guard: 'editMade', to: 'build' }] } } })).toEqual([]);
    const todo = inert({ phases: { plan: { tools: ['read_file', 'finish'], exits: [{ guard: 'todoWritten', to: 'build' }] } } });
    expect(todo.map((entry) => entry.why)).toEqual(['todoWritten needs the update_todo tool, which phase plan does not offer']);
  });

  it('an exit an earlier one always beats: no condition, the same condition, or a lower threshold of the same count', () => {
    const shadowed = (exits: unknown[]) => inert({ phases: { build: { exitsPrepend: exits } } }).map((entry) => `${entry.what}: ${entry.why}`);
    expect(
      shadowed([
        { guard: 'phaseSteps', min: 2, to: 'verify' },
        { guard: 'phaseSteps', min: 5, to: 'fix' },
      ]),
    ).toEqual(['phaseSteps(min=5) → fix: the earlier exit phaseSteps(min=2) → verify is tried first and holds whenever this one does']);
    expect(
      shadowed([
        { guard: 'phaseSteps', min: 5, to: 'verify' },
        { guard: 'phaseSteps', min: 2, to: 'fix' },
      ]),
    ).toEqual([]);
    expect(
      shadowed([
        { guard: 'always', to: 'verify' },
        { guard: 'todoWritten', to: 'fix' },
      ])[0],
    ).toMatch(/^todoWritten → fix: the earlier exit always → verify/);
  });

  it('an every-phase exit that cannot fire in one phase but fires in others is information, not a warning', () => {
    const plan = { tools: ['read_file', 'grep', 'update_todo', 'finish'], exits: [{ guard: 'todoWritten', to: 'build' }] };
    const found = inert({ phases: { plan, '*': { exitsAppend: [{ guard: 'editMade', to: 'verify' }] } } });
    expect(found.filter((entry) => entry.level === 'warning')).toEqual([]);
    expect(found.map((entry) => `${entry.level} ${entry.where}`)).toContain('info phases.plan.exits');
  });

  it('a phase nothing enters, a phase step limit the run budget reaches first, stall limits that compare nothing', () => {
    const found = inert({
      budgets: { maxSteps: 30 },
      phases: { verify: { exits: [{ guard: 'always', to: 'done' }] }, fix: { maxSteps: 30, stallLimits: { repeatedFailure: 2 } } },
      stall: { enabled: false },
    });
    const lines = formatInertRules(found);
    expect(lines.some((line) => line.startsWith('warning: phases.fix: phase fix never fires') && line.includes('no exit of another phase'))).toBe(true);
    expect(lines).toContainEqual(
      expect.stringContaining("phases.fix.maxSteps: maxSteps 30 never fires or changes nothing: the run's own step budget (budgets.maxSteps 30)"),
    );
    expect(lines).toContainEqual(
      expect.stringContaining('phases.fix.stallLimits.repeatedFailure: stall limit repeatedFailure never fires or changes nothing: stall.enabled is false'),
    );
  });

  it('a notice on an exit that ends the run is never read', () => {
    const found = inert({
      phases: { build: { exitsPrepend: [{ guard: 'phaseSteps', min: 9, to: 'failed', actions: [{ action: 'notify', text: 'too long' }] }] } },
    });
    expect(found.map((entry) => entry.what)).toEqual(['phaseSteps(min=9) → failed: notify']);
  });
});
