import { jsonrepair } from 'jsonrepair';

/** Longest JSON text a lenient parse is tried on: the repair is linear, but a reply of megabytes is not a call. */
export const MAX_REPAIR_CHARS = 200_000;

/**
 * The end (exclusive) of the JSON object or array that starts at `start`,
 * found by matching brackets outside strings; the content's end when the
 * value is cut off (the lenient parse may still close it).
 *
 * @example jsonEnd('x {"a": "}"} y', 2) // 12
 */
export function jsonEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let at = start; at < text.length; at++) {
    const c = text[at];
    if (inString) {
      if (c === '\\') at++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return at + 1;
    }
  }
  return text.length;
}

/** A JSON value from text, strict first, then lenient (`jsonrepair`); `repaired` says the lenient parse was needed. */
type Parsed = { ok: true; value: unknown; repaired: boolean } | { ok: false };

export function parseJsonLeniently(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text), repaired: false };
  } catch {
    if (text.length > MAX_REPAIR_CHARS) return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(jsonrepair(text)), repaired: true };
  } catch {
    return { ok: false };
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Keys a call object may have besides its name and arguments (ids and types some templates add). */
const EXTRA_KEYS = new Set(['id', 'type']);

/**
 * A call object in one of the spellings models use: `{name, arguments}`,
 * `{name, parameters}` (Llama), or OpenAI's `{type: 'function', function: {name, arguments}}`.
 * Any other key means the object is data, not a call (a JSON file the model quotes).
 */
function callOf(value: unknown): { name: string; arguments: unknown } | null {
  if (!isRecord(value)) return null;
  if (isRecord(value.function) && Object.keys(value).every((key) => key === 'function' || EXTRA_KEYS.has(key))) return callOf(value.function);
  if (typeof value.name !== 'string') return null;
  const argsKey = 'arguments' in value ? 'arguments' : 'parameters' in value ? 'parameters' : null;
  const allowed = new Set(['name', argsKey ?? 'arguments', ...EXTRA_KEYS]);
  if (!Object.keys(value).every((key) => allowed.has(key))) return null;
  return { name: value.name, arguments: argsKey ? value[argsKey] : {} };
}

/** Calls in a parsed value: one call object or a list of them (every item must be a call). */
function callsOf(value: unknown): Array<{ name: string; arguments: unknown }> | null {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) return null;
  const calls = items.map(callOf);
  return calls.every((call) => call !== null) ? (calls as Array<{ name: string; arguments: unknown }>) : null;
}

/** Calls from one JSON text, or null; a lenient parse keeps the original text on each call. */
export function callsFromJson(text: string): Array<{ name: string; arguments: unknown; repairedFrom?: string }> | null {
  const parsed = parseJsonLeniently(text.trim());
  if (!parsed.ok) return null;
  const calls = callsOf(parsed.value);
  if (!calls) return null;
  return parsed.repaired ? calls.map((call) => ({ ...call, repairedFrom: text.trim() })) : calls;
}
