import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractiveSummary } from 'rein/actors';
import type { ModelInput, ModelReply } from 'rein/machines';
import { startRun } from 'rein/run';
import type { AnyTool } from 'rein/tools';
import { fromPromise } from 'xstate';
import { z } from 'zod';
import { benchRules } from './bench-rules.js';

/** Prefix reuse as a provider would see it, measured on the requests the real harness sends. */
export interface HarnessPrefixFigures {
  steps: number;
  providerCharsPerToken: number;
  requests: number;
  /** Share of all request characters that repeat the previous request's prefix byte for byte. */
  prefixReuse: number;
  /** Requests that reuse less than half of the previous one: each is a cache miss for most of the prompt. */
  breaks: number;
  /** Largest request against the window, in the provider's count. */
  peakShare: number;
  elisions: number;
  summaries: number;
  /** Prompt tokens of every request, as the provider counts them. */
  promptTokens: number;
}

/** The tool schemas' share of every prompt, as a provider counts it. */
const SCHEMA_TOKENS = 400;

const contentChars = (messages: ModelInput['messages']) =>
  messages.reduce(
    (sum, message) =>
      sum +
      (typeof message.content === 'string' ? message.content.length : 0) +
      ('tool_calls' in message && message.tool_calls ? JSON.stringify(message.tool_calls).length : 0),
    0,
  );

/** A tool with a large, always different result, like a test run's output. */
function outputTool(resultChars: number): AnyTool {
  return {
    name: 'probe',
    description: 'Run a probe.',
    parameters: z.object({ n: z.number() }).strict(),
    async execute(args) {
      const n = (args as { n: number }).n;
      const body = Array.from({ length: Math.ceil(resultChars / 60) }, (_, line) => `probe ${n} line ${line}: assert parse(case_${line}) == expected`).join(
        '\n',
      );
      return { content: `exit=1\n${body}`.slice(0, resultChars), ok: true, effect: { kind: 'none' } };
    },
  };
}

/**
 * Runs the real harness (statechart, context manager, view builder, tool
 * schemas in the prompt) for `steps` steps with a model that records every
 * request and calls a tool whose results are ~`resultChars` long.
 */
export async function measureHarnessPrefix(
  steps: number,
  options: { resultChars?: number; windowTokens?: number; providerCharsPerToken?: number } = {},
): Promise<HarnessPrefixFigures> {
  const { resultChars = 4000, windowTokens = 32_768, providerCharsPerToken = 4 } = options;
  const workspace = mkdtempSync(join(tmpdir(), 'rein-bench-prefix-ws-'));
  const runDir = mkdtempSync(join(tmpdir(), 'rein-bench-prefix-run-'));
  const rules = benchRules(steps, 'probe', { stall: false, windowTokens });
  const bodies: string[] = [];
  let peak = 0;
  let promptTokensSum = 0;
  const model = () =>
    fromPromise<ModelReply, ModelInput>(async ({ input }) => {
      const body = JSON.stringify(input.messages);
      bodies.push(body);
      const promptTokens = Math.ceil(contentChars(input.messages) / providerCharsPerToken) + 4 * input.messages.length + SCHEMA_TOKENS;
      peak = Math.max(peak, promptTokens);
      promptTokensSum += promptTokens;
      return {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: `call_${input.step + 1}_0`, type: 'function', function: { name: 'probe', arguments: JSON.stringify({ n: input.step }) } }],
        },
        // Counted as a provider would (text at `providerCharsPerToken`, a few tokens of framing per message), so rein's estimate calibrates as in a real run.
        usage: { promptTokens, completionTokens: 20, cachedTokens: 0 },
        requestChars: contentChars(input.messages),
      };
    });
  const handle = await startRun({
    workspace,
    task: 'Benchmark task.',
    testCmd: 'true',
    rules,
    runDir,
    fsync: false,
    saveState: false,
    tools: [outputTool(resultChars)],
    model: { name: 'recorder', description: 'benchmark', createActor: model, summarize: extractiveSummary },
  });
  const output = await handle.done;
  const trace = readFileSync(handle.tracePath, 'utf8');
  rmSync(workspace, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
  let total = 0;
  let reused = 0;
  let breaks = 0;
  bodies.forEach((body, index) => {
    total += body.length;
    if (index === 0) return;
    const previous = bodies[index - 1]!;
    let common = 0;
    const limit = Math.min(previous.length, body.length);
    while (common < limit && previous.charCodeAt(common) === body.charCodeAt(common)) common++;
    reused += common;
    if (common < body.length / 2) breaks++;
  });
  const count = (action: string) => trace.split(`"action":"${action}"`).length - 1;
  return {
    steps: output.steps,
    providerCharsPerToken,
    requests: bodies.length,
    prefixReuse: reused / total,
    breaks,
    peakShare: peak / windowTokens,
    elisions: count('elided'),
    summaries: count('summarized'),
    promptTokens: promptTokensSum,
  };
}
