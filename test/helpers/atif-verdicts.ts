import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'atif');

/** One case of test/fixtures/atif/harbor-verdicts.jsonl: a trajectory and what Harbor's own validator said of it. */
export interface HarborVerdict {
  name: string;
  document: unknown;
  valid: boolean;
  errors: string[];
  /** Set where rein's model reads the case differently on purpose, with why. */
  rein_differs?: string;
}

/** Harbor's recorded verdicts (test/fixtures/atif/README.md says how they were recorded). */
export function harborVerdicts(): HarborVerdict[] {
  const [, ...lines] = readFileSync(join(DIR, 'harbor-verdicts.jsonl'), 'utf8').trim().split('\n');
  return lines.map((line) => {
    const { file, ...rest } = JSON.parse(line) as HarborVerdict & { file?: string };
    return file ? { ...rest, document: JSON.parse(readFileSync(join(DIR, file), 'utf8')) } : rest;
  });
}

/** Every field path of a JSON value (`steps[].tool_calls[].function_name`), not looking inside free-form objects (`extra`, `arguments`). */
export function fieldPaths(value: unknown, prefix = '', into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) fieldPaths(item, `${prefix}[]`, into);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const path = prefix ? `${prefix}.${key}` : key;
      into.add(path);
      if (!FREE_FORM.includes(key)) fieldPaths(child, path, into);
    }
  }
  return into;
}

const FREE_FORM = ['extra', 'arguments', 'tool_definitions'];

/** The field paths of every trajectory Harbor's validator accepted. */
export function harborAcceptedPaths(): Set<string> {
  const paths = new Set<string>();
  for (const verdict of harborVerdicts()) if (verdict.valid) fieldPaths(verdict.document, '', paths);
  return paths;
}
