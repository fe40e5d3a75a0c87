import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from 'rein/lib/package-root.js';
import { createHarnessMachine } from 'rein/machines/harness-machine.js';
import { listTransitions } from 'rein/machines/introspection.js';
import { ENDPOINT_PROFILES } from 'rein/rules/endpoint-profiles.js';
import { phaseRuleSchema } from 'rein/rules/phases.js';
import { END_TARGETS, phaseNames, rulesSchema } from 'rein/rules/schema.js';
import { PROGRESS_KINDS, STALL_RULE_NAMES, STALL_RULES } from 'rein/rules/stall-rules.js';
import { listGuards } from 'rein-cli/commands/rules-guards.js';
import { toPhaseMermaid, toTurnCycleMermaid } from 'rein-visualizer/server/mermaid-overview.js';
import { z } from 'zod';

/**
 * The README's generated sections: each is printed from the code it
 * describes (the stall table, the guard catalogue, the rules schema, the
 * cookbook's rules files), written into README.md by
 * `npm run docs:readme` and checked by test/docs/readme.test.ts.
 */

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The stall rules, from the one table in rules/stall-rules.ts. */
export function stallRulesSection(): string {
  const rows = STALL_RULE_NAMES.map((name) => {
    const rule: { limit: number; counts: string; resetBy: readonly string[]; needsTools?: readonly string[]; message: string } = STALL_RULES[name];
    const resets = rule.resetBy.length > 0 ? rule.resetBy.join(', ') : '(a reply with a tool call)';
    return `| \`${name}\` | ${rule.limit} | ${cell(rule.counts)} | ${resets} | ${rule.needsTools ? rule.needsTools.join(' or ') : 'any'} | ${cell(rule.message)} |`;
  });
  return [
    '| rule | default limit | counts | starts over on | needs | nudge (default) |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `Progress, defined once in [\`machines/stall/progress.ts\`](machines/stall/progress.ts): ${PROGRESS_KINDS.map((kind) => `\`${kind}\``).join(', ')}. ` +
      "Any progress ends a stall's episode: its nudges start over, so a run ends `stalled` only when a rule holds again after `stall.maxNudges` nudges with nothing new in between.",
  ].join('\n');
}

/** Every built-in guard a rules file may name, from the catalogue. */
export function guardsSection(): string {
  const rows = listGuards().map((guard) => {
    const params =
      guard.params.map((param) => `\`${param.name}\` ${param.type}${param.required ? '' : ` = ${JSON.stringify(param.default)}`}`).join(', ') || '-';
    return `| \`${guard.name}\` | ${guard.kind} | ${params} | ${cell(guard.summary)} |`;
  });
  return ['| guard | kind | parameters | holds when |', '|---|---|---|---|', ...rows].join('\n');
}

interface JsonSchema {
  type?: string;
  description?: string;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  enum?: unknown[];
  anyOf?: JsonSchema[];
}

