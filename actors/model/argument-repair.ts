import { jsonrepair } from 'jsonrepair';
import { headTail } from '../../lib/head-tail.js';
import { parseBoundedJson } from '../../lib/json-depth.js';
import type { ArgumentRepairKind } from '../../lib/trace/trace-events.js';
import { MAX_REPAIR_CHARS } from './text-calls/json-text.js';

/** How a call's arguments were made into the JSON object text a tool parses. */
type RepairKind = ArgumentRepairKind;

interface ArgumentRepair {
  kind: RepairKind;
  /** The arguments as the model sent them, cut to 2,000 characters (head and tail). */
  original: string;
}

/** Longest original kept in a repair's trace line. */
const ORIGINAL_CHARS = 2000;

/**
 * A call's arguments as the JSON text of an object, repaired where the model
 * or a gateway bent them: an object instead of a string, a JSON string of the
 * JSON string (encoded twice), trailing commas, single quotes, unquoted keys,
 * a cut-off tail (`jsonrepair`). Every repair says what it did and keeps the
 * original; what cannot be repaired is passed on as sent, and the tool runner
 * answers it with the JSON error's position.
 *
 * @example repairArguments("{'path': 'a.py',}") // { text: '{"path": "a.py"}', repair: { kind: 'lenient', original: "{'path': 'a.py',}" } }
 */
export function repairArguments(sent: unknown): { text: string; repair?: ArgumentRepair } {
  if (sent === undefined || sent === null) return { text: '{}', repair: { kind: 'missing', original: String(sent) } };
  if (typeof sent !== 'string') {
    const text = JSON.stringify(sent) ?? '{}';
    return { text, repair: { kind: 'object', original: headTail(text, ORIGINAL_CHARS) } };
  }
  const original = () => headTail(sent, ORIGINAL_CHARS);
  const strict = parse(sent);
  if (strict.ok) {
    if (typeof strict.value !== 'string') return { text: sent };
    const inner = parse(strict.value);
    return inner.ok && isObject(inner.value) ? { text: strict.value, repair: { kind: 'double_encoded', original: original() } } : { text: sent };
  }
  if (sent.trim() === '' || sent.length > MAX_REPAIR_CHARS) return { text: sent };
  const lenient = repaired(sent);
  if (lenient === null) return { text: sent };
  if (isObject(lenient)) return { text: JSON.stringify(lenient), repair: { kind: 'lenient', original: original() } };
  if (typeof lenient === 'string') {
    const inner = parse(lenient);
    if (inner.ok && isObject(inner.value)) return { text: lenient, repair: { kind: 'lenient', original: original() } };
  }
  return { text: sent };
}

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseBoundedJson(text) };
  } catch {
    return { ok: false };
  }
}

function repaired(text: string): unknown {
  try {
    return JSON.parse(jsonrepair(text));
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
