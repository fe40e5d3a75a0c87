import { createInterface } from 'node:readline/promises';
import type { Answer, AnswerSource } from 'rein/actors';
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

/** The call as the prompt shows it: tool, arguments (long ones cut), why it was asked. */
function describePending(pending: PendingApproval): string {
  const args = JSON.stringify(pending.args, null, 2) ?? String(pending.args);
  const shown = args.length > 1500 ? `${args.slice(0, 1500)}… (${args.length} chars)` : args;
  return `\nrein wants to run ${pending.tool} (call ${pending.callId}, ${pending.phase} phase, step ${pending.step}):\n${shown}\nasked because: ${pending.reason}\n`;
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
          const answer = parsePromptAnswer(await prompt.question('approve? [y/a/t/r/n, n <message>, ? for help] ', { signal }));
          if (answer) return answer;
          output.write(`${PROMPT_HELP}\n`);
        }
      } finally {
        prompt.close();
      }
    },
  };
}
