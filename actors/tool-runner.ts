import { fromPromise } from 'xstate';
import type { ToolCall } from '../context/messages.js';
import { closestName } from '../lib/did-you-mean.js';
import { parseBoundedJson } from '../lib/json-depth.js';
import { maskSecrets, type SecretFinding } from '../lib/secrets/secret-scan.js';
import { isToolAllowed } from '../lib/tool-patterns.js';
import type { ToolsInput } from '../machines/actor-contracts.js';
import type { ToolCallResult, ToolsOutput } from '../machines/types.js';
import { firstValidFinish } from '../tools/finish.js';
import { findTool, parseToolArguments, toolSchemas } from '../tools/index.js';
import { realPathRefusal } from '../tools/permissions/real-path-approval.js';
import type { AnyTool, ToolContext, ToolOutcome } from '../tools/types.js';

/** Results of calls already executed, by `step:index`, so a resumed run never runs a call twice. */
export interface CallJournal {
  get(key: string): ToolCallResult | undefined;
  put(key: string, result: ToolCallResult): void;
  /** Notes that a call is about to run, so a resumed run knows it may have taken effect. */
  start?(key: string): void;
  wasStarted?(key: string): boolean;
}

interface ToolRunnerDeps {
  tools: readonly AnyTool[];
  /** Everything a tool needs but the abort signal, which comes from the invoking state. */
  toolContext: Omit<ToolContext, 'signal'>;
  journal?: CallJournal;
  /** Called after each executed call (for the trace and the status line). */
  onResult?: (result: ToolCallResult, step: number) => void;
  /** Values redacted from every result before the model, the record or the journal sees it (the API key in a file the agent reads). */
  secrets?: readonly string[];
  /** Called when a result had secrets masked (well-known formats or `secrets`): their kinds and positions, never the values. */
  onSecretsMasked?: (findings: SecretFinding[], call: { id: string; name: string }, step: number) => void;
  now?: () => number;
  /**
   * The most calls of one reply that run (`tools.maxCallsPerReply`); the rest are answered without running, so a step
   * of the step budget does at most this much (500 commands in one reply would otherwise be one step).
   */
  maxCallsPerReply?: number;
  /**
   * Awaited before the first call of a turn runs (the run's workspace snapshot of the step before, scanned while the
   * model answered), told the turn's calls as sent (whether they can write decides whether the next snapshot scans).
   */
  ready?: (calls: readonly { name: string; arguments: string }[]) => Promise<void>;
}

const failure = (content: string): ToolOutcome => ({ content, ok: false, effect: { kind: 'none' } });

/**
 * The tool actor: runs one turn's tool calls in order and stops before a
 * `finish` call, which the machine's gate decides (a phase whose tool list leaves
 * `finish` out refuses it like any other tool). Nothing a model sends
 * can make it throw: unknown tools, bad arguments, tools refused in this
 * phase and errors thrown by a tool all become `Tool error: …` results.
 *
 * @example const tools = createToolRunner({ tools: defaultTools, toolContext });
 */
export function createToolRunner(deps: ToolRunnerDeps) {
  const now = deps.now ?? Date.now;
  const secrets = (deps.secrets ?? []).filter((secret) => secret.length >= 6);
  return fromPromise<ToolsOutput, ToolsInput>(async ({ input, signal }) => {
    await deps.ready?.(input.calls.map((call) => call.function));
    const results: ToolCallResult[] = [];
    const finishTool = findTool(deps.tools, 'finish');
    // A finish the phase does not allow is refused like any other tool it does not allow: the gate never sees it.
    const finish = finishTool && allowedHere(input, 'finish') ? firstValidFinish(input.calls, finishTool) : null;
    for (const [index, call] of input.calls.entries()) {
      if (index === finish?.index) return { results, finish: { summary: finish.summary } };
      const key = `${input.step}:${input.offset + index}`;
      let result = deps.journal?.get(key);
      if (!result) {
        const started = now();
        const interrupted = deps.journal?.wasStarted?.(key) ?? false;
        deps.journal?.start?.(key);
        const position = input.offset + index;
        const ran =
          deps.maxCallsPerReply !== undefined && position >= deps.maxCallsPerReply
            ? { outcome: failure(overCapText(deps.maxCallsPerReply, position)), args: argsAsSent(call) }
            : await runCall(deps, call, input, signal, { interrupted, key });
        // Stopped mid-call (Ctrl+C, a kill, the time budget): the cut-short outcome is not the call's
        // result. It stays unjournaled, so a resumed run asks the tool to recover it.
        if (signal.aborted) break;
        const { args, outcome } = ran;
        const { text: content, findings } = maskSecrets(outcome.content, secrets);
        result = { id: call.id, name: call.function.name, args, outcome: content === outcome.content ? outcome : { ...outcome, content }, ms: now() - started };
        deps.journal?.put(key, result);
        deps.onResult?.(result, input.step);
        if (findings.length > 0) deps.onSecretsMasked?.(findings, { id: call.id, name: call.function.name }, input.step);
      }
      results.push({ ...result, id: call.id });
      if (signal.aborted) break;
    }
    return { results, finish: null };
  });
}

