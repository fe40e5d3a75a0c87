import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer, AnswerSource } from 'rein/actors';
import { type PendingApproval, REMEMBER_SCOPES } from 'rein/rules';
import { z } from 'zod';

const answerBody = z.strictObject({
  callId: z.string(),
  argsHash: z.string(),
  verdict: z.enum(['allow', 'deny']),
  message: z.string().max(4000).optional(),
  remember: z.enum(REMEMBER_SCOPES).optional(),
});

/**
 * The visualizer page as an answer source: the waiting call is shown with
 * Approve / Deny buttons, which POST to `/approval` (the server lets only the
 * tab that opened the printed address reach it: page-access.ts). The answer
 * must name the waiting call's id and argument hash; anything else is
 * refused (409).
 *
 * @example const approvals = createPageApprovals(); startRun({ ..., answerSources: [approvals.source] });
 */
export function createPageApprovals() {
  let waiting: { pending: PendingApproval; resolve(answer: Answer): void } | null = null;
  const source: AnswerSource = {
    by: 'page',
    ask: (pending, signal) =>
      new Promise<Answer>((resolve, reject) => {
        waiting = { pending, resolve };
        signal.addEventListener('abort', () => {
          if (waiting?.pending === pending) waiting = null;
          reject(signal.reason);
        });
      }),
  };
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const reply = (status: number, text: string) => {
      response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`${text}\n`);
    };
    const body = await readBody(request);
    const parsed = answerBody.safeParse(body);
    if (!parsed.success) return reply(400, 'not an approval answer');
    const current = waiting;
    if (!current || current.pending.callId !== parsed.data.callId || current.pending.argsHash !== parsed.data.argsHash)
      return reply(409, 'no such call is waiting (answered elsewhere, or the run moved on)');
    waiting = null;
    const { verdict, message, remember } = parsed.data;
    current.resolve({ verdict, ...(message ? { message } : {}), ...(remember ? { remember } : {}) });
    reply(200, 'answered');
  };
  return { source, handle };
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) {
    text += String(chunk);
    if (text.length > 16_000) return null;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
