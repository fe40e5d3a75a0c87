import type { Rules } from 'rein/rules';

/** The fixed texts a simulated model recognises, taken from the run's rules so custom messages still work. */
export interface HarnessTexts {
  /** Opening words of each stall nudge (up to the first placeholder). */
  nudges: string[];
  /** Opening words of the verification gate's refusal. */
  refusal: string;
}

/** What the harness sent back since the model's last message, as facts the simulated model reacts to. */
export interface Feedback {
  text: string;
  nudged: boolean;
  gateRefused: boolean;
  /** Exit code of the first `run` result (`exit=N`), or null. */
  exitCode: number | null;
  blocked: boolean;
  editApplied: boolean;
  editRejectedForSyntax: boolean;
  /** A tool the harness does not offer (`Tool error: unknown tool "x"`). */
  unknownTool: string | null;
  /** A tool this phase does not allow (`Tool error: x is not allowed in the plan phase`). */
  notAllowedInPhase: boolean;
}

/** The texts to recognise, from the effective rules. */
export function harnessTexts(rules: Rules): HarnessTexts {
  return {
    nudges: Object.values(rules.messages.stall)
      .map(openingWords)
      .filter((words) => words.length > 0),
    refusal: openingWords(rules.verification.refusal),
  };
}

/**
 * Reads the newest tool results and notes (`lastResults` of the scripted
 * model) into facts.
 *
 * @example readFeedback(['exit=1\nFAIL: test_x'], texts).exitCode // 1
 */
export function readFeedback(lastResults: readonly string[], texts: HarnessTexts): Feedback {
  // Notes from the harness arrive as user messages prefixed with `[harness] `.
  const results = lastResults.map((result) => result.replace(/^\[harness\] /, ''));
  const text = results.join('\n');
  const exit = results.map((result) => /^exit=(-?\d+)/.exec(result)).find((match) => match !== null);
  const unknown = /Tool error: unknown tool "([^"]+)"/.exec(text);
  return {
    text,
    nudged: texts.nudges.some((nudge) => results.some((result) => result.startsWith(nudge))),
    gateRefused: texts.refusal.length > 0 && results.some((result) => result.startsWith(texts.refusal)),
    exitCode: exit ? Number(exit[1]) : null,
    blocked: results.some((result) => result.startsWith('Blocked by policy')),
    editApplied: results.some((result) => result.startsWith('Edit applied')),
    editRejectedForSyntax: results.some((result) => result.startsWith('Edit rejected, file unchanged. Syntax error')),
    unknownTool: unknown ? unknown[1]! : null,
    notAllowedInPhase: /Tool error: \S+ is not allowed in the \w+ phase/.test(text),
  };
}

/** The text before the first `{placeholder}`, trimmed to a stable prefix. */
function openingWords(template: string): string {
  return template.split('{')[0]!.trim().slice(0, 40);
}
