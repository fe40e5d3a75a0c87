import { jsonrepair } from 'jsonrepair';

/** Longest JSON text a lenient parse is tried on: the repair is linear, but a reply of megabytes is not a call. */
export const MAX_REPAIR_CHARS = 200_000;

/**
 * The end (exclusive) of the JSON object or array that starts at `start`,
 * found by matching brackets outside strings; the content's end when the
 * value is cut off (the lenient parse may still close it), or when it runs
 * past `maxChars`.
 *
 * @example jsonEnd('x {"a": "}"} y', 2) // 12
 */
export function jsonEnd(text: string, start: number, maxChars = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let inString = false;
  const stop = Math.min(text.length, start + maxChars);
  for (let at = start; at < stop; at++) {
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
