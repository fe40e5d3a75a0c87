/** The tools a reply may call, as the recognizer needs them: names, and the JSON-schema types each parameter may take. */
export type ToolList = ReadonlyMap<string, { types: ReadonlyMap<string, readonly string[]> }>;

/**
 * A `ToolList` from the run's OpenAI `tools` array; entries that are not function schemas are left out.
 * A parameter's types come from `type` (a name or a list) and from the branches of `anyOf`/`oneOf`.
 *
 * @example toolList(toolSchemas(defaultTools)).get('read_file')?.types.get('path') // ['string']
 */
export function toolList(schemas: readonly unknown[]): ToolList {
  const list = new Map<string, { types: Map<string, string[]> }>();
  for (const schema of schemas) {
    const fn = (schema as { function?: { name?: unknown; parameters?: { properties?: Record<string, unknown> } } })?.function;
    if (typeof fn?.name !== 'string') continue;
    const types = new Map<string, string[]>();
    for (const [key, property] of Object.entries(fn.parameters?.properties ?? {})) {
      const found = typesOf(property, 0);
      if (found.length > 0) types.set(key, [...new Set(found)]);
    }
    list.set(fn.name, { types });
  }
  return list;
}

function typesOf(property: unknown, depth: number): string[] {
  if (property === null || typeof property !== 'object' || depth > 4) return [];
  const { type, anyOf, oneOf } = property as { type?: unknown; anyOf?: unknown; oneOf?: unknown };
  const own = typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string') : [];
  const branches = [anyOf, oneOf].flatMap((list) => (Array.isArray(list) ? list.flatMap((branch) => typesOf(branch, depth + 1)) : []));
  return [...own, ...branches];
}
