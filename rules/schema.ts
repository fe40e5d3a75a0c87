import { z } from 'zod';
import { ruleRegexMessage } from '../lib/rule-regex.js';
import { agentsSchema, delegationSchema } from './agents/schema.js';
import { approvalsSchema } from './approvals/schema.js';
import { CALL_ID_FORMATS } from './call-ids.js';
import { condition } from './conditions.js';
import { PROFILE_NAMES } from './endpoint-profiles.js';
import { hooksSchema } from './hooks/schema.js';
import { mcpRulesSchema } from './mcp-servers.js';
import { phasesSchema } from './phases.js';
import { snapshotsSchema } from './snapshots.js';
import { defaultStallMessages, defaultStallRuleList } from './stall-rules.js';
import { BUDGET_WARNING, GATE_REFUSAL, NO_TOOL_CALL_REMINDER, SUMMARY_PROMPT, SYSTEM_PROMPT } from './texts.js';
import { TOOL_NAMES } from './tool-names.js';

export { type ActionCall, type Condition, END_TARGETS, EXIT_FIELDS, isEndTarget, type PhaseExitRule } from './conditions.js';
export type { Phase } from './phases.js';

import type { PhaseRule } from './phases.js';

/** A regular expression, compiled here so a bad one stops the run before it starts. */
const regex = z.string().superRefine((pattern, context) => {
  const message = ruleRegexMessage(pattern, 'm');
  if (message) context.addIssue({ code: 'custom', message });
});

const stallRule = z.looseObject({
  guard: z.string().min(1).describe('A registered stall guard, e.g. repeatedAction'),
  limit: z.number().int().positive().describe('Threshold the guard compares against'),
  message: z.string().optional().describe('Nudge text; {limit}, {count} and {path} are filled in'),
});

const verificationCheck = z.strictObject({
  name: z
    .string()
    .min(1)
    .regex(/^[\w.-]+$/, 'expected a name of letters, digits, ".", "_" or "-"')
    .describe('Name shown in refusals and traces, e.g. "lint"'),
  command: z.string().min(1).describe('The exact command; only a run of it counts (after an optional `cd <dir> &&`)'),
  passExitCode: z.number().int().default(0).describe('Exit code that counts as a pass'),
  passPattern: regex.optional().describe('Optional regex the output must also match'),
  runs: z.number().int().positive().default(1).describe('Passing runs wanted after the last edit'),
});

const price = z.strictObject({
  input: z.number().nonnegative().describe('USD per million uncached prompt tokens'),
  cachedInput: z.number().nonnegative().describe('USD per million cached prompt tokens'),
  output: z.number().nonnegative().describe('USD per million completion tokens'),
});
export type Price = z.infer<typeof price>;

