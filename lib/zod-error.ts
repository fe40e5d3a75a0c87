import type { z } from 'zod';
import { closestName } from './did-you-mean.js';

/**
 * rein's one way of saying what is wrong with validated input: one line per
 * problem, `json.path: expected X, found Y`, what was found read from the
 * input itself (the user's own value), unknown keys with the nearest known
 * key as a hint. `at` prefixes the paths (a value checked inside a larger
 * document); callers prefix the lines with where the input came from.
 *
 * @example formatZodError(error, { input, schema }).map((line) => `rein.config.json: ${line}`)
 */
export function formatZodError(error: z.ZodError, options: { input: unknown; schema?: z.ZodType; at?: readonly PropertyKey[] }): string[] {
  const at = options.at ?? [];
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const known = options.schema ? keysAt(options.schema, issue.path) : [];
      return issue.keys.map((key) => {
        const near = closestName(key, known);
        return `${formatPath([...at, ...issue.path, key])}: unknown key${near ? ` (did you mean "${near}"?)` : ''}, found ${describeValue(valueAt(options.input, [...issue.path, key]))}`;
      });
    }
    return [`${formatPath([...at, ...issue.path])}: ${describeIssue(issue)}, found ${describeValue(valueAt(options.input, issue.path))}`];
  });
}

/** A JSON path as people write it: `phases.plan.exits[0].guard`. */
function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index > 0 ? '.' : ''}${String(key)}`)).join('');
}

/** The keys an object schema accepts at `path`, looking through defaults, optionals, arrays and records. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (const key of [...path, null]) {
    current = unwrap(current);
    const def = (current as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return [];
    if (key === null) return def.type === 'object' ? Object.keys(def.shape as object) : [];
    if (def.type === 'object') current = (def.shape as Record<string, unknown>)[String(key)];
    else if (def.type === 'array') current = def.element;
    else if (def.type === 'record') current = def.valueType;
    else return [];
  }
  return [];
}

function unwrap(schema: unknown): unknown {
  let current = schema;
  for (let depth = 0; depth < 10; depth++) {
    const def = (current as { _zod?: { def?: { type?: string; innerType?: unknown } } })?._zod?.def;
    if (!def?.innerType || !['default', 'prefault', 'optional', 'nullable', 'pipe'].includes(def.type ?? '')) return current;
    current = def.innerType;
  }
  return current;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return `expected ${issue.expected}`;
  if (issue.code === 'invalid_value') return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
  if (issue.code === 'unrecognized_keys') return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}`;
  if (issue.code === 'too_small' || issue.code === 'too_big') return `expected ${issue.message.replace(/^Too (small|big): expected /, '')}`;
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** A value as it appears in an error: its JSON, cut to 60 characters. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
