import { z } from 'zod';
import { ruleRegexMessage } from '../../lib/rule-regex.js';

/**
 * Approval rules: which tool calls run, which a person (or a hook, or a
 * policy) must approve first, and which are refused. Data only; the
 * evaluation is in evaluate.ts.
 */

const APPROVAL_VERDICTS = ['allow', 'ask', 'deny'] as const;
export type ApprovalVerdict = (typeof APPROVAL_VERDICTS)[number];

/** A compiled regular expression check, so a bad one stops the run before it starts. */
const regex = z.string().superRefine((pattern, context) => {
  const message = ruleRegexMessage(pattern);
  if (message) context.addIssue({ code: 'custom', message });
});

const ruleObject = z.strictObject({
  tool: z.string().min(1).default('*').describe('Tool name or pattern: "run", "edit_file", "mcp__github__*" (* matches anything)'),
  command: z
    .string()
    .min(1)
    .optional()
    .describe('For calls with a command (run, job): a pattern over the whole command, * matches anything ("npm test*", "git push *")'),
  commandRegex: regex.optional().describe('For calls with a command: a regular expression searched in it'),
  path: z.string().min(1).optional().describe('For calls with a path: matches when the path (relative to the repo) fits this glob ("src/**", "*.lock")'),
  notPath: z.string().min(1).optional().describe('For calls with a path: matches when the path does NOT fit this glob (edit_file outside "src/**")'),
  reason: z.string().optional().describe('Why the rule is there; shown in the approval prompt and the trace'),
});

/**
 * One rule of an allow/ask/deny list: a tool pattern as a string
 * (`"mcp__*"`, `"run(npm test*)"` for a command pattern, `"edit_file(src/**)"`
 * for a path glob) or an object with `tool`, `command`, `commandRegex`,
 * `path`, `notPath`.
 */
const approvalRule = z.union([z.string().min(1), ruleObject]);
export type ApprovalRuleInput = z.input<typeof approvalRule>;
export type ApprovalRuleObject = z.input<typeof ruleObject>;

const lists = {
  deny: z.array(approvalRule).default([]).describe('Calls refused without asking (checked first)'),
  ask: z.array(approvalRule).default([]).describe('Calls that wait for an approval (checked after deny and remembered decisions)'),
  allow: z.array(approvalRule).default([]).describe('Calls that run without asking (checked after ask)'),
};

/** The global approval rules (`approvals` in the rules file). */
export const approvalsSchema = z.strictObject({
  ...lists,
  default: z.enum(APPROVAL_VERDICTS).default('allow').describe('What a call no list matches gets: allow, ask or deny'),
  timeoutSeconds: z
    .number()
    .positive()
    .default(600)
    .describe(
      'Seconds an approval may wait for an answer at the terminal or the page, counted from the first ask (a resume does not restart it); then it counts as deny',
    ),
  headless: z
    .enum(['exit', 'deny', 'allow'])
    .default('exit')
    .describe(
      'Without a terminal, page or hook to ask: exit (save, exit with code 5, answer with rein approve and continue with rein resume), or answer every ask with deny or allow (eval, queue workers)',
    ),
});
export type Approvals = z.output<typeof approvalsSchema>;

/** A phase's own approval rules (`phases.<phase>.approvals`), checked together with the global ones. */
export const phaseApprovalsSchema = z.strictObject({
  ...lists,
  default: z.enum(APPROVAL_VERDICTS).optional().describe('What a call no list matches gets in this phase (default: the global default)'),
});
export type PhaseApprovals = z.output<typeof phaseApprovalsSchema>;