/** The whole harness configuration. Every field has a default: `{}` is the seed's harness. */
export const rulesSchema = z.strictObject({
  systemPrompt: z.string().min(1).default(SYSTEM_PROMPT).describe('Static system prompt (no per-request values)'),
  phases: phasesSchema,
  verification: z
    .strictObject({
      command: z.string().min(1).optional().describe('The test command the agent is told to run (CLI --test-cmd wins)'),
      gate: z.boolean().default(true).describe('Refuse finish until the checks pass after the last edit'),
      when: condition
        .optional()
        .describe(
          'What the gate wants before it accepts finish: guards combined with all/any/not, e.g. { "all": [{ "guard": "testsPassedSinceLastEdit" }, { "guard": "todoComplete" }] } (default: testsPassedSinceLastEdit with verification.runs and checks)',
        ),
      passExitCode: z.number().int().default(0).describe('Exit code of the test command that counts as a pass'),
      passPattern: regex.optional().describe('Optional regex the test output must also match to count as a pass'),
      runs: z.number().int().positive().default(1).describe('Passing runs of the test command the gate wants after the last edit'),
      checks: z
        .array(verificationCheck)
        .default([])
        .describe('More commands the gate wants passing after the last edit (a linter, a type check), each with its own pass rule'),
      refusal: z.string().default(GATE_REFUSAL).describe('Refusal text; {cmd} is the commands still to pass, {why} what is missing'),
      commandsCountAsEdits: z
        .boolean()
        .default(false)
        .describe('Treat every non-test command as a possible edit (for a shell-only tool surface, where edits are commands)'),
    })
    .prefault({}),
  stall: z
    .strictObject({
      enabled: z.boolean().default(true),
      maxNudges: z
        .number()
        .int()
        .nonnegative()
        .default(3)
        .describe('Nudges a stall gets; if its rule holds again after them with nothing new in between, onPersist applies'),
      onPersist: z.enum(['end', 'nudge']).default('end').describe('What a stall that persists after maxNudges does: end the run as stalled, or keep nudging'),
      rules: z.array(stallRule).default(defaultStallRuleList).describe('Ordered; at most one nudge per turn'),
    })
    .prefault({}),
  budgets: z
    .strictObject({
      maxSteps: z.number().int().positive().default(40).describe('Model calls before step_limit'),
      maxSeconds: z.number().positive().default(900).describe('Wall-clock seconds before timeout'),
      maxTokens: z.number().int().positive().optional().describe('Prompt+completion tokens cap'),
      maxCostUsd: z.number().positive().optional().describe('Cost cap in USD, from the price table'),
      warnAt: z.number().gt(0).lt(1).default(0.75).describe('Share of each budget (steps, time, tokens, cost) that triggers its warning'),
      stepWarnAt: z.number().gt(0).lt(1).optional().describe('Share of the step budget that triggers its warning, if not warnAt'),
    })
    .prefault({}),
  context: z
    .strictObject({
      enabled: z.boolean().default(true).describe('Off: the full record is sent; the run stops when the window is full'),
      windowTokens: z.number().int().positive().default(32_768).describe('Model context window in tokens'),
      soft: z.number().gt(0).lt(1).default(0.6).describe('Share of the window at which a compaction is due at the latest (growth may make one due earlier)'),
      hard: z.number().gt(0).lt(1).default(0.85).describe('Most of the window a view may fill: above it even the newest results are shortened'),
      keepRecent: z.number().int().nonnegative().default(4).describe('Newest tool results always shown whole'),
      floor: z.number().int().positive().default(120).describe('Smallest cap an old result is elided to'),
      summarize: z.boolean().default(true).describe('Stage 2: summarize the middle with the model'),
      charsPerToken: z.number().positive().default(4).describe('Initial estimate; calibrated by reported prompt_tokens'),
      maxPromptRejections: z
        .number()
        .int()
        .positive()
        .default(3)
        .describe('Prompts in a row the provider may reject as too long (each retry aims lower) before the run fails'),
      rejectedPromptShare: z
        .number()
        .gt(0)
        .lt(1)
        .default(0.75)
        .describe('After a rejection that states no window, the next view aims for this share of the rejected size'),
      growth: z
        .number()
        .gt(0)
        .lt(1)
        .default(0.18)
        .describe(
          'Share of the window the view grows by, append-only (each request the previous one plus new messages, so the provider caches it), before the next compaction; larger caches more of each prompt, smaller sends fewer tokens',
        ),
      lowWater: z
        .number()
        .gt(0)
        .lt(1)
        .default(0.45)
        .describe('Most of the window a compaction leaves: results older than keepRecent go to the floor, then the oldest part is summarized'),
    })
    .prefault({}),
  permissions: z
    .strictObject({
      deny: z.array(regex).default([]).describe('Extra regex patterns refused before execution'),
      sandbox: z.enum(['auto', 'bwrap', 'none']).default('auto'),
      network: z.boolean().default(false).describe('Network inside the sandbox'),
      envAllow: z.array(z.string()).default([]).describe('Variables passed to commands beyond the safe defaults (PATH, HOME, LANG, LC_*, …); globs like MY_*'),
      readable: z
        .array(z.string().min(1))
        .default([])
        .describe(
          'More for sandboxed commands to read: host paths (/opt/data, ~/datasets) shown read-only, and workspace patterns in gitignore syntax (.env.test) that un-hide hidden files; credential paths stay hidden',
        ),
      hidden: z
        .array(z.string().min(1))
        .default([])
        .describe(
          'Hidden from commands and file tools: host paths (/srv/secrets, ~/notes) and workspace patterns in gitignore syntax (secrets/, *.pem); .env* files and credential paths are hidden already',
        ),
      limits: z
        .strictObject({
          memoryMiB: z
            .number()
            .int()
            .positive()
            .optional()
            .describe("Memory each process of a command may allocate, in MiB (RLIMIT_DATA); default half the machine's memory, at most 8192"),
          processes: z
            .number()
            .int()
            .positive()
            .default(1024)
            .describe(
              'Processes and threads the sandbox may hold at once (a pids cgroup where rein can make one, else RLIMIT_NPROC, which binds every user but root)',
            ),
        })
        .prefault({}),
    })
    .prefault({}),
  approvals: approvalsSchema
    .prefault({})
    .describe('Which tool calls need an approval first: deny, then remembered decisions, then ask, then allow, then default (see rules/approvals/evaluate.ts)'),
  hooks: hooksSchema
    .prefault({})
    .describe(
      'Commands run at named moments (preToolUse, postToolUse, phaseChange, beforeFinish, runEnd) with the event as JSON on stdin; hooks from a rules file inside the repository run only once trusted',
    ),
  mcp: mcpRulesSchema,
  agents: agentsSchema,
  delegation: delegationSchema,
  snapshots: snapshotsSchema,
  tools: z
    .strictObject({
      enabled: z
        .array(z.string())
        .default([...TOOL_NAMES])
        .describe('Tool surface for the whole run'),
      phases: z
        .record(z.string().min(1), z.array(z.string().min(1)))
        .default({})
        .describe(
          "Where a tool is offered, by tool name: the phases it belongs in (a registered tool's own `phases` fill this in); a phase whose `tools` names the tool offers it too",
        ),
      outputChars: z.number().int().positive().default(6000),
      viewLines: z.number().int().positive().default(100),
      maxHits: z.number().int().positive().default(50),
      commandTimeoutSeconds: z.number().positive().default(120),
      maxCallsPerReply: z
        .number()
        .int()
        .positive()
        .default(16)
        .describe('Tool calls of one reply that run (a reply is one step); the rest are answered "not run" and can be made in the next reply'),
    })
    .prefault({}),
  model: z
    .strictObject({
      profile: z
        .enum(PROFILE_NAMES)
        .optional()
        .describe('Per-server defaults for the settings below (see the endpoint profiles table); any of them set beside it wins'),
      maxCompletionTokens: z.number().int().positive().default(4096),
      temperature: z.number().min(0).max(2).optional(),
      retries: z.number().int().nonnegative().default(4),
      requestTimeoutSeconds: z.number().positive().default(300),
      maxTokensParam: z
        .enum(['max_tokens', 'max_completion_tokens'])
        .default('max_tokens')
        .describe('Name of the completion limit in requests; reasoning models want max_completion_tokens (rein also switches when the endpoint says so)'),
      prices: z.record(z.string(), price).default({}).describe('Per-model prices; unknown models cost 0'),
      toolCalling: z
        .enum(['native', 'prompted', 'auto'])
        .default('auto')
        .describe(
          'native: tools sent as `tools`; prompted: tools described in the system prompt, calls read from the text; auto: native, switching to prompted for the rest of the run when the endpoint rejects `tools` or keeps writing calls as text',
        ),
      stream: z.boolean().default(false).describe('Ask for streamed replies (some gateways only stream); same retries, timeouts and record'),
      streamUsage: z
        .boolean()
        .default(true)
        .describe('With stream: ask for usage in the last chunk (stream_options.include_usage); dropped by itself when the endpoint refuses it'),
      systemRole: z.enum(['system', 'developer']).default('system').describe('Role of the system prompt: developer for OpenAI reasoning models'),
      reasoningEffort: z.enum(['minimal', 'low', 'medium', 'high']).optional().describe('reasoning_effort sent to reasoning models'),
      extraBody: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('More request body fields for this server, e.g. {"chat_template_kwargs": {"enable_thinking": false}}; rein\'s own fields win'),
      maxResponseBytes: z
        .number()
        .int()
        .positive()
        .default(16 * 1024 * 1024)
        .describe('Bytes a reply body may have, streamed or not; past it the request fails with what was seen (error bodies are read up to 64 KiB)'),
      recoverToolCalls: z
        .boolean()
        .default(true)
        .describe(
          'Run tool calls a reply writes as text (any format of the census in docs/endpoints.md) when it has no tool_calls; once the endpoint has sent native calls in a run, only calls in marked syntax count',
        ),
      toolCallIds: z
        .enum(CALL_ID_FORMATS)
        .default('any')
        .describe(
          "Ids the endpoint accepts back: any keeps the provider's ids and makes call_<step>_<index> where it gave none; alphanumeric-9 (Mistral) nine letters and digits",
        ),
      repairArguments: z
        .boolean()
        .default(true)
        .describe('Repair bent call arguments (encoded twice, trailing commas, single quotes, unquoted keys, a cut-off tail); false passes them on as sent'),
    })
    .prefault({}),
  repositoryInstructions: z
    .strictObject({
      enabled: z
        .boolean()
        .default(true)
        .describe("Give the model the repository's own instructions file once, after the system prompt, labelled as the repository's words"),
      file: z
        .string()
        .regex(/^[\w.-]+$/, 'expected a file name at the workspace root')
        .default('AGENTS.md')
        .describe('The file at the workspace root (AGENTS.md is the convention Codex, Claude Code and others read)'),
      maxChars: z.number().int().positive().default(8000).describe('Characters of it the model gets at most; the rest is cut, and the trace says so'),
    })
    .prefault({}),
  messages: z
    .strictObject({
      noToolCall: z
        .string()
        .default(NO_TOOL_CALL_REMINDER)
        .describe('Sent after a reply without a tool call, unless the noToolCalls stall rule sends its nudge instead'),
      budgetWarning: z
        .string()
        .default(BUDGET_WARNING)
        .describe('Sent once per budget at budgets.warnAt; {budget}, {percent}, {used} and {limit} are filled in'),
      summaryPrompt: z.string().default(SUMMARY_PROMPT),
      stall: z.record(z.string(), z.string()).default(defaultStallMessages).describe('Nudge texts by stall rule'),
    })
    .prefault({}),
});

/** Rules as written by a user: every field optional. */
export type RulesInput = z.input<typeof rulesSchema>;
/** Rules after parsing: every default filled in. */
export type Rules = z.output<typeof rulesSchema>;

/** The effective rules for `{}`: the seed's harness with rein's additions. */
export function defaultRules(): Rules {
  return rulesSchema.parse({});
}

/** The phases of the rules, in order (disabled ones too). */
export function phaseNames(rules: Pick<Rules, 'phases'>): string[] {
  return Object.keys(rules.phases);
}

/** The enabled phases, in order; the first is where a run starts. */
export function enabledPhases(rules: Pick<Rules, 'phases'>): string[] {
  return phaseNames(rules).filter((name) => rules.phases[name]!.enabled);
}

/** A phase's rules; a name that is not a phase of the rules is a harness bug (rules-check names bad references first). */
export function phaseRule(rules: Pick<Rules, 'phases'>, name: string): PhaseRule {
  const rule = rules.phases[name];
  if (!rule) throw new Error(`no phase "${name}" in the rules`);
  return rule;
}

/** Whether an enabled phase of the rules has this name. */
export function isEnabledPhase(rules: Pick<Rules, 'phases'>, name: string): boolean {
  return rules.phases[name]?.enabled === true;
}
