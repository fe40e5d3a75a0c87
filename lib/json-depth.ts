/** The deepest nesting rein reads from outside (a model's arguments, a tool server's message, a trace line). */
export const MAX_JSON_DEPTH = 128;

/**
 * How deep the arrays and objects in a JSON text nest, counted without parsing (strings skipped), stopping as soon as
 * `limit` is passed. Parsing a deeper text is fine for V8, but every walk after it (writing the trace, hashing the
 * arguments, rendering them) recurses and overflows the stack: rein refuses such input where it comes in.
 *
 * @example jsonDepthExceeds('[[[1]]]', 2) // true
 */
function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92) index++;
      else if (code === 34) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 123 || code === 91) {
      if (++depth > limit) return true;
    } else if (code === 125 || code === 93) depth--;
  }
  return false;
}

/**
 * `JSON.parse` for text from outside rein: a text nested deeper than MAX_JSON_DEPTH is a `SyntaxError` saying so,
 * like any other text that is not JSON rein can use.
 *
 * @example parseBoundedJson('{"a":1}') // { a: 1 }
 */
export function parseBoundedJson(text: string): unknown {
  if (jsonDepthExceeds(text)) throw new SyntaxError(`the JSON nests deeper than ${MAX_JSON_DEPTH} levels, more than rein reads`);
  return JSON.parse(text) as unknown;
}
