import { createInterface } from 'node:readline/promises';
import type { Answer, AnswerSource } from 'rein/actors';
import { escapeControl, showWhole } from 'rein/lib';
import type { PendingApproval } from 'rein/rules';

const PROMPT_HELP =
  'y = yes, once; a = yes, and always for this exact call in this run; t = yes, for this tool for the rest of the run; r = yes, for this exact call in this repository (remembered in the trust store); n = no; n <message> = no, and tell the model why';

/**
 * What a person typed at the approval prompt, or null when it is not an
 * answer (the prompt asks again). Anything unclear is not a yes.
 *
 * @example parsePromptAnswer('n use the test helper instead') // { verdict: 'deny', message: 'use the test helper instead' }
 */
export function parsePromptAnswer(text: string): Answer | null {
  const trimmed = text.trim();
  const [word = '', ...rest] = trimmed.split(/\s+/);
  const message = rest.join(' ').trim();
  switch (word.toLowerCase()) {
    case 'y':
    case 'yes':
      return { verdict: 'allow' };
    case 'a':
    case 'always':
      return { verdict: 'allow', remember: 'command' };
    case 't':
    case 'tool':
      return { verdict: 'allow', remember: 'tool' };
    case 'r':
    case 'repo':
    case 'repository':
      return { verdict: 'allow', remember: 'repository' };
    case 'n':
    case 'no':
      return message ? { verdict: 'deny', message } : { verdict: 'deny' };
    default:
      return null;
  }
}

/** How much of a call the prompt shows before it shows head and tail (`v` prints it whole). */
const SHOWN_CHARS = 4000;

/**
 * The call as the prompt shows it: tool, arguments, why it was asked. Every control, bidi and zero-width character is
 * spelled out, padding is shown as its length, and a call too long to show is shown head and tail with how much is
 * between them (never cut silently); `whole` prints all of it.
 */
export function describePending(pending: PendingApproval, whole = false): string {
  const args = JSON.stringify(pending.args, null, 2) ?? String(pending.args);
  const shown = whole ? escapeControl(args) : showWhole(args, SHOWN_CHARS, 'type v to see the whole call');
  return `\nrein wants to run ${escapeControl(pending.tool)} (call ${escapeControl(pending.callId)}, ${pending.phase} phase, step ${pending.step}):\n${shown}\nasked because: ${escapeControl(pending.reason)}\n`;
}

/**
 * The terminal as an answer source: a prompt on stderr, the answer read
 * from stdin. Only for a run on a TTY; an aborted wait (the page or
 * `rein approve` answered first) closes the prompt.
 *
 * @example startRun({ ..., answerSources: [terminalSource(process.stdin, process.stderr)] })
 */
export function terminalSource(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): AnswerSource {
  return {
    by: 'terminal',
    async ask(pending, signal) {
      const prompt = createInterface({ input, output, terminal: true });
      try {
        output.write(describePending(pending));
        for (;;) {
          const typed = await prompt.question('approve? [y/a/t/r/n, n <message>, v to view the whole call, ? for help] ', { signal });
          if (typed.trim().toLowerCase() === 'v') {
            output.write(describePending(pending, true));
            continue;
          }
          const answer = parsePromptAnswer(typed);
          if (answer) return answer;
          output.write(`${PROMPT_HELP}\n`);
        }
      } finally {
        prompt.close();
      }
    },
  };
}
