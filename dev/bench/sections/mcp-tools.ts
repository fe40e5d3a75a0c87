import { measureSession, type PromptFigures, syntheticCatalogue } from '../mcp-tool-prompts.js';
import { type BenchSection, grouped, percent, times } from '../section.js';

const SHAPE = { steps: 40, firstUses: [5, 15, 25], stepChars: 1_500, charsPerToken: 4 };
const SIZES = [5, 200];

/** Prompt tokens and prefix reuse with few and many MCP tools: every definition sent vs find_tools and definitions appended as found. */
export const mcpToolsSection: BenchSection = {
  id: 'mcp-tools',
  title: `MCP tool definitions in the prompt: ${SIZES.join(' and ')} MCP tools, all sent vs found on demand (find_tools), one ${SHAPE.steps}-step session using 3 of them`,
  async run() {
    const figures: PromptFigures[] = SIZES.flatMap((size) => {
      const catalogue = syntheticCatalogue(size);
      return [measureSession(catalogue, 'all sent', SHAPE), measureSession(catalogue, 'found on demand', SHAPE)];
    });
    const allSent = (size: number) => figures.find((row) => row.tools === size && row.mode === 'all sent')!;
    const many = figures.filter((row) => row.tools === 200);
    return {
      tables: [
        {
          headers: [
            'MCP tools',
            'definitions',
            'requests',
            'tool definitions, tokens',
            'first prompt, tokens',
            'prompt tokens, session',
            'vs all sent',
            'prefix reuse',
          ],
          rows: figures.map((row) => [
            row.tools,
            row.mode,
            row.requests,
            grouped(row.definitionTokens),
            grouped(row.firstPromptTokens),
            grouped(row.promptTokens),
            times(row.promptTokens / allSent(row.tools).promptTokens),
            percent(row.prefixReuse),
          ]),
        },
      ],
      notes: [
        `With 200 MCP tools, finding them on demand sends ${grouped(many[1]!.promptTokens)} prompt tokens in the session instead of ${grouped(many[0]!.promptTokens)} (${times(many[1]!.promptTokens / many[0]!.promptTokens)}), with ${percent(many[1]!.prefixReuse)} of them a repeat of the previous request's prefix (${percent(many[0]!.prefixReuse)} when all are sent): each definition found is appended after the others, so only the request right after a find re-reads the conversation.`,
        `rein picks the mode itself: find_tools when the MCP definitions would take more than mcp.toolSearchShare (default 10%) of the context window. The catalogue is synthetic (four servers, three-argument tools shaped like the reference servers'), built through rein's catalogue code; tokens are characters / ${SHAPE.charsPerToken}.`,
      ],
    };
  },
};
