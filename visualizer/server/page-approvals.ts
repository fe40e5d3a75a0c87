import { randomBytes } from 'node:crypto';
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

/** The header the page sends its token in: a custom header also makes a cross-site request need a preflight, which is never answered. */
const TOKEN_HEADER = 'x-rein-token';

/**
 * The visualizer page as an answer source: the waiting call is shown with
 * Approve / Deny buttons, which POST to `/approval` with the run's token (a
 * random value in the page the server gave out). The answer must name the
 * waiting call's id and argument hash; anything else is refused (409).
 *
 * @example const approvals = createPageApprovals(); startRun({ ..., answerSources: [approvals.source] });
 */
export function createPageApprovals() {
  const token = randomBytes(24).toString('base64url');
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
    if (request.headers[TOKEN_HEADER] !== token) return reply(403, 'wrong or missing token');
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
  return { token, source, handle };
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
