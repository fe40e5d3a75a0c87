import { z } from 'zod';
import { FIND_TOOLS_NAME } from '../../lib/tool-patterns.js';
import type { AnyTool } from '../../tools/types.js';
import type { CatalogueEntry } from './mcp-tools.js';

export const FIND_TOOLS = FIND_TOOLS_NAME;
const MAX_RESULTS = 10;

/**
 * The catalogue's best matches for a query: every word of the query found in
 * a tool's name scores 3, in its description 1; ties keep catalogue order.
 *
 * @example searchCatalogue(entries, 'search docs', 5)
 */
function searchCatalogue(entries: readonly CatalogueEntry[], query: string, limit: number): CatalogueEntry[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1);
  if (words.length === 0) return [];
  const scored = entries.map((entry, index) => {
    const name = `${entry.server} ${entry.tool}`.toLowerCase();
    const description = entry.description.toLowerCase();
    const score = words.reduce((sum, word) => sum + (name.includes(word) ? 3 : 0) + (description.includes(word) ? 1 : 0), 0);
    return { entry, score, index };
  });
  return scored
    .filter((item) => item.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((item) => item.entry);
}

/**
 * `find_tools`: searches the MCP servers' tools by name and description and
 * makes the ones it finds callable from the next turn on. Their definitions
 * are appended at the end of the tool list (`append`), so everything before
 * them, the cached prompt prefix, stays byte-identical.
 *
 * @example createFindTools(() => catalogue, (found) => hub.append(found))
 */
export function createFindTools(catalogue: () => readonly CatalogueEntry[], append: (entries: CatalogueEntry[]) => CatalogueEntry[]): AnyTool {
  return {
    name: FIND_TOOLS,
    description:
      'Search the tools of the connected MCP servers (docs, trackers, databases, ...) by what they do. The tools found are added to your tools and can be called from your next turn.',
    parameters: z.object({
      query: z.string().min(1).max(500).describe('Words describing the tool you need, e.g. "search documentation"'),
      limit: z.number().int().min(1).max(MAX_RESULTS).default(5).describe('Most tools to add'),
    }),
    async execute(args) {
      const { query, limit } = args as { query: string; limit: number };
      const found = searchCatalogue(catalogue(), query, limit);
      if (found.length === 0) {
        const servers = [...new Set(catalogue().map((entry) => entry.server))].join(', ') || 'none connected';
        return {
          ok: true,
          content: `No MCP tool matches "${query.slice(0, 100)}". Servers: ${servers}. Try other words.`,
          effect: { kind: 'search', pattern: query },
        };
      }
      const added = new Set(append(found).map((entry) => entry.name));
      const lines = found.map((entry) => `- ${entry.name}${added.has(entry.name) ? '' : ' (already available)'}: ${entry.description.slice(0, 200)}`);
      return { ok: true, content: `Found ${found.length} tool(s); call them directly:\n${lines.join('\n')}`, effect: { kind: 'search', pattern: query } };
    },
  };
}
