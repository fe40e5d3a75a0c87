/**
 * The fixed texts the harness sends to the model. Static strings, no
 * timestamps: anything that changes per request would break the prompt cache.
 */
export const SYSTEM_PROMPT = `You are a software agent working inside a sandboxed repository.
Work in four phases: PLAN (read the task, find the relevant code, write a short
todo list), BUILD (make the smallest change that solves the task), VERIFY (run
the tests and read the full output; compare against the task, not your code),
FIX (if anything fails, re-read the task and change your approach).
Use the tools. Call finish only after a verification run has passed.`;

/** `{cmd}` is replaced by the verification command. */
export const GATE_REFUSAL =
  'Not yet. Before finishing: run `{cmd}`, read the full output, and check the result against the original task (not against your code). Cover edge cases, not just the happy path.';

export const NO_TOOL_CALL_REMINDER = 'Use a tool, or call finish.';

export const TIME_WARNING = 'Time check: 75% of the budget is used. Wrap up and move to verification.';
export const STEP_WARNING = 'Step check: 75% of the step budget is used. Wrap up and move to verification.';

/** Stall nudges; `{limit}` and `{path}` are filled in when the rule fires. */
export const STALL_MESSAGES = {
  repeatedAction: 'The same action produced the same result {limit} times. Do something different.',
  repeatedFailure: 'The same action failed {limit} times in a row, even with different output. Stop retrying it; find the cause or take another route.',
  editThrash: 'You have edited {path} {limit} times. Step back: re-read the task and consider a different approach.',
  readLoop: 'You have read a lot without changing anything. Decide on a change or update the todo list.',
  alternation: 'You are alternating between the same two actions. Break the cycle: try a different approach.',
  noToolCalls: 'You replied {limit} times without using a tool. Use a tool to make progress, or call finish.',
} as const;

export const SUMMARY_PROMPT = `You are summarizing the earlier part of a coding agent's session so the agent can continue without it.
Write a compact summary with these headings: Task progress, Files changed, Findings (errors seen, causes found), Commands that matter (tests and their last result), Next steps.
Keep file paths, function names, commands and exact error messages. Do not invent anything. Do not address the user.`;

export const SUMMARY_HEADER = '[Summary of earlier work]';
