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

/** `{cmd}` is replaced by the commands still to pass, `{why}` by what is missing. */
export const GATE_REFUSAL =
  'Not yet: {why}. Before finishing: run `{cmd}`, read the full output, and check the result against the original task (not against your code). Cover edge cases, not just the happy path.';

export const NO_TOOL_CALL_REMINDER = 'Use a tool, or call finish.';

/** One warning per budget at its warning share; `{budget}`, `{percent}`, `{used}` and `{limit}` are filled in. */
export const BUDGET_WARNING = '{Budget} check: {percent}% of the {budget} budget is used ({used} of {limit}). Wrap up and move to verification.';

export const SUMMARY_PROMPT = `You are summarizing the earlier part of a coding agent's session so the agent can continue without it.
Write a compact summary with these headings: Task progress, Files changed, Findings (errors seen, causes found), Commands that matter (tests and their last result), Next steps.
Keep file paths, function names, commands and exact error messages. Do not invent anything. Do not address the user.`;
