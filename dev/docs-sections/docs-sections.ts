import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { packageRoot } from 'rein/lib';
import { createHarnessMachine, listTransitions } from 'rein/machines';
import {
  CODE_RUNNING_OPTIONS,
  COMMAND_RUNNERS,
  END_TARGETS,
  ENDPOINT_PROFILES,
  PROGRESS_KINDS,
  phaseNames,
  phaseRuleSchema,
  rulesSchema,
  STALL_RULE_NAMES,
  STALL_RULES,
} from 'rein/rules';
import { listGuards } from 'rein-cli/commands/rules-guards.js';
import { toPhaseMermaid, toTurnCycleMermaid } from 'rein-visualizer/server/mermaid-overview.js';
import { z } from 'zod';

/**
 * The docs' generated sections: each is printed from the code it describes (the chart, the stall table, the guard
 * catalogue, the rules schema, the endpoint profiles, the cookbook's rules files), written into the page that shows it
 * by `npm run docs:generate` and checked by test/docs/generated-sections.test.ts.
 */

/** A link from a page (a path from the checkout, `docs/rules.md`) to a file of the checkout. */
const linkFrom = (page: string) => (target: string) => relative(dirname(page), target) || '.';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The stall rules, from the one table in rules/stall-rules.ts. */
function stallRulesSection(link = linkFrom('README.md')): string {
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
    `Progress, defined once in [\`machines/stall/progress.ts\`](${link('machines/stall/progress.ts')}): ${PROGRESS_KINDS.map((kind) => `\`${kind}\``).join(', ')}. ` +
      "Any progress ends a stall's episode: its nudges start over, so a run ends `stalled` only when a rule holds again after `stall.maxNudges` nudges with nothing new in between.",
  ].join('\n');
}

/** Every built-in guard a rules file may name, from the catalogue. */
function guardsSection(): string {
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
function rulesKeysSection(): string {
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
interface Recipe {
  file: string;
  title: string;
  note: string;
}

export function cookbookRecipes(): Recipe[] {
  return JSON.parse(readFileSync(join(packageRoot(), 'docs', 'cookbook', 'recipes.json'), 'utf8')) as Recipe[];
}

function recipeRules(recipe: Recipe): unknown {
  return JSON.parse(readFileSync(join(packageRoot(), 'docs', 'cookbook', recipe.file), 'utf8'));
}

/** What a rules file changes in the chart: transitions added and removed against the default machine, one phase standing for the rest. */
function chartDifference(rulesInput: unknown): { added: string[]; removed: string[] } {
  const keys = (input: unknown) => new Set(listTransitions(createHarnessMachine(rulesSchema.parse(input))).map((info) => info.key));
  const before = keys({});
  const after = keys(rulesInput);
  return { added: [...after].filter((key) => !before.has(key)), removed: [...before].filter((key) => !after.has(key)) };
}

/** The cookbook: each recipe's rules file and the chart difference it makes. */
function cookbookSection(link = linkFrom('README.md')): string {
  const parts: string[] = [];
  for (const recipe of cookbookRecipes()) {
    const rules = recipeRules(recipe);
    const { added, removed } = chartDifference(rules);
    parts.push(
      `**${recipe.title}** ([\`docs/cookbook/${recipe.file}\`](${link(`docs/cookbook/${recipe.file}`)})). ${recipe.note}`,
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

/** The chart as a person reads it first: the phases and the ways a run ends. */
function statechartSection(): string {
  const machine = createHarnessMachine(rulesSchema.parse({}));
  return ['```mermaid', toPhaseMermaid(machine).trimEnd(), '```'].join('\n');
}

/** One phase's turn cycle: every phase runs the same one, with its own exits in `route`. */
function turnCycleSection(): string {
  const machine = createHarnessMachine(rulesSchema.parse({}));
  return ['```mermaid', toTurnCycleMermaid(machine, 'build').trimEnd(), '```'].join('\n');
}

/** The endpoint profiles, from their one table in rules/endpoint-profiles.ts (the schema's `model.profile` enum reads it too). */
function endpointProfilesSection(): string {
  const rows = ENDPOINT_PROFILES.map(
    (profile) => `| \`${profile.name}\` | ${cell(profile.server)} | \`${cell(JSON.stringify(profile.settings))}\` | ${cell(profile.why)} |`,
  );
  return ['| `model.profile` | server | sets | why |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * Every mutant the source leaves out of mutation testing, with its reason: each `// Stryker disable` comment, read
 * from the code, so the list in docs/mutation.md is complete and cannot drift from the comments Stryker obeys.
 */
function strykerExclusionsSection(): string {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], { cwd: packageRoot(), encoding: 'utf8' })
    .split('\n')
    .filter((file) => file && !file.startsWith('test/') && !file.includes('/dist/'));
  const rows: string[] = [];
  for (const file of files) {
    const lines = readFileSync(join(packageRoot(), file), 'utf8').split('\n');
    lines.forEach((line, index) => {
      const found = /\/\/ Stryker disable (next-line|all|line) ([\w,]+): (.+)$/.exec(line.trim());
      if (found) rows.push(`| \`${file}:${index + 2}\` | ${found[2]!.split(',').join(', ')} | ${cell(found[3]!)} |`);
    });
  }
  return [
    `${rows.length} mutants are left out, each where the comment stands (the line after it):`,
    '',
    '| where | mutator | why it cannot change what the code does |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The options and programs an allow rule never lets through unnamed, from rules/approvals/code-running.ts. */
function codeRunningSection(): string {
  const rows = CODE_RUNNING_OPTIONS.map((row) => {
    const words = [
      ...(row.globalOptions ?? []).map((option) => `\`${option}\` (before the subcommand)`),
      ...row.options.map((option) => `\`${option}\``),
      ...(row.subcommands ?? []).map((name) => `\`${name}\``),
    ];
    return `| \`${row.program}\` | ${words.join(', ')} | ${cell(row.why)} |`;
  });
  return [
    '| program | options and subcommands | why |',
    '|---|---|---|',
    ...rows,
    `| a leading \`NAME=value\` | - | sets the environment the command runs with (\`PAGER=…\`, \`GIT_DIR=…\`) |`,
    '',
    `Programs that run the command they are given (never allowed by a rule for what they run): ${COMMAND_RUNNERS.map((name) => `\`${name}\``).join(', ')}.`,
  ].join('\n');
}

/** A generated section: the page that shows it (a path from the checkout) and its text. */
interface DocsSection {
  page: string;
  text: string;
}

/** Every generated section by its marker name (`<!-- name:start -->` … `<!-- name:end -->` in its page). */
export function docsSections(): Record<string, DocsSection> {
  const reference = 'docs/rules-reference.md';
  return {
    statechart: { page: 'README.md', text: statechartSection() },
    'turn-cycle': { page: 'docs/rules.md', text: turnCycleSection() },
    'endpoint-profiles': { page: 'docs/endpoints.md', text: endpointProfilesSection() },
    cookbook: { page: 'docs/rules.md', text: cookbookSection(linkFrom('docs/rules.md')) },
    'stall-rules': { page: reference, text: stallRulesSection(linkFrom(reference)) },
    guards: { page: reference, text: guardsSection() },
    'rules-keys': { page: reference, text: rulesKeysSection() },
    'stryker-exclusions': { page: 'docs/mutation.md', text: strykerExclusionsSection() },
    'code-running': { page: 'docs/approvals-and-hooks.md', text: codeRunningSection() },
  };
}
