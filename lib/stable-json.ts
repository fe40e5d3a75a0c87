/**
 * JSON with object keys sorted at every depth. Prompts and tool schemas built
 * with it are byte-identical across calls, which keeps the provider's prompt
 * cache warm (seed component 9).
 *
 * @example stableStringify({ b: 1, a: [ { d: 2, c: 3 } ] }) // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value));
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return sortKeysDeep((value as { toJSON(): unknown }).toJSON());
  }
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const entry = (value as Record<string, unknown>)[key];
    if (entry !== undefined) sorted[key] = sortKeysDeep(entry);
  }
  return sorted;
}
