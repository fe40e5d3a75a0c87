import type { Tool as ServerTool } from '@modelcontextprotocol/sdk/types.js';
import { buildCatalogue, createFindTools, type ServerHandle } from 'rein/mcp';
import { mcpServerSchema } from 'rein/rules';
import { type AnyTool, defaultTools, toolSchemasJson } from 'rein/tools';

/** One scripted session's shape: how long it is and which MCP tools it uses when. */
interface SessionShape {
  steps: number;
  /** Steps at which the model first needs a new MCP tool (one tool each). */
  firstUses: number[];
  /** Characters each step adds to the conversation (the call and its result). */
  stepChars: number;
  charsPerToken: number;
}

export interface PromptFigures {
  tools: number;
  mode: 'all sent' | 'found on demand';
  requests: number;
  firstPromptTokens: number;
  definitionTokens: number;
  promptTokens: number;
  /** Share of all prompt tokens that repeat the previous request's prefix byte for byte (what a prefix cache can serve). */
  prefixReuse: number;
}

/**
 * Tool definitions of `count` MCP tools over four servers, shaped like the
 * reference servers' (a title-length name, a two-sentence description, three
 * arguments), built through rein's own catalogue code (schema checks, names).
 */
export function syntheticCatalogue(count: number): AnyTool[] {
  const servers = ['docs', 'tracker', 'db', 'browser'].map((name, index) => {
    const tools: ServerTool[] = [];
    for (let i = index; i < count; i += 4) tools.push(syntheticTool(name, i));
    return { handle: { name } as ServerHandle, rules: mcpServerSchema.parse({ command: 'x' }), tools };
  });
  return buildCatalogue(servers, [...defaultTools.map((tool) => tool.name), 'find_tools'], new Map()).entries.map((entry) => entry.rein);
}

function syntheticTool(server: string, index: number): ServerTool {
  return {
    name: `${['search', 'get', 'list', 'update'][index % 4]}_${server}_item_${index}`,
    description: `Looks up ${server} item ${index} by its key or a free-text query and returns its fields as JSON. Use it before changing anything that depends on ${server} data.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Free text or an exact key' },
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Most results' },
        fields: { type: 'array', items: { type: 'string' }, description: 'Fields to return (all when absent)' },
      },
      required: ['query'],
    },
  };
}

/**
 * Every request's prompt in one session, as the provider sees it: the tool
 * definitions first (as chat templates render them), then the conversation.
 * All sent: rein's tools and every MCP tool from the start. Found on demand:
 * rein's tools and find_tools; before each first use the model calls
 * find_tools (one more step), and the tool found is appended at the end of
 * the list.
 */
export function measureSession(catalogue: AnyTool[], mode: PromptFigures['mode'], shape: SessionShape): PromptFigures {
  const builtIn = [...defaultTools];
  const findTools = createFindTools(
    () => [],
    () => [],
  );
  const tools = mode === 'all sent' ? [...builtIn, ...catalogue] : [...builtIn, findTools];
  const used = shape.firstUses.map((_, index) => catalogue[(index * 37) % catalogue.length]!);
  const prompts: string[] = [];
  let conversation = 'system prompt and task '.repeat(40);
  for (let step = 0; step < shape.steps; step++) {
    const first = shape.firstUses.indexOf(step);
    if (mode === 'found on demand' && first !== -1) {
      // The find_tools turn: its request, then the definition appended for the rest of the run.
      prompts.push(toolSchemasJson(tools) + conversation);
      conversation += 'f'.repeat(shape.stepChars / 4);
      tools.push(used[first]!);
    }
    prompts.push(toolSchemasJson(tools) + conversation);
    conversation += 's'.repeat(shape.stepChars) + String(step);
  }
  const tokens = (chars: number) => Math.ceil(chars / shape.charsPerToken);
  let reused = 0;
  let total = 0;
  prompts.forEach((prompt, index) => {
    total += prompt.length;
    if (index > 0) reused += commonPrefix(prompts[index - 1]!, prompt);
  });
  return {
    tools: catalogue.length,
    mode,
    requests: prompts.length,
    firstPromptTokens: tokens(prompts[0]!.length),
    definitionTokens: tokens(toolSchemasJson(mode === 'all sent' ? [...builtIn, ...catalogue] : [...builtIn, findTools]).length),
    promptTokens: tokens(total),
    prefixReuse: reused / total,
  };
}

function commonPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let at = 0;
  while (at < max && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at;
}
