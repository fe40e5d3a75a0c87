import { z } from 'zod';
import { type PhaseApprovals, phaseApprovalsSchema } from './approvals/schema.js';
import { type ActionCall, actionCall, END_TARGETS, type PhaseExitRule, phaseExit } from './conditions.js';

/**
 * The phase table: rein's four phases with their defaults, which a rules
 * file extends (new phases, placed `after`/`before` another), changes
 * (every field keeps its default unless given; exits can be added with
 * `exitsPrepend`/`exitsAppend` instead of restated) or switches off
 * (`enabled: false`). The parsed table is in phase order; the first enabled
 * phase is where a run starts.
 */

/** rein's own phases, in their default order. */
const BUILT_IN_PHASES = ['plan', 'build', 'verify', 'fix'] as const;

/** A phase's name: a built-in one or one a rules file adds. */
export type Phase = string;

/** The key whose `exitsPrepend`/`exitsAppend` go to every phase. */
const EVERY_PHASE = '*';

/** Names a phase cannot have: the final states and `*`. */
const RESERVED = new Set<string>(['done', ...END_TARGETS, EVERY_PHASE]);

const phaseName = z
  .string()
  .regex(/^[a-z][a-zA-Z0-9_]*$/, 'expected a phase name: a lower-case letter, then letters, digits or "_"')
  .refine((name) => !RESERVED.has(name), { message: `expected a phase name other than a final state (done, ${END_TARGETS.join(', ')})` });

/** A stall limit for one phase: a count, or `off` (or 0) to switch the rule off there. */
const stallLimit = z.union([z.number().int().nonnegative(), z.literal('off')]);

/** One phase's rules as a file gives them (`rein rules show` prints them complete). */
export const phaseRuleSchema = z.strictObject({
  enabled: z.boolean().default(true).describe('A disabled phase is left out of the statechart'),
  description: z.string().min(1).optional().describe('What the phase is for; shown in the statechart (built-in phases have their own)'),
  after: phaseName.optional().describe('Place this phase right after that one in the phase order (an added phase goes last otherwise)'),
  before: phaseName.optional().describe('Place this phase right before that one (before the first phase: the run starts here)'),
  tools: z
    .union([z.literal('all'), z.array(z.string().min(1))])
    .default('all')
    .describe('Tools the model may call in this phase, `finish` included; names or globs (mcp__docs__*). Others are refused with a message'),
  exits: z
    .array(phaseExit)
    .optional()
    .describe("Ordered: the first exit whose condition holds after a turn is taken; giving them replaces the phase's defaults"),
  exitsPrepend: z.array(phaseExit).default([]).describe("Exits tried before the phase's exits (its defaults or `exits`), without restating them"),
  exitsAppend: z.array(phaseExit).default([]).describe("Exits tried after the phase's exits (its defaults or `exits`), without restating them"),
  onEnter: z.array(actionCall).default([]).describe('Actions run each time the phase is entered'),
  maxSteps: z.number().int().positive().optional().describe('Steps (model replies) the phase may take each time it is entered; then it goes to onMaxSteps'),
  onMaxSteps: z.string().min(1).optional().describe('Where a phase whose maxSteps are spent goes: a phase, or a final state (default: step_limit)'),
  nudges: z
    .record(z.string(), z.string())
    .default({})
    .describe(
      'Nudge texts for this phase, by stall rule (e.g. { "repeatedFailure": "Re-read the failing test first." }); others use stall.rules or messages.stall',
    ),
  stallLimits: z
    .record(z.string(), stallLimit)
    .default({})
    .describe('Stall limits for this phase, by stall rule (e.g. { "repeatedFailure": 2 }; "off" or 0 switches the rule off here); others use stall.rules'),
  approvals: phaseApprovalsSchema
    .prefault({})
    .describe('Approval rules for this phase, checked with the global approvals (deny, remembered, ask, allow, default)'),
});

/** `phases["*"]`: exits every phase gets, before or after its own. */
const everyPhaseInput = z.strictObject({
  exitsPrepend: z.array(phaseExit).default([]).describe('Exits every enabled phase tries before its own'),
  exitsAppend: z.array(phaseExit).default([]).describe('Exits every enabled phase tries after its own'),
});

/** One phase's rules after parsing: every default filled in, the exits merged. */
export interface PhaseRule {
  enabled: boolean;
  description: string;
  after?: string;
  before?: string;
  tools: 'all' | string[];
  exits: PhaseExitRule[];
  onEnter: ActionCall[];
  maxSteps?: number;
  onMaxSteps?: string;
  nudges: Record<string, string>;
  stallLimits: Record<string, number | 'off'>;
  approvals: PhaseApprovals;
}

interface PhaseDefaults {
  description: string;
  exits: z.input<typeof phaseExit>[];
}

