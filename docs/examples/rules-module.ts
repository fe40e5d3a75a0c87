// A rules module: rules as data (the default export) plus a tool, a guard and an action of your own.
// Use it with `rein run --config rules-module.ts …` or `rein demo --config rules-module.ts`.
import { z } from 'zod';
import type { AnyTool, GuardRegistry, RuleActionRegistry, RulesInput } from '../../index.js';

/** A tool: registered once, it is offered in every phase whose tool list allows it (no need to list it in tools.enabled). */
export const tools: AnyTool[] = [
  {
    name: 'count_lines',
    description: 'Count the lines of a text.',
    parameters: z.strictObject({ text: z.string().describe('The text') }),
    execute: async (args) => {
      const { text } = args as { text: string };
      return { content: `${text.split('\n').length} lines`, ok: true, effect: { kind: 'none' } };
    },
  },
];

/** A guard with a reason: when the gate refuses finish, the model reads the reason. */
export const guards: GuardRegistry = {
  changelogUpdated: {
    summary: 'CHANGELOG.md was edited in the run.',
    test: (view) => (view.facts.editedPaths.includes('CHANGELOG.md') ? true : { holds: false, reason: 'add a line about your change to CHANGELOG.md' }),
  },
};

/** An action: run on entering a phase or taking an exit, it can queue a notice for the model. */
export const actions: RuleActionRegistry = {
  remindOpenItems: (view) => ({ notices: [`Open todo items: ${view.facts.todoOpen}.`] }),
};

const rules: RulesInput = {
  phases: { build: { onEnter: [{ action: 'remindOpenItems' }] } },
  verification: { when: { all: [{ guard: 'testsPassedSinceLastEdit' }, { guard: 'changelogUpdated' }] } },
};
export default rules;
