// A tool that says where it belongs and runs a command in the run's sandbox: a linter that fixes what it can,
// offered in the fix phase only. Use it with `rein run --config run-linter-tool.ts …`;
// `rein rules tools --config run-linter-tool.ts` lists the phases that offer it.
import { type AnyTool, type RulesInput, runCommand } from 'rein';
import { z } from 'zod';

/** The linter, fixing what it can: eslint by default, or the command in LINT_COMMAND (`ruff check --fix .`). */
const LINT = process.env.LINT_COMMAND ?? 'npx eslint --fix .';

export const tools: AnyTool[] = [
  {
    name: 'run_linter',
    description: `Run the linter on the repository (${LINT}); it fixes what it can and prints what is left.`,
    parameters: z.strictObject({}),
    // Offered in fix only. The rules still decide: tools.phases.run_linter places it elsewhere, and a phase whose
    // tools list names run_linter offers it too.
    phases: ['fix'],
    execute: async (_args, ctx) => {
      // The context carries the run's sandbox, its command policy and limits: the linter runs as the model's
      // own commands do (the deny list, the sandbox, the timeout, output cut to head and tail).
      const lint = await runCommand(LINT, ctx);
      if (lint.ending !== 'exited') return { content: `The linter did not run: ${lint.failure ?? lint.ending}.`, ok: false, effect: { kind: 'none' } };
      return {
        content: `exit=${lint.exitCode}\n${lint.output}`,
        ok: true,
        // A command effect: the stall rules, the trace and the visualizer count it as a command the model ran.
        effect: { kind: 'command', command: LINT, exitCode: lint.exitCode, timedOut: false, blocked: false },
      };
    },
  },
];

export default {} satisfies RulesInput;
