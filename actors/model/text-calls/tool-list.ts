/** The tools a reply may call, as the parsers need them: names, and each parameter's JSON-schema type. */
export type ToolList = ReadonlyMap<string, { types: ReadonlyMap<string, string> }>;

/**
 * A `ToolList` from the run's OpenAI `tools` array; entries that are not function schemas are left out.
 *
 * @example toolList(toolSchemas(defaultTools)).has('read_file') // true
 */
export function toolList(schemas: readonly unknown[]): ToolList {
  const list = new Map<string, { types: Map<string, string> }>();
  for (const schema of schemas) {
    const fn = (schema as { function?: { name?: unknown; parameters?: { properties?: Record<string, { type?: unknown }> } } })?.function;
    if (typeof fn?.name !== 'string') continue;
    const types = new Map<string, string>();
    for (const [key, property] of Object.entries(fn.parameters?.properties ?? {})) if (typeof property?.type === 'string') types.set(key, property.type);
    list.set(fn.name, { types });
  }
  return list;
}
