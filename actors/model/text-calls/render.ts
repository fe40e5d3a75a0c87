/** The ways a gateway or a small model bends arguments, all of which rein repairs (and traces). */
export const MANGLES = ['double-encoded', 'trailing-comma', 'single-quotes', 'unquoted-keys', 'cut-off'] as const;
export type Mangle = (typeof MANGLES)[number];

/**
 * Arguments as a bending model sends them: the JSON text encoded twice, with a
 * trailing comma, single quotes, unquoted keys or its closing brace cut off.
 *
 * @example mangleArguments({ path: 'a.py' }, 'single-quotes') // "{'path':'a.py'}"
 */
export function mangleArguments(args: Record<string, unknown>, how: Mangle): string {
  const json = JSON.stringify(args);
  if (how === 'double-encoded') return JSON.stringify(json);
  if (how === 'trailing-comma') return json.replace(/}$/, ',}');
  if (how === 'cut-off') return json.replace(/}$/, '');
  // Quotes swapped where no value holds a quote of either kind; other values keep their JSON spelling.
  const entries = Object.entries(args).map(([key, value]) => {
    const text = typeof value === 'string' && !/['"\\]/.test(value) ? `'${value}'` : JSON.stringify(value);
    return how === 'unquoted-keys' && /^[A-Za-z_]\w*$/.test(key) ? `${key}:${text}` : `'${key}':${text}`;
  });
  return `{${entries.join(',')}}`;
}
