/** A call read from a JSON value: the tool's name as written, its arguments, and the id the model gave it. */
interface JsonCall {
  name: string;
  arguments: unknown;
  id?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Where the families put a call's name, its arguments and its id in a JSON object. */
const NAME_KEYS = ['name', 'tool_name', 'function'] as const;
const ARGUMENT_KEYS = ['arguments', 'parameters', 'args'] as const;
const ID_KEYS = ['id', 'tool_call_id', 'call_id'] as const;
/** Objects that wrap calls: llama.cpp's generic format (`tool_call`, `tool_calls`), OpenAI's `function_call`. */
const WRAPPER_KEYS = ['tool_call', 'tool_calls', 'function_call'] as const;

/**
 * The calls a parsed JSON value stands for, or null when it is data: one call
 * object in any of the census's spellings (`{name, arguments}`, `{name,
 * parameters}`, Cohere's `{tool_call_id, tool_name, parameters}`, OpenAI's
 * `{type, function: {name, arguments}}`), Apertus' `{"NAME": {…}}` (only for a
 * tool offered here), a wrapper (`{"tool_calls": […]}`), or a non-empty list
 * of calls. Any key outside these makes the object data (a JSON file the model
 * quotes), and so does a list with one item that is not a call.
 *
 * @example callsOfJson({ tool_name: 'run', parameters: { command: 'ls' } }, new Set(['run'])) // [{ name: 'run', arguments: { command: 'ls' } }]
 */
export function callsOfJson(value: unknown, offered: ReadonlySet<string>, depth = 0): JsonCall[] | null {
  if (depth > 3) return null;
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    const calls = value.map((item) => callsOfJson(item, offered, depth + 1));
    return calls.every((call) => call !== null) ? calls.flat() : null;
  }
  if (!isRecord(value)) return null;
  const keys = Object.keys(value);
  if (keys.length === 1 && (WRAPPER_KEYS as readonly string[]).includes(keys[0]!)) return callsOfJson(value[keys[0]!], offered, depth + 1);
  if (keys.length === 1 && offered.has(keys[0]!) && isRecord(value[keys[0]!])) return [{ name: keys[0]!, arguments: value[keys[0]!] }];
  const call = callObject(value);
  return call ? [call] : null;
}

function callObject(value: Record<string, unknown>): JsonCall | null {
  const nested = value.function;
  if (isRecord(nested) && Object.keys(value).every((key) => key === 'function' || key === 'type' || (ID_KEYS as readonly string[]).includes(key))) {
    const inner = callObject(nested);
    return inner ? withId(inner, value) : null;
  }
  const nameKey = NAME_KEYS.find((key) => typeof value[key] === 'string');
  if (!nameKey) return null;
  const argumentKeys = ARGUMENT_KEYS.filter((key) => key in value);
  // Both `arguments` and `parameters` is not one call (vLLM refuses it too).
  if (argumentKeys.length > 1) return null;
  const allowed = new Set<string>([nameKey, ...argumentKeys, 'type', ...ID_KEYS]);
  if (!Object.keys(value).every((key) => allowed.has(key))) return null;
  if ('type' in value && value.type !== 'function') return null;
  const argumentKey = argumentKeys[0];
  return withId({ name: value[nameKey] as string, arguments: argumentKey ? value[argumentKey] : {} }, value);
}

function withId(call: JsonCall, value: Record<string, unknown>): JsonCall {
  const id = ID_KEYS.map((key) => value[key]).find((entry) => typeof entry === 'string' || typeof entry === 'number');
  return id === undefined ? call : { ...call, id: String(id) };
}
