import type { z } from 'zod';

/**
 * One line per problem: `file: json.path: expected X, found Y`. What was
 * found is read from the merged rules, so it shows the user's own value.
 */
export function formatRulesError(error: z.ZodError, file: string, input: unknown): string {
  const lines = error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index > 0 ? '.' : ''}${String(key)}`)).join('') : '(top level)';
    return `${file}: ${path}: ${describeIssue(issue)}, found ${describeValue(valueAt(input, issue.path))}`;
  });
  return lines.join('\n');
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
