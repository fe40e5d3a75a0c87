import type { z } from 'zod';
import { parseBoundedJson } from '../lib/json-depth.js';
import { locateJsonError } from './shaping/json-error.js';
import type { AnyTool } from './types.js';

/** Arguments checked against a tool's schema, or a message the model can act on. */
export type ParsedArguments = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

/** Issues listed before "and N more". */
const MAX_ISSUES = 5;
/** Longest key name or value quoted back; arguments can be megabytes. */
const MAX_QUOTE = 60;

// `.strict()` builds a new schema, and zod compiles each schema on its first parse: one per tool, not one per call.
const strictSchemas = new WeakMap<AnyTool['parameters'], ReturnType<AnyTool['parameters']['strict']>>();

function strictParameters(tool: AnyTool): ReturnType<AnyTool['parameters']['strict']> {
  let schema = strictSchemas.get(tool.parameters);
  if (!schema) {
    schema = tool.parameters.strict();
    strictSchemas.set(tool.parameters, schema);
  }
  return schema;
}

/**
 * Parses a tool call's raw `arguments` string and validates it strictly
 * (unknown keys are errors, defaults are applied). An empty string counts as
 * `{}`, as some providers send it for argument-less calls. Messages quote at
 * most a few dozen characters of what the model sent.
 *
 * @example parseToolArguments(readFileTool, '{"path": 3}') // { ok: false, message: 'Invalid arguments for read_file: `path` must be string, got number 3.' }
 */
export function parseToolArguments(tool: AnyTool, rawJson: string): ParsedArguments {
  const fail = (problem: string): ParsedArguments => ({ ok: false, message: `Invalid arguments for ${tool.name}: ${problem}.` });
  let value: unknown;
  try {
    value = rawJson.trim() === '' ? {} : parseBoundedJson(rawJson);
  } catch (error) {
    const at = locateJsonError(rawJson);
    const where = at === null ? '' : ` at line ${at.line}, column ${at.column}`;
    return fail(`not valid JSON${where} (${clip((error as Error).message.replace(/\s+/g, ' '), 160)})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail(`expected a JSON object, got ${describeValue(value)}`);
  }
  const result = strictParameters(tool).safeParse(value, { reportInput: true });
  if (result.success) return { ok: true, args: result.data as Record<string, unknown> };
  const problems = result.error.issues.map((issue) => describeIssue(issue, tool));
  const extra = problems.length > MAX_ISSUES ? `; and ${problems.length - MAX_ISSUES} more` : '';
  return fail(problems.slice(0, MAX_ISSUES).join('; ') + extra);
}

function describeIssue(issue: z.core.$ZodIssue, tool: AnyTool): string {
  const where = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const expected = Object.keys(tool.parameters.shape).join(', ');
    const names = issue.keys.map((key) => `\`${clip(key, MAX_QUOTE)}\``).join(', ');
    return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${names}${where ? ` in \`${where}\`` : ''} (expected: ${expected})`;
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return `missing required argument \`${where}\``;
  if (issue.code === 'invalid_type') return `\`${where}\` must be ${issue.expected}, got ${describeValue(issue.input)}`;
  return `\`${where || '(arguments)'}\`: ${clip(issue.message, 200)}`;
}

/** `items[0].task` from zod's `['items', 0, 'task']`. */
function formatPath(path: readonly PropertyKey[]): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${clip(String(part), MAX_QUOTE)}`)).join('');
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return `string ${JSON.stringify(clip(value, MAX_QUOTE))}`;
  if (typeof value === 'object') return 'object';
  return `${typeof value} ${clip(String(value), MAX_QUOTE)}`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length} chars)`;
}
