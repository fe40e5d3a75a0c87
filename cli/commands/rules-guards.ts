import { GUARD_CATALOGUE, type GuardRegistry, type GuardSpec, registerGuards } from 'rein/machines';
import { END_TARGETS } from 'rein/rules';
import { z } from 'zod';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

/** One guard as `rein rules guards` lists it. */
interface GuardEntry {
  name: string;
  kind: 'phase exit' | 'gate' | 'stall' | 'registered';
  summary: string;
  params: Array<{ name: string; type: string; default?: unknown; required: boolean; description: string }>;
  reads: readonly string[];
  example: Record<string, unknown> | null;
  overrides?: boolean;
}

/**
 * Every guard a rules file may name: the built-in catalogue (phase exits, the
 * gate, the stall rules) and the guards a rules module registers, with their
 * parameters (type, default, meaning), what they read and an example exit.
 */
export function listGuards(registered: GuardRegistry = {}, source = 'rules module'): GuardEntry[] {
  const entries: GuardEntry[] = [];
  const add = (kind: GuardEntry['kind'], specs: Record<string, GuardSpec>) => {
    for (const [name, spec] of Object.entries(specs))
      entries.push({ name, kind, summary: spec.summary, params: paramsOf(spec.params), reads: spec.reads, example: spec.example });
  };
  add('phase exit', GUARD_CATALOGUE.phase);
  add('gate', GUARD_CATALOGUE.gate);
  add('stall', GUARD_CATALOGUE.stall);
  for (const guard of registerGuards(registered, source)) {
    entries.push({
      name: guard.name,
      kind: 'registered',
      summary: guard.summary ?? `registered by ${source}`,
      params: guard.params ? paramsOf(guard.params) : [],
      reads: [],
      example: null,
      ...(guard.overrides ? { overrides: true } : {}),
    });
  }
  return entries;
}

function paramsOf(schema: z.ZodObject): GuardEntry['params'] {
  const json = z.toJSONSchema(schema, { io: 'input' }) as {
    properties?: Record<string, { type?: string; default?: unknown; description?: string }>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    type: property.type ?? 'any',
    required: (json.required ?? []).includes(name),
    description: property.description ?? '',
    ...(property.default !== undefined ? { default: property.default } : {}),
  }));
}

/** `rein rules guards`: the catalogue as text (or JSON with `--format json`). */
export function printGuards(entries: readonly GuardEntry[], format: string, io: Io): number {
  if (format === 'json') {
    io.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
    return EXIT.done;
  }
  const lines: string[] = ['Guards a rules file may name (phase exits, the verification gate, stall rules). Parameters go beside "guard" in an exit:', ''];
  for (const entry of entries) {
    lines.push(`${entry.name}  [${entry.kind}${entry.overrides ? ', replaces the built-in' : ''}]`);
    lines.push(`  ${entry.summary}`);
    for (const param of entry.params) {
      const when = param.required ? 'required' : `default ${JSON.stringify(param.default)}`;
      lines.push(`  ${param.name}: ${param.type}, ${when}${param.description ? `: ${param.description}` : ''}`);
    }
    if (entry.reads.length > 0) lines.push(`  reads: ${entry.reads.join(', ')}`);
    if (entry.example) lines.push(`  e.g. ${JSON.stringify(entry.example)}`);
    lines.push('');
  }
  const [first, ...others] = END_TARGETS;
  lines.push(
    `Combine them in an exit with { "all": [...] }, { "any": [...] } or { "not": {...} }; end the run with "to": "${first}" (or ${others.join(', ')}), and a "reason" of your own.`,
  );
  lines.push(
    'A guard registered from a .ts/.mjs rules file gets the same view: (view, params) => true, false, or { holds: false, reason } (the reason is what the model reads when it keeps the gate shut; see GuardView in docs/rules.md).',
  );
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.done;
}
