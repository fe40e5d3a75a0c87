import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { PlayedStep } from './trajectory.js';

/** What the stub saw of one run: its requests, when the first came, how long it spent answering. */
export interface StubLog {
  requests: number;
  /** performance.now() when the first chat request arrived, or null. */
  firstRequestAt: number | null;
  /** Time from each request's arrival to its response's end, summed. */
  insideMs: number;
  /** Characters of the requests' bodies, summed (what the loop sent the model). */
  promptChars: number;
  /** Called as the first chat request arrives, before it is answered. */
  onFirstRequest?: () => void;
}

/**
 * An OpenAI-compatible endpoint that answers the n-th chat request with the n-th step of a trajectory
 * (finish past its end), instantly, and times itself: what the loop waits for here is the stub's, not the loop's.
 */
export async function startTrajectoryStub(): Promise<{ url: string; play(steps: PlayedStep[]): StubLog; close(): Promise<void> }> {
  let steps: PlayedStep[] = [];
  let log: StubLog = { requests: 0, firstRequestAt: null, insideMs: 0, promptChars: 0 };
  const server = createServer((request, response) => {
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.on('finish', () => {
        log.insideMs += performance.now() - arrived;
      });
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ object: 'list', data: [{ id: 'stub-model', object: 'model' }] }));
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const index = log.requests++;
      if (log.firstRequestAt === null) {
        log.firstRequestAt = arrived;
        log.onFirstRequest?.();
      }
      log.promptChars += body.length;
      const step = steps[index] ?? { content: 'Out of steps.', calls: [{ name: 'finish', arguments: { summary: 'out of steps' } }] };
      const toolCalls = step.calls.map((call, position) => ({
        id: `call_${index}_${position}`,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      }));
      const promptTokens = Math.ceil(body.length / 4);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${index}`,
          object: 'chat.completion',
          created: 0,
          model: 'stub-model',
          choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: step.content, tool_calls: toolCalls } }],
          usage: { prompt_tokens: promptTokens, completion_tokens: 30, total_tokens: promptTokens + 30 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    play(next) {
      steps = next;
      log = { requests: 0, firstRequestAt: null, insideMs: 0, promptChars: 0 };
      return log;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
