import { z } from 'zod';

/** Bounds on a server's tool definitions: they come from a process rein does not control. */
export const SCHEMA_LIMITS = { chars: 16_000, depth: 8, properties: 100, enumValues: 100, descriptionChars: 1_000, textChars: 300 } as const;

/** Keywords kept; the rest (`$schema`, `$id`, `format`, `examples`, vendor keys) some OpenAI-compatible servers reject. */
const KEPT = new Set([
  'type',
  'properties',
  'required',
  'items',
  'enum',
  'const',
  'description',
  'anyOf',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'default',
  'additionalProperties',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

export type CheckedSchema = { ok: true; schema: Record<string, unknown>; parameters: z.ZodObject } | { ok: false; reason: string };

/**
 * A tool's `inputSchema` made safe to send: local `$ref`s inlined, `oneOf` as
 * `anyOf`, unknown keywords dropped, texts clipped, and refused when it is
 * deeper, wider or longer than `SCHEMA_LIMITS` or not an object schema. The
 * zod form validates the model's arguments like a built-in tool's.
 *
 * @example checkToolSchema({ type: 'object', properties: { q: { type: 'string' } } })
 */
export function checkToolSchema(input: unknown): CheckedSchema {
  if (!isRecord(input)) return { ok: false, reason: 'the input schema is not an object' };
  if (input.type !== undefined && input.type !== 'object')
    return { ok: false, reason: `the input schema has type ${JSON.stringify(input.type).slice(0, 40)}, not "object"` };
  const defs = { ...(isRecord(input.definitions) ? input.definitions : {}), ...(isRecord(input.$defs) ? input.$defs : {}) };
  let schema: Record<string, unknown>;
  try {
    schema = clean({ ...input, type: 'object' }, defs, 0, []) as Record<string, unknown>;
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  schema.properties ??= {};
  // Arguments are parsed strictly (unknown keys are errors, as for rein's tools): the schema says so.
  schema.additionalProperties = false;
  const size = JSON.stringify(schema).length;
  if (size > SCHEMA_LIMITS.chars) return { ok: false, reason: `the input schema is ${size} characters (at most ${SCHEMA_LIMITS.chars})` };
  try {
    const parameters = z.fromJSONSchema(schema);
    if (!(parameters instanceof z.ZodObject)) return { ok: false, reason: 'the input schema does not describe an object' };
    return { ok: true, schema, parameters };
  } catch (error) {
    return { ok: false, reason: `the input schema cannot be read (${(error as Error).message.slice(0, 120)})` };
  }
}

/** A server's text for the model: control characters out, clipped. */
export function cleanText(text: unknown, max: number): string {
  if (typeof text !== 'string') return '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const plain = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  return plain.length <= max ? plain : `${plain.slice(0, max - 1)}…`;
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function clean(node: unknown, defs: Record<string, unknown>, depth: number, refs: string[]): unknown {
  if (depth > SCHEMA_LIMITS.depth) throw new Error(`the input schema nests deeper than ${SCHEMA_LIMITS.depth} levels`);
  if (!isRecord(node)) return {};
  if (typeof node.$ref === 'string') return inline(node.$ref, defs, depth, refs);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const keyword = key === 'oneOf' ? 'anyOf' : key;
    if (!KEPT.has(keyword)) continue;
    const cleaned = cleanKeyword(keyword, value, defs, depth, refs);
    if (cleaned !== undefined) out[keyword] = cleaned;
  }
  return out;
}

function cleanKeyword(keyword: string, value: unknown, defs: Record<string, unknown>, depth: number, refs: string[]): unknown {
  switch (keyword) {
    case 'properties': {
      if (!isRecord(value)) return undefined;
      const entries = Object.entries(value);
      if (entries.length > SCHEMA_LIMITS.properties)
        throw new Error(`an object in the input schema has ${entries.length} properties (at most ${SCHEMA_LIMITS.properties})`);
      // A key that names an object's prototype would, once the arguments are validated into an object, set it.
      const special = entries.find(([name]) => PROTOTYPE_KEYS.has(name));
      if (special) throw new Error(`the input schema names a property ${JSON.stringify(special[0])}, which would set the prototype of the arguments`);
      return Object.fromEntries(entries.map(([name, child]) => [name.slice(0, SCHEMA_LIMITS.textChars), clean(child, defs, depth + 1, refs)]));
    }
    case 'items':
    case 'additionalProperties':
      return typeof value === 'boolean' ? value : clean(value, defs, depth + 1, refs);
    case 'anyOf':
      return Array.isArray(value) ? value.slice(0, SCHEMA_LIMITS.enumValues).map((child) => clean(child, defs, depth + 1, refs)) : undefined;
    case 'required':
      return Array.isArray(value) ? value.filter((name) => typeof name === 'string').slice(0, SCHEMA_LIMITS.properties) : undefined;
    case 'enum':
      if (!Array.isArray(value)) return undefined;
      if (value.length > SCHEMA_LIMITS.enumValues)
        throw new Error(`an enum in the input schema has ${value.length} values (at most ${SCHEMA_LIMITS.enumValues})`);
      return value.filter((item) => item === null || ['string', 'number', 'boolean'].includes(typeof item)).map(clipScalar);
    case 'type': {
      const types = (Array.isArray(value) ? value : [value]).filter((type) => typeof type === 'string' && TYPES.has(type));
      if (types.length === 0) return undefined;
      return types.length === 1 ? types[0] : types;
    }
    case 'description':
      return cleanText(value, SCHEMA_LIMITS.textChars) || undefined;
    case 'const':
    case 'default':
      return value === null || ['string', 'number', 'boolean'].includes(typeof value) ? clipScalar(value) : undefined;
    default:
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  }
}

/** `#/$defs/Name` or `#/definitions/Name`, inlined; a cycle or any other reference reads as "any value". */
function inline(ref: string, defs: Record<string, unknown>, depth: number, refs: string[]): unknown {
  const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1];
  if (name === undefined || refs.includes(name) || !(name in defs)) return {};
  return clean(defs[name], defs, depth + 1, [...refs, name]);
}

function clipScalar(value: unknown): unknown {
  return typeof value === 'string' ? value.slice(0, SCHEMA_LIMITS.textChars) : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