/** Whether the phase's tool list allows a tool and the tool is not placed in other phases only. */
function allowedHere(input: ToolsInput, name: string): boolean {
  return isToolAllowed(input.allowed, name) && !input.placedElsewhere?.includes(name);
}

async function runCall(
  deps: ToolRunnerDeps,
  call: ToolCall,
  input: ToolsInput,
  signal: AbortSignal,
  { interrupted, key }: { interrupted: boolean; key: string },
): Promise<{ outcome: ToolOutcome; args: unknown }> {
  const name = call.function.name;
  // Denied before it ran (an approval rule or an answer): the denial is its result.
  const denial = input.denied?.[call.id];
  if (denial !== undefined) return { outcome: failure(denial), args: argsAsSent(call) };
  const tool = findTool(deps.tools, name);
  if (!tool) {
    const names = deps.tools.map((candidate) => candidate.name).join(', ');
    const near = closestName(
      name,
      deps.tools.map((candidate) => candidate.name),
    );
    const hint = near ? ` Did you mean \`${near}\`?` : '';
    return { outcome: failure(`Tool error: unknown tool "${name.slice(0, 80)}".${hint} Available tools: ${names}.`), args: argsAsSent(call) };
  }
  if (!allowedHere(input, name)) {
    const placed = input.placedElsewhere?.includes(name) ? ` (${name} belongs to other phases: tools.phases)` : '';
    const allowed =
      deps.tools
        .filter((candidate) => allowedHere(input, candidate.name))
        .map((candidate) => candidate.name)
        .join(', ') || 'none';
    return { outcome: failure(`Tool error: ${name} is not allowed in the ${input.phase} phase${placed}. Allowed here: ${allowed}.`), args: argsAsSent(call) };
  }
  const parsed = parseToolArguments(tool, call.function.arguments);
  if (!parsed.ok) return { outcome: failure(`Tool error: ${parsed.message} ${schemaLine(tool)}`), args: argsAsSent(call) };
  const refusal = input.approvals ? realPathRefusal(deps.toolContext.root, name, call.function.arguments, input.approvals) : null;
  if (refusal) return { outcome: failure(refusal), args: parsed.args };
  try {
    const context = {
      ...deps.toolContext,
      signal,
      call: { id: call.id, key },
      ...(input.approvedByPerson?.includes(call.id) ? { approvedByPerson: true } : {}),
    };
    // A call a killed run had started: if its effect is already there, report it instead of applying it twice.
    const recovered = interrupted && tool.recover ? await tool.recover(parsed.args, context) : null;
    return { outcome: recovered ?? (await tool.execute(parsed.args, context)), args: parsed.args };
  } catch (error) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { outcome: failure(`Tool error: ${text}`), args: parsed.args };
  }
}

function overCapText(max: number, position: number): string {
  return (
    `Not run: one reply may make at most ${max} tool calls (tools.maxCallsPerReply), and this was call ${position + 1}. ` +
    'Each reply is one step of the step budget. Make the calls still needed in your next reply, or combine them (one command with &&, one grep over a folder).'
  );
}

const schemaLines = new WeakMap<AnyTool, string>();

/** The tool's parameter schema, shown with an argument error so the model can write the call right (one per tool, made once). */
function schemaLine(tool: AnyTool): string {
  let line = schemaLines.get(tool);
  if (line === undefined) {
    line = `Parameters of ${tool.name}: ${JSON.stringify(toolSchemas([tool])[0]!.function.parameters)}`;
    schemaLines.set(tool, line);
  }
  return line;
}

/** A refused call's arguments as the model sent them: parsed when they are JSON (the trace and the stall detector see an object), else the raw text. */
function argsAsSent(call: ToolCall): unknown {
  try {
    return parseBoundedJson(call.function.arguments);
  } catch {
    return call.function.arguments;
  }
}
