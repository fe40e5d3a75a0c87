import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

// A canary API key: long enough that the redaction also drops its recognizable head and tail.
const CANARY = 'sk-canary-7f3a9c2e41d8b6057e1fCANARY';
const PIECES = [CANARY, CANARY.slice(0, 12), CANARY.slice(-8)];

/** A model that leaks the key it was called with everywhere it can: its text, a command, the command's output, the summary. */
function leakyPolicy(request: StubRequest) {
  const results = request.messages.filter((message) => message.role === 'tool');
  if (results.length === 0) return { content: `Using key ${CANARY} to check.`, toolCalls: [{ name: 'run', arguments: { command: `echo ${CANARY}` } }] };
  if (results.length === 1) return { toolCalls: [{ name: 'run', arguments: { command: 'node --test' } }] };
  return { toolCalls: [{ name: 'finish', arguments: { summary: `Done; the key was ${CANARY}` } }] };
}

describe("contents in spans pass through the trace's redaction", () => {
  let stub: OpenAIStub | undefined;
  let collector: OtlpReceiver | undefined;
  afterEach(async () => {
    await stub?.close();
    await collector?.close();
    stub = undefined;
    collector = undefined;
  });

  it('with contents opted in, a key the model echoes never reaches the collector, live or exported afterwards', async () => {
    stub = await startOpenAIStub(leakyPolicy);
    collector = await startOtlpReceiver();
    const repo = makeTempDir('rein-otel-', { until: 'exit' });
    writeFileSync(join(repo, 'ok.test.js'), "import { test } from 'node:test';\ntest('ok', () => {});\n");
    const env = cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: CANARY });
    const result = await runCli(
      ['run', repo, 'Check the key', '--test-cmd', 'node --test', '--model', 'stub-model', '--otel', collector.url, '--otel-content', '--json'],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    // The model did echo the key: the stub's own requests hold it (the tool result went back to the model).
    expect(JSON.stringify(stub.requests.map((request) => request.messages))).toContain(CANARY);

    const live = collector.bodies.join('\n');
    expect(collector.spans.length).toBeGreaterThan(0);
    for (const piece of PIECES) expect(live).not.toContain(piece);
    // The contents are there, redacted: the reply text, the command, its output and the summary.
    const chat = collector.spans.find((span) => span.name === 'chat stub-model' && span.attributes['rein.step'] === 1)!;
    expect(chat.kind).toBe(3); // CLIENT: the model is behind a URL
    expect(chat.attributes['gen_ai.output.messages']).toContain('Using key [redacted] to check.');
    const echo = collector.spans.find((span) => span.name === 'execute_tool run' && span.attributes['rein.step'] === 1)!;
    expect(echo.attributes['gen_ai.tool.call.arguments']).toContain('echo [redacted]');
    expect(echo.attributes['gen_ai.tool.call.result']).toContain('[redacted]');
    expect(collector.spans.find((span) => span.name === 'invoke_agent rein')!.attributes['gen_ai.output.messages']).toContain('the key was [redacted]');
    const trace = readFileSync(summary.trace, 'utf8');
    for (const piece of PIECES) expect(trace).not.toContain(piece);

    // Afterwards, from the run directory: the same redaction again.
    const later = await startOtlpReceiver();
    try {
      const exported = await runCli(['trace', 'export', summary.runDir, '--endpoint', later.url, '--content'], { env });
      expect(exported.code, exported.stderr).toBe(0);
      expect(later.spans.length).toBe(collector.spans.length);
      const sent = later.bodies.join('\n');
      for (const piece of PIECES) expect(sent).not.toContain(piece);
      expect(sent).toContain('echo [redacted]');
    } finally {
      await later.close();
    }
  }, 120_000);
});