/** The built-in phases' defaults (the seed's plan → build → verify → fix). */
const BUILT_IN_PHASE_DEFAULTS: Record<(typeof BUILT_IN_PHASES)[number], PhaseDefaults> = {
  plan: {
    description: 'Read the task and the code; write a todo list.',
    exits: [
      { guard: 'todoWritten', to: 'build' },
      { guard: 'editMade', to: 'build' },
      { guard: 'finishRefused', to: 'verify', settle: true },
    ],
  },
  build: {
    description: 'Make the smallest change that solves the task.',
    exits: [
      { guard: 'testRun', to: 'verify', settle: true },
      { guard: 'finishRefused', to: 'verify', settle: true },
    ],
  },
  verify: {
    description: 'Run the tests and check the result against the task; the gate lives here.',
    exits: [
      { guard: 'testFailed', to: 'fix' },
      { guard: 'editedSinceTest', to: 'build' },
    ],
  },
  fix: {
    description: 'A verification run failed: find the cause, change the approach, re-test.',
    exits: [{ guard: 'testedAfterEdit', to: 'verify', settle: true }],
  },
};

function isBuiltInPhase(name: string): name is (typeof BUILT_IN_PHASES)[number] {
  return (BUILT_IN_PHASES as readonly string[]).includes(name);
}

/**
 * `phases` in a rules file: a phase's name to its rules. Parsed into the
 * complete table in phase order (built-in phases first, each added or
 * moved phase at its `after`/`before`), so the order is the object's key order.
 */
export const phasesSchema = z
  .record(z.string(), z.unknown())
  .prefault({})
  .describe('The phases, by name: change a built-in one, switch it off (enabled: false), or add one (placed by after/before); "*" adds exits to every phase')
  .transform((raw, context) => completePhases(raw, context));

function completePhases(raw: Record<string, unknown>, context: z.RefinementCtx): Record<Phase, PhaseRule> {
  const parsed = new Map<string, z.output<typeof phaseRuleSchema>>();
  let every: z.output<typeof everyPhaseInput> = { exitsPrepend: [], exitsAppend: [] };
  for (const [name, value] of Object.entries(raw)) {
    const named = name === EVERY_PHASE ? null : phaseName.safeParse(name);
    if (named && !named.success) {
      context.addIssue({ code: 'custom', path: [name], message: named.error.issues[0]!.message });
      continue;
    }
    const schema = name === EVERY_PHASE ? everyPhaseInput : phaseRuleSchema;
    const result = schema.safeParse(value ?? {});
    if (!result.success) {
      for (const issue of result.error.issues) context.addIssue({ ...issue, path: [name, ...issue.path] } as never);
      continue;
    }
    if (name === EVERY_PHASE) every = result.data as typeof every;
    else parsed.set(name, result.data as z.output<typeof phaseRuleSchema>);
  }
  for (const name of BUILT_IN_PHASES) if (!parsed.has(name)) parsed.set(name, phaseRuleSchema.parse({}));
  const order = placePhases(parsed, context);
  const table: Record<Phase, PhaseRule> = {};
  for (const name of order) {
    const { exits, exitsPrepend, exitsAppend, description, ...rest } = parsed.get(name)!;
    const defaults = isBuiltInPhase(name) ? BUILT_IN_PHASE_DEFAULTS[name] : undefined;
    if (!description && !defaults) context.addIssue({ code: 'custom', path: [name, 'description'], message: 'an added phase needs a description' });
    const own = exits ?? (defaults?.exits ?? []).map((exit) => phaseExit.parse(exit));
    const enabled = rest.enabled;
    table[name] = {
      ...rest,
      description: description ?? defaults?.description ?? '',
      exits: [...(enabled ? every.exitsPrepend : []), ...exitsPrepend, ...own, ...exitsAppend, ...(enabled ? every.exitsAppend : [])],
    };
  }
  return table;
}

/** The phase order: built-in phases, then added ones, in file order; then each phase with `after`/`before` moved to its place, in the order the file names them. */
function placePhases(parsed: Map<string, { after?: string | undefined; before?: string | undefined }>, context: z.RefinementCtx): string[] {
  // Every phase is in the order first, so an anchor may name a phase the file adds further down.
  const order: string[] = [...BUILT_IN_PHASES, ...[...parsed.keys()].filter((name) => !isBuiltInPhase(name))];
  for (const [name, rule] of parsed) {
    if (rule.after !== undefined && rule.before !== undefined) {
      context.addIssue({ code: 'custom', path: [name, 'before'], message: 'expected only one of "after" and "before"' });
      continue;
    }
    const anchor = rule.after ?? rule.before;
    if (anchor === undefined) continue;
    if (anchor === name || !order.includes(anchor)) {
      const known = order.filter((entry) => entry !== name);
      context.addIssue({
        code: 'custom',
        path: [name, rule.after !== undefined ? 'after' : 'before'],
        message: `expected another phase of these rules (${known.join(', ')}), found "${anchor}"`,
      });
      continue;
    }
    order.splice(order.indexOf(name), 1);
    const index = order.indexOf(anchor);
    order.splice(rule.after !== undefined ? index + 1 : index, 0, name);
  }
  return order;
}
