import { didYouMean } from '../lib/did-you-mean.js';
import { UsageError } from '../lib/errors.js';
import { defaultTools } from './index.js';
import type { AnyTool } from './types.js';

/**
 * The run's tool surface: the tools named by `rules.tools.enabled`, in that
 * order, from the registry (rein's tools plus any registered from TypeScript).
 * Fixed for the whole run so the tool schemas, near the front of every
 * request, never change and the prompt cache holds.
 */
export function selectTools(registry: readonly AnyTool[] | undefined, enabled: readonly string[]): AnyTool[] {
  const available = registry ?? defaultTools;
  const byName = new Map(available.map((tool) => [tool.name, tool]));
  const selected = enabled.map((name, index) => {
    const tool = byName.get(name);
    if (!tool)
      throw new UsageError(
        `tools.enabled[${index}]: unknown tool "${name}"${didYouMean(name, [...byName.keys()])}; available: ${[...byName.keys()].join(', ')}`,
      );
    return tool;
  });
  if (!selected.some((tool) => tool.name === 'finish')) throw new UsageError('tools.enabled: "finish" is required; without it a run can never end as done');
  return selected;
}
