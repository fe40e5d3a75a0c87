import type { NotRunReason, Recovery } from './types.js';

/** What the model is told about each reason, and what to do if it meant the call. */
const SAID: Record<NotRunReason, string> = {
  reasoning: 'is inside your reasoning, where calls are not run; write it after the reasoning to run it',
  echo: 'repeats, word for word, text from a file, a tool result or the task, which is never run; write the call yourself if you mean it',
  inline: 'stands inside a sentence, so it reads as an example; write it on a line of its own to run it',
  position: 'is followed by more text, so it reads as an example; end your reply with the call to run it',
  'after-result': 'comes after a tool result your reply wrote itself; results come from the harness, so nothing after it was run',
  mixed: 'is in a list of calls that also names something that is not a tool here; nothing in that list was run',
};

/**
 * The notice a reply gets when it wrote calls that were not run: which, and
 * why, so the model can write them again if it meant them (rather than rein
 * guessing). It never quotes the call itself: a notice repeated back is not a call either.
 *
 * @example notRunNotice(recovery) // 'Not run: the call to `run` in your reply stands inside a sentence, …'
 */
export function notRunNotice(notRun: Recovery['notRun']): string | null {
  if (notRun.length === 0) return null;
  const reasons = [...new Set(notRun.map((entry) => entry.why))];
  const parts = reasons.map((why) => {
    const names = [...new Set(notRun.filter((entry) => entry.why === why).map((entry) => `\`${entry.name}\``))];
    return `the call${names.length > 1 ? 's' : ''} to ${names.join(', ')} ${SAID[why]}`;
  });
  return `Not run: ${parts.join('; ')}.`;
}
