import { didYouMean } from '../lib/did-you-mean.js';
import { UsageError } from '../lib/errors.js';
import type { Rules } from '../rules/schema.js';
import { addedToolNames, defaultTools } from './index.js';
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

/**
 * The rules with a registry's added tools (a rules file's, a library
 * caller's) in `tools.enabled`, after rein's: registered once, a tool is
 * offered in every phase whose tool list allows it, without being listed again.
 */
export function enableRegistered(rules: Rules, registry: readonly AnyTool[] | undefined): Rules {
  const missing = addedToolNames(registry ?? []).filter((name) => !rules.tools.enabled.includes(name));
  // Where a tool says it belongs, unless the rules place it themselves.
  const placed = (registry ?? []).filter((tool) => tool.phases !== undefined && rules.tools.phases[tool.name] === undefined);
  if (missing.length === 0 && placed.length === 0) return rules;
  return {
    ...rules,
    tools: {
      ...rules.tools,
      enabled: [...rules.tools.enabled, ...missing],
      phases: { ...rules.tools.phases, ...Object.fromEntries(placed.map((tool) => [tool.name, [...tool.phases!]])) },
    },
  };
}
