import { z } from 'zod';
import {
  GATE_REFUSAL, NO_TOOL_CALL_REMINDER, STALL_MESSAGES, STEP_WARNING, SUMMARY_PROMPT, SYSTEM_PROMPT, TIME_WARNING,
} from './texts.js';

export const PHASES = ['plan', 'build', 'verify', 'fix'] as const;
export type Phase = (typeof PHASES)[number];

export const TOOL_NAMES = ['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'job'] as const;

/** A regular expression, compiled here so a bad one stops the run before it starts. */
const regex = z.string().superRefine((pattern, context) => {
  try {
    new RegExp(pattern);
  } catch (error) {
    context.addIssue({ code: 'custom', message: `expected a valid regular expression (${(error as Error).message.replace(/^Invalid regular expression: /, '')})` });
  }
});

/** A named guard from the registry, optionally with parameters: `{ "guard": "repeatedAction", "limit": 4 }`. */
const guardCall = z.looseObject({
  guard: z.string().min(1).describe('Name of a registered guard'),
});

/** A named action from the registry, with its parameters: `{ "action": "notify", "text": "Run the linter too." }`. */
const actionCall = z.looseObject({
  action: z.string().min(1).describe('Name of a registered action (notify, mark, or one registered from a rules module)'),
});
export type ActionCall = z.infer<typeof actionCall>;

const phaseExit = z.looseObject({
  guard: z.string().min(1).describe('Name of a registered guard that lets the phase exit'),
  to: z.enum(PHASES).describe('Phase entered when the guard holds'),
  actions: z.array(actionCall).optional().describe('Actions run when this exit is taken'),
  settle: z.boolean().optional()
    .describe('The entered phase judges the same turn once more (a failing test run that moved build to verify sends it on to fix)'),
});
export type PhaseExitRule = z.infer<typeof phaseExit>;

/**
 * One phase's rules. Every field defaults to that phase's own default, so a
 * rule that sets only some fields (`"build": { "tools": [...] }`) keeps the
 * phase's exits and description rather than dropping them.
 */
function phaseRuleFor(defaults: { description: string; exits: z.input<typeof phaseExit>[] }) {
  return z.strictObject({
    enabled: z.boolean().default(true).describe('A disabled phase is left out of the statechart'),
    description: z.string().default(defaults.description).describe('What the phase is for; shown in the statechart'),
    tools: z.union([z.literal('all'), z.array(z.string())]).default('all')
      .describe('Tools the model may call in this phase; others are refused with a message (schemas stay fixed)'),
    exits: z.array(phaseExit).default(() => defaults.exits.map((exit) => phaseExit.parse(exit)))
      .describe('Ordered: the first exit whose guard holds after a turn is taken; giving them replaces the phase\'s defaults'),
    onEnter: z.array(actionCall).default([]).describe('Actions run each time the phase is entered'),
    nudges: z.record(z.string(), z.string()).default({})
      .describe('Nudge texts for this phase, by stall rule (e.g. { "repeatedFailure": "Re-read the failing test first." }); others use stall.rules or messages.stall'),
  });
}
const phaseRule = phaseRuleFor({ description: '', exits: [] });
export type PhaseRule = z.infer<typeof phaseRule>;

const defaultPhases: Record<Phase, { description: string; exits: z.input<typeof phaseExit>[] }> = {
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

const defaultPhaseRules = (phase: Phase) => defaultPhases[phase];

const stallRule = z.looseObject({
  guard: z.string().min(1).describe('A registered stall guard, e.g. repeatedAction'),
  limit: z.number().int().positive().describe('Threshold the guard compares against'),
  message: z.string().optional().describe('Nudge text; {limit} and {path} are filled in'),
});
export type StallRule = z.infer<typeof stallRule>;

const defaultStallRules: StallRule[] = [
  { guard: 'repeatedAction', limit: 3 },
  { guard: 'repeatedFailure', limit: 3 },
  { guard: 'alternation', limit: 6 },
  { guard: 'editThrash', limit: 5 },
  { guard: 'readLoop', limit: 8 },
  { guard: 'noToolCalls', limit: 3 },
];

const price = z.strictObject({
  input: z.number().nonnegative().describe('USD per million uncached prompt tokens'),
  cachedInput: z.number().nonnegative().describe('USD per million cached prompt tokens'),
  output: z.number().nonnegative().describe('USD per million completion tokens'),
});
export type Price = z.infer<typeof price>;

/** The whole harness configuration. Every field has a default: `{}` is the seed's harness. */
export const rulesSchema = z.strictObject({
  systemPrompt: z.string().min(1).default(SYSTEM_PROMPT).describe('Static system prompt (no per-request values)'),
  phases: z.strictObject({
    plan: phaseRuleFor(defaultPhaseRules('plan')).prefault({}),
    build: phaseRuleFor(defaultPhaseRules('build')).prefault({}),
    verify: phaseRuleFor(defaultPhaseRules('verify')).prefault({}),
    fix: phaseRuleFor(defaultPhaseRules('fix')).prefault({}),
  }).prefault({}),
  verification: z.strictObject({
    command: z.string().min(1).optional().describe('The test command the agent is told to run (CLI --test-cmd wins)'),
    gate: z.boolean().default(true).describe('Refuse finish until a passing test run follows the last edit'),
    passExitCode: z.number().int().default(0).describe('Exit code that counts as a pass'),
    passPattern: regex.optional().describe('Optional regex the output must also match to count as a pass'),
    refusal: z.string().default(GATE_REFUSAL).describe('Refusal text; {cmd} is the test command'),
    commandsCountAsEdits: z.boolean().default(false)
      .describe('Treat every non-test command as a possible edit (for a shell-only tool surface, where edits are commands)'),
  }).prefault({}),
  stall: z.strictObject({
    enabled: z.boolean().default(true),
    maxNudges: z.number().int().nonnegative().default(3)
      .describe('Nudges a persisting stall gets before the run ends as stalled'),
    rules: z.array(stallRule).default(defaultStallRules).describe('Ordered; at most one nudge per turn'),
  }).prefault({}),
  budgets: z.strictObject({
    maxSteps: z.number().int().positive().default(40).describe('Model calls before step_limit'),
    maxSeconds: z.number().positive().default(900).describe('Wall-clock seconds before timeout'),
    maxTokens: z.number().int().positive().optional().describe('Prompt+completion tokens cap'),
    maxCostUsd: z.number().positive().optional().describe('Cost cap in USD, from the price table'),
    warnAt: z.number().gt(0).lt(1).default(0.75).describe('Share of the time budget that triggers the warning'),
    stepWarnAt: z.number().gt(0).lt(1).default(0.75).describe('Share of the step budget that triggers the warning'),
  }).prefault({}),
  context: z.strictObject({
    enabled: z.boolean().default(true).describe('Off: the full record is sent; the run stops when the window is full'),
    windowTokens: z.number().int().positive().default(32_768).describe('Model context window in tokens'),
    soft: z.number().gt(0).lt(1).default(0.6).describe('Share of the window where elision starts'),
    hard: z.number().gt(0).lt(1).default(0.85).describe('Share of the window where the middle is summarized'),
    keepRecent: z.number().int().nonnegative().default(4).describe('Newest tool results always shown whole'),
    baseCap: z.number().int().positive().default(2000).describe('Cap of the results just outside the recent set'),
    floor: z.number().int().positive().default(120).describe('Smallest cap an old result is elided to'),
    summarize: z.boolean().default(true).describe('Stage 2: summarize the middle with the model'),
    charsPerToken: z.number().positive().default(4).describe('Initial estimate; calibrated by reported prompt_tokens'),
  }).prefault({}),
  permissions: z.strictObject({
    deny: z.array(regex).default([]).describe('Extra regex patterns refused before execution'),
    sandbox: z.enum(['auto', 'bwrap', 'none']).default('auto'),
    network: z.boolean().default(false).describe('Network inside the sandbox'),
    envAllow: z.array(z.string()).default([])
      .describe('Variables passed to commands beyond the safe defaults (PATH, HOME, LANG, LC_*, …); globs like MY_*'),
    readable: z.array(z.string().min(1)).default([])
      .describe('More for sandboxed commands to read: host paths (/opt/data, ~/datasets) shown read-only, and workspace patterns in gitignore syntax (.env.test) that un-hide hidden files; credential paths stay hidden'),
    hidden: z.array(z.string().min(1)).default([])
      .describe('Hidden from commands and file tools: host paths (/srv/secrets, ~/notes) and workspace patterns in gitignore syntax (secrets/, *.pem); .env* files and credential paths are hidden already'),
  }).prefault({}),
  tools: z.strictObject({
    enabled: z.array(z.string()).default([...TOOL_NAMES]).describe('Tool surface for the whole run'),
    outputChars: z.number().int().positive().default(6000),
    viewLines: z.number().int().positive().default(100),
    maxHits: z.number().int().positive().default(50),
    commandTimeoutSeconds: z.number().positive().default(120),
  }).prefault({}),
  model: z.strictObject({
    maxCompletionTokens: z.number().int().positive().default(4096),
    temperature: z.number().min(0).max(2).optional(),
    retries: z.number().int().nonnegative().default(4),
    requestTimeoutSeconds: z.number().positive().default(300),
    maxTokensParam: z.enum(['max_tokens', 'max_completion_tokens']).default('max_tokens')
      .describe('Name of the completion limit in requests; reasoning models want max_completion_tokens (rein also switches when the endpoint says so)'),
    prices: z.record(z.string(), price).default({}).describe('Per-model prices; unknown models cost 0'),
  }).prefault({}),
  messages: z.strictObject({
    noToolCall: z.string().default(NO_TOOL_CALL_REMINDER),
    timeWarning: z.string().default(TIME_WARNING),
    stepWarning: z.string().default(STEP_WARNING),
    summaryPrompt: z.string().default(SUMMARY_PROMPT),
    stall: z.record(z.string(), z.string()).default({ ...STALL_MESSAGES }),
  }).prefault({}),
});

/** Rules as written by a user: every field optional. */
export type RulesInput = z.input<typeof rulesSchema>;
/** Rules after parsing: every default filled in. */
export type Rules = z.output<typeof rulesSchema>;

/** The effective rules for `{}`: the seed's harness with rein's additions. */
export function defaultRules(): Rules {
  return rulesSchema.parse({});
}

export { guardCall };
