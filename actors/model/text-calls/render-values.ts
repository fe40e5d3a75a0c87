/**
 * Values written the ways chat templates write them: Python's `json.dumps`
 * (`, ` and `: ` separators, Unicode kept, as Jinja's `tojson` does), Python's
 * `repr` (what `{{ value | string }}` gives a list or a bool), and Gemma's
 * `<escape>`-quoted objects. The renderers of the census formats use them.
 */

/**
 * JSON with Python's default separators and the characters kept as they are.
 *
 * @example pyJson({ a: [1, 'é'] }) // '{"a": [1, "é"]}'
 */
export function pyJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${pyJson(item)}`)
      .join(', ')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * A value as Python's `repr` prints it: single-quoted strings (double quotes
 * when the text holds a single quote and no double one), `True`, `False`, `None`.
 *
 * @example pyRepr({ ok: true, tags: ["it's"] }) // `{'ok': True, 'tags': ["it's"]}`
 */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloat(value);
  if (typeof value === 'string') return pyString(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${pyString(key)}: ${pyRepr(item)}`)
    .join(', ')}}`;
}

function pyFloat(value: number): string {
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

const PY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function pyString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    if (char === quote) out += `\\${char}`;
    else if (PY_ESCAPES[char]) out += PY_ESCAPES[char];
    else if (char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f) out += `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return out + quote;
}

/**
 * A parameter value as the XML-style templates write it: a string as it is,
 * anything else as JSON (GLM, MiniMax) or as Python's repr (Qwen3-Coder's `| string`).
 *
 * @example tagValue(['a'], 'repr') // "['a']"
 */
export function tagValue(value: unknown, others: 'json' | 'repr'): string {
  if (typeof value === 'string') return value;
  if (others === 'json') return pyJson(value);
  // Jinja's `| tojson` for a mapping, `| string` (Python's str) for the rest.
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? pyJson(value) : pyRepr(value);
}

/**
 * Gemma's call grammar: unquoted keys, strings between `quote` markers
 * (`<escape>` for FunctionGemma, `<|"|>` for Gemma 4), numbers and booleans bare.
 *
 * @example gemmaValue({ city: 'Paris', days: 3 }, '<escape>') // '{city:<escape>Paris<escape>,days:3}'
 */
export function gemmaValue(value: unknown, quote: string): string {
  if (typeof value === 'string') return `${quote}${value}${quote}`;
  if (Array.isArray(value)) return `[${value.map((item) => gemmaValue(item, quote)).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${key}:${gemmaValue(item, quote)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}