/** Every key of a rules file with its default and meaning, from the zod schema. */
export function rulesKeysSection(): string {
  const schema = z.toJSONSchema(rulesSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const rows: string[] = [];
  const visit = (node: JsonSchema, path: string) => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const at = path ? `${path}.${key}` : key;
      if (at === 'phases') {
        // Every phase, built-in or added, has one shape; the built-in ones' defaults differ (shown by `rein rules show`).
        rows.push(`| \`phases\` | plan, build, verify, fix | ${cell(child.description ?? '')} |`);
        visit(z.toJSONSchema(phaseRuleSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema, 'phases.<phase>');
        continue;
      }
      if (child.properties && child.type === 'object' && key !== 'prices') {
        visit(child, at);
        continue;
      }
      const shown = at.startsWith('phases.<phase>') && (key === 'exits' || key === 'description') ? 'per phase' : defaultText(child.default);
      rows.push(`| \`${at}\` | ${shown} | ${cell(child.description ?? typeText(child))} |`);
    }
  };
  visit(schema, '');
  return ['| key | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

function defaultText(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > 40 ? (Array.isArray(value) ? `${value.length} entries` : 'see `rein rules show`') : `\`${cell(text)}\``;
}

function typeText(node: JsonSchema): string {
  if (node.enum) return `one of ${node.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  return node.type ?? 'any';
}

/** One recipe of the cookbook: a rules file in docs/cookbook/ and what it is for. */
export interface Recipe {
  file: string;
  title: string;
  note: string;
}

export function cookbookRecipes(): Recipe[] {
  return JSON.parse(readFileSync(join(packageRoot(), 'docs', 'cookbook', 'recipes.json'), 'utf8')) as Recipe[];
}

export function recipeRules(recipe: Recipe): unknown {
  return JSON.parse(readFileSync(join(packageRoot(), 'docs', 'cookbook', recipe.file), 'utf8'));
}

/** What a rules file changes in the chart: transitions added and removed against the default machine, one phase standing for the rest. */
export function chartDifference(rulesInput: unknown): { added: string[]; removed: string[] } {
  const keys = (input: unknown) => new Set(listTransitions(createHarnessMachine(rulesSchema.parse(input))).map((info) => info.key));
  const before = keys({});
  const after = keys(rulesInput);
  return { added: [...after].filter((key) => !before.has(key)), removed: [...before].filter((key) => !after.has(key)) };
}

/** The cookbook: each recipe's rules file and the chart difference it makes. */
export function cookbookSection(): string {
  const parts: string[] = [];
  for (const recipe of cookbookRecipes()) {
    const rules = recipeRules(recipe);
    const { added, removed } = chartDifference(rules);
    parts.push(
      `**${recipe.title}** ([\`docs/cookbook/${recipe.file}\`](docs/cookbook/${recipe.file})). ${recipe.note}`,
      '',
      '```json',
      JSON.stringify(rules, null, 2),
      '```',
      '',
    );
    // A phase the rules switch off is one line, not every transition of its turn cycle.
    const parsed = rulesSchema.parse(rules);
    const gone = phaseNames(parsed).filter(
      (phase) => removed.some((key) => key.startsWith(`${phase}.`)) && !added.some((key) => key.startsWith(`${phase}.`)) && !parsed.phases[phase]!.enabled,
    );
    const inGone = (key: string) => gone.some((phase) => key.startsWith(`${phase}.`));
    const lines = [
      ...byPhase(added).map((key) => `+ ${key}`),
      ...gone.map((phase) => `- ${phase}: the whole phase (${removed.filter((key) => key.startsWith(`${phase}.`)).length} transitions)`),
      ...byPhase(removed.filter((key) => !inGone(key))).map((key) => `- ${key}`),
    ];
    const what =
      added.length > 0 && removed.length > 0
        ? `${added.length} added, ${removed.length} removed`
        : added.length > 0
          ? `${added.length} added`
          : `${removed.length} removed`;
    parts.push(
      lines.length > 0
        ? `Chart: ${what} (transitions that differ only in their phase share a line).`
        : 'Chart: the same transitions; only the texts the model sees change.',
      '',
    );
    if (lines.length > 0) parts.push('```diff', ...summarise(lines), '```', '');
  }
  return parts.join('\n').trimEnd();
}

/** The phase a transition key starts in (`review.route --…` is in review), or undefined for the root's and the final states'. */
function phaseOf(key: string): string | undefined {
  const head = /^(\w+)\./.exec(key)?.[1];
  return head === undefined || head === 'done' || (END_TARGETS as readonly string[]).includes(head) ? undefined : head;
}

/** Transitions that differ only in their phase, as one line: `{plan,build}.gate --always [...]--> done`. */
function byPhase(keys: readonly string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const key of keys) {
    const phase = phaseOf(key);
    const shape = phase ? key.split(`${phase}.`).join('<phase>.') : key;
    groups.set(shape, [...(groups.get(shape) ?? []), phase ?? '']);
  }
  return [...groups].map(([shape, phases]) =>
    phases.length > 1 ? shape.split('<phase>.').join(`{${phases.join(',')}}.`) : shape.split('<phase>.').join(`${phases[0]}.`),
  );
}

/** Long diffs list the first dozen lines and say how many more. */
function summarise(lines: string[]): string[] {
  return lines.length <= 12 ? lines : [...lines.slice(0, 12), `  … and ${lines.length - 12} more (rein rules graph --all shows the whole chart)`];
}

/** The chart as a person reads it first: the phases and the ways a run ends, then one phase's turn cycle. */
export function statechartSection(): string {
  const machine = createHarnessMachine(rulesSchema.parse({}));
  return [
    '```mermaid',
    toPhaseMermaid(machine).trimEnd(),
    '```',
    '',
    "Inside every phase, the same turn cycle (here build; `observe`, `compact`, `think`, `act` and `review` are the same in each phase, `route` holds the phase's own exits):",
    '',
    '```mermaid',
    toTurnCycleMermaid(machine, 'build').trimEnd(),
    '```',
  ].join('\n');
}

/** Every generated section by its marker name in README.md. */
/** The endpoint profiles, from their one table in rules/endpoint-profiles.ts (the schema's `model.profile` enum reads it too). */
export function endpointProfilesSection(): string {
  const rows = ENDPOINT_PROFILES.map(
    (profile) => `| \`${profile.name}\` | ${cell(profile.server)} | \`${cell(JSON.stringify(profile.settings))}\` | ${cell(profile.why)} |`,
  );
  return ['| `model.profile` | server | sets | why |', '|---|---|---|---|', ...rows].join('\n');
}

export function readmeSections(): Record<string, string> {
  return {
    'endpoint-profiles': endpointProfilesSection(),
    statechart: statechartSection(),
    'stall-rules': stallRulesSection(),
    guards: guardsSection(),
    'rules-keys': rulesKeysSection(),
    cookbook: cookbookSection(),
  };
}
