/** A plain JSON-like object. */
export type Plain = Record<string, unknown>;

const isPlain = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Deep-merges rule layers, later layers winning; arrays are replaced, not
 * concatenated, so a rules file can shorten a default list.
 *
 * @example mergeRules({ budgets: { maxSteps: 40 } }, { budgets: { maxSeconds: 60 } })
 */
export function mergeRules(...layers: Array<Plain | undefined>): Plain {
  const result: Plain = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      result[key] = isPlain(value) && isPlain(result[key]) ? mergeRules(result[key] as Plain, value) : value;
    }
  }
  return result;
}
