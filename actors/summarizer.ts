import { fromPromise } from 'xstate';
import { summaryRange } from '../context/context-manager.js';
import type { ChatMessage, MessageRecord } from '../context/messages.js';
import type { ViewBuilder } from '../context/view-builder.js';
import { ReinError } from '../lib/errors.js';
import type { SummaryInput, SummaryOutput } from '../machines/actor-contracts.js';

/** Turns a transcript into summary text: a model call, or an offline stand-in. */
export type SummarizeText = (prompt: string, transcript: string, signal: AbortSignal) => Promise<string>;

/**
 * The summarizer actor (stage 2 of the context manager): folds the middle of
 * the view, between the task and the last messages, into one summary. The
 * todo list is appended by the harness, not the model, so the plan survives.
 *
 * @example const summarizer = createSummarizer({ record: () => transcript, builder, prompt: rules.messages.summaryPrompt, summarize });
 */
export function createSummarizer(deps: { record: () => MessageRecord; builder: ViewBuilder; prompt: string; summarize: SummarizeText; windowTokens: number }) {
  return fromPromise<SummaryOutput, SummaryInput>(async ({ input, signal }) => {
    await Promise.resolve(); // let the record appends of the starting transition land first
    const record = deps.record();
    const view = deps.builder.viewFor(record, input.contextState);
    // The manager decided what to fold; a state saved before it did (an older run resumed) is worked out here.
    const range = input.contextState.fold ?? summaryRange(record, input.contextState, { view, windowTokens: deps.windowTokens, lowWater: 1 });
    if (!range) throw new ReinError('nothing to summarize: the view is all head and tail');
    const folded = view.messages.filter((_, position) => {
      const source = view.sources[position]!;
      return source === -1 || (source >= range.from && source <= range.through);
    });
    const foldedChars = folded.reduce((sum, message) => sum + (message.content?.length ?? 0), 0);
    const text = (await deps.summarize(deps.prompt, renderTranscript(folded), signal)).trim();
    if (!text) throw new ReinError('the summarizer returned an empty summary');
    const todo =
      input.todo.length > 0 ? `\n\nTodo list (kept by the harness):\n${input.todo.map((item) => `[${item.done ? 'x' : ' '}] ${item.task}`).join('\n')}` : '';
    const summary = text + todo;
    return { summary: { text: summary, through: range.through }, foldedChars, summaryChars: summary.length };
  });
}

/** Messages as plain text for the summarizing prompt. */
function renderTranscript(messages: readonly ChatMessage[]): string {
  return messages
    .map((message) => {
      if (message.role === 'assistant') {
        const calls = (message.tool_calls ?? []).map((call) => `  -> ${call.function.name}(${call.function.arguments.slice(0, 400)})`).join('\n');
        return `assistant: ${message.content ?? ''}${calls ? `\n${calls}` : ''}`;
      }
      return `${message.role}: ${message.content}`;
    })
    .join('\n\n');
}

/**
 * An offline summary with no model: the actions taken and the first line of
 * each result. Used by the scripted model and as a last resort.
 */
export const extractiveSummary: SummarizeText = async (_prompt, transcript) => {
  const lines = transcript.split('\n').filter((line) => line.startsWith('  -> ') || /^(tool|user): /.test(line));
  return lines
    .map((line) => line.slice(0, 160))
    .slice(-60)
    .join('\n');
};
