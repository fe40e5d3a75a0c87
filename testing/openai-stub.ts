import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage, ToolCall } from '../context/messages.js';

/** A chat-completions request as the stub received it. */
export interface StubRequest {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  max_tokens?: number;
  max_completion_tokens?: number;
  /** Set when the client asked for a streamed reply (then answered as server-sent events). */
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  /** The cache-routing hint rein sends where the endpoint accepts it. */
  prompt_cache_key?: string;
  headers: Record<string, string | string[] | undefined>;
}

/** What the stub answers: a reply, or a raw HTTP response (status, headers, body) to simulate faults. */
export type StubAnswer =
  | {
      content?: string | null;
      toolCalls?: Array<{ name: string; arguments: unknown; id?: string }>;
      usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
      finishReason?: string;
    }
  | { status: number; body: string; headers?: Record<string, string>; delayMs?: number }
  | { hang: true }
  | { reset: true };

export interface OpenAIStub {
  /** Base URL to use as OPENAI_BASE_URL, ending in /v1. */
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

/**
 * A local OpenAI-compatible HTTP server for tests and trials: answers
 * `POST /v1/chat/completions` from a handler and `GET /v1/models`. The real
 * `openai` SDK talks to it over HTTP, tool calls included.
 *
 * @example const stub = await startOpenAIStub((request) => ({ toolCalls: [{ name: 'finish', arguments: { summary: 'ok' } }] }));
 */
export async function startOpenAIStub(handler: (request: StubRequest, index: number) => StubAnswer | Promise<StubAnswer>): Promise<OpenAIStub> {
  const requests: StubRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer(async (incoming, response) => {
    try {
      await route(incoming, response);
    } catch (error) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `stub handler failed: ${(error as Error).message}` } }));
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function route(incoming: IncomingMessage, response: ServerResponse) {
    if (incoming.method === 'GET' && incoming.url?.endsWith('/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'stub-model', object: 'model' }] }));
      return;
    }
    const body = JSON.parse(await readBody(incoming)) as Omit<StubRequest, 'headers'>;
    const request = { ...body, headers: incoming.headers };
    const index = requests.push(request) - 1;
    const answer = await handler(request, index);
    if ('hang' in answer) return;
    if ('reset' in answer) {
      incoming.socket.destroy();
      return;
    }
    if ('status' in answer) {
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body);
      return;
    }
    if (body.stream) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const chunk of streamChunks(completion(body.model, answer, index), body.stream_options?.include_usage === true))
        response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      response.end('data: [DONE]\n\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(completion(body.model, answer, index)));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function completion(model: string, answer: Extract<StubAnswer, { content?: unknown }>, index: number) {
  const toolCalls: ToolCall[] = (answer.toolCalls ?? []).map((call, position) => ({
    id: call.id ?? `call_${index}_${position}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  const usage = answer.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
  return {
    id: `chatcmpl-${index}`,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        finish_reason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
        message: { role: 'assistant', content: answer.content ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
      },
    ],
    usage: {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
    },
  };
}

/** A completion as the chunks a streaming server sends: content in two halves, each call's arguments in two, then the finish, then the usage when asked. */
function streamChunks(whole: ReturnType<typeof completion>, includeUsage: boolean): unknown[] {
  const { message, finish_reason } = whole.choices[0]!;
  const base = { id: whole.id, object: 'chat.completion.chunk', created: 0, model: whole.model };
  const delta = (part: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta: part, finish_reason: finish }] });
  const chunks: unknown[] = [delta({ role: 'assistant' })];
  const content = message.content ?? '';
  if (content) chunks.push(delta({ content: content.slice(0, content.length >> 1) }), delta({ content: content.slice(content.length >> 1) }));
  for (const [position, call] of (message.tool_calls ?? []).entries()) {
    const args = call.function.arguments;
    chunks.push(
      delta({ tool_calls: [{ index: position, id: call.id, type: 'function', function: { name: call.function.name, arguments: args.slice(0, 3) } }] }),
    );
    chunks.push(delta({ tool_calls: [{ index: position, function: { arguments: args.slice(3) } }] }));
  }
  chunks.push(delta({}, finish_reason));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: whole.usage });
  return chunks;
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.on('error', reject);
  });
}
