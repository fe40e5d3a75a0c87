import type { z } from 'zod';

/**
 * One line per problem: `file: json.path: expected X, found Y`. What was
 * found is read from the merged rules, so it shows the user's own value.
 */
export function formatRulesError(error: z.ZodError, file: string, input: unknown, schema?: z.ZodType): string {
  const lines = error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      // One line per unknown key, at the key's own path, with the nearest known key as a hint.
      const known = schema ? keysAt(schema, issue.path) : [];
      return issue.keys.map((key) => {
        const near = closest(key, known);
        return `${file}: ${formatPath([...issue.path, key])}: unknown key${near ? ` (did you mean "${near}"?)` : ''}, found ${describeValue(valueAt(input, [...issue.path, key]))}`;
      });
    }
    return [`${file}: ${formatPath(issue.path)}: ${describeIssue(issue)}, found ${describeValue(valueAt(input, issue.path))}`];
  });
  return lines.join('\n');
}

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

/** A known key within two edits (or differing only in case), if there is one. */
function closest(key: string, known: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const name of known) {
    const distance = name.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
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

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
