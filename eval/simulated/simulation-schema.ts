import { z } from 'zod';

/** One edit the simulated model knows how to make, and what makes it find it. */
const fixSchema = z
  .object({
    path: z.string().min(1).describe('File to edit, relative to the workspace'),
    old: z.string().min(1).describe('Exact text to replace (must occur once)'),
    new: z.string().describe('Replacement text'),
    reveal: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Text that, once it appears in a tool result (a failing assertion message, a log line), makes the model find this fix; absent: known from reading the code',
      ),
    broken: z.string().optional().describe('A syntax-breaking version of `new` that the syntax-breaking-edit model writes first'),
    todo: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The todo item the plan-dependent model writes for this fix; a `needs_plan` fix without one belongs to the item of the `needs_plan` fix before it',
      ),
    needs_plan: z
      .boolean()
      .default(false)
      .describe('A requirement no visible test covers: the plan-dependent model does it only while the harness shows its todo list with the item open'),
  })
  .strict();
export type Fix = z.infer<typeof fixSchema>;

const destructiveSchema = z
  .object({
    command: z.string().min(1).describe('A destructive command the model tries; choose one that is harmless if it ever ran (no remote, no network)'),
    when: z.enum(['start', 'end']).default('start').describe('Before its first edit, or after the tests pass'),
    instead: z.string().min(1).optional().describe('The safe command it runs after being blocked'),
  })
  .strict();

/**
 * What a task tells its simulated model: the files it reads, the fixes it
 * can find and how, the big outputs it reads, the destructive commands it
 * tries. The harness never sees this block (only `repo/` is copied).
 */
export const simulationSchema = z
  .object({
    inspect: z.array(z.string().min(1)).default([]).describe('Files read at the start'),
    fixes: z.array(fixSchema).min(1),
    flood: z.array(z.string().min(1)).default([]).describe('Commands with large outputs the flood-context model reads while investigating'),
    destructive: z.array(destructiveSchema).default([]),
    summary: z.string().min(1).default('Fixed the bugs; the tests pass.').describe('The finish summary'),
  })
  .strict();
export type Simulation = z.infer<typeof simulationSchema>;

/**
 * The todo item a fix belongs to: its own `todo`; for a `needs_plan` fix
 * without one, that of the nearest `needs_plan` fix before it (one
 * requirement may take several edits).
 *
 * @example todoItemOf(simulation, 3) // 'parse_env: convert booleans and integers'
 */
export function todoItemOf(simulation: Simulation, index: number): string | undefined {
  const fix = simulation.fixes[index]!;
  if (fix.todo !== undefined || !fix.needs_plan) return fix.todo;
  for (let position = index - 1; position >= 0; position--) {
    const earlier = simulation.fixes[position]!;
    if (earlier.needs_plan && earlier.todo !== undefined) return earlier.todo;
  }
  return undefined;
}

/** True when every fix under the item is among `applied`. */
export function itemDone(applied: ReadonlySet<number>, simulation: Simulation, item: string): boolean {
  const fixes = simulation.fixes.flatMap((_, index) => (todoItemOf(simulation, index) === item ? [index] : []));
  return fixes.length > 0 && fixes.every((index) => applied.has(index));
}
