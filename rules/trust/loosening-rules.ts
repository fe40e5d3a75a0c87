import { stableStringify } from '../../lib/stable-json.js';
import type { PhaseApprovals } from '../approvals/schema.js';
import { HOOK_MOMENTS } from '../hooks/schema.js';
import type { Rules } from '../schema.js';

/**
 * What a rules file nobody trusted may not do. A repository's own `rein.config.json`/`.yaml` is loaded without
 * being trusted only if every change it makes to the rules below it (preset and defaults) keeps or narrows what the
 * run may do; a change that widens any of these is refused, with this table's words. Everything not named here
 * (context management, tool output limits, model request settings, stall thresholds, phase flow, the verification
 * command, the repository instructions file) neither grants access nor speaks for rein, and is applied.
 */
interface LooseningRule {
  /** The field, as written in a rules file. */
  field: string;
  /** How a finding is introduced, when not by the field. */
  label?: string;
  /** What counts as loosening it (README and docs/SECURITY.md quote these). */
  loosens: string;
  /** The widening found in `rules` compared with `base`, or null. */
  check(base: Rules, rules: Rules): string | null;
}

const added = (base: readonly unknown[], now: readonly unknown[]) => now.filter((item) => !base.some((old) => same(old, item)));
const removed = (base: readonly unknown[], now: readonly unknown[]) => added(now, base);
const same = (a: unknown, b: unknown) => stableStringify(a) === stableStringify(b);
const list = (items: readonly unknown[]) => items.map((item) => (typeof item === 'string' ? item : stableStringify(item))).join(', ');

const SANDBOX_STRENGTH = { none: 0, auto: 1, bwrap: 2 } as const;
const VERDICT_STRENGTH = { allow: 0, ask: 1, deny: 2 } as const;
const HEADLESS_STRENGTH = { allow: 0, exit: 1, deny: 1 } as const;

/** Approval lists: allow entries added, or deny/ask entries removed, or a weaker default, let a call through that was stopped. */
function approvalsLoosened(base: Partial<PhaseApprovals>, now: Partial<PhaseApprovals>): string[] {
  const found: string[] = [];
  const more = added(base.allow ?? [], now.allow ?? []);
  if (more.length > 0) found.push(`allow adds ${list(more)}`);
  for (const key of ['deny', 'ask'] as const) {
    const gone = removed(base[key] ?? [], now[key] ?? []);
    if (gone.length > 0) found.push(`${key} drops ${list(gone)}`);
  }
  if (base.default && now.default && VERDICT_STRENGTH[now.default] < VERDICT_STRENGTH[base.default]) found.push(`default ${base.default} → ${now.default}`);
  if (!base.default && now.default === 'allow') found.push('default allow');
  return found;
}

/** The memory limit's default is half the machine's memory, at most this: a file naming more raises it on any machine. */
const DEFAULT_MEMORY_CEILING_MIB = 8192;

const joined = (found: string[]) => (found.length > 0 ? found.join('; ') : null);

export const LOOSENING_RULES: readonly LooseningRule[] = [
  {
    field: 'permissions.sandbox',
    loosens: 'a weaker sandbox (bwrap → auto → none)',
    check: (base, rules) =>
      SANDBOX_STRENGTH[rules.permissions.sandbox] < SANDBOX_STRENGTH[base.permissions.sandbox]
        ? `${base.permissions.sandbox} → ${rules.permissions.sandbox}`
        : null,
  },
  {
    field: 'permissions.network',
    loosens: 'network on',
    check: (base, rules) => (rules.permissions.network && !base.permissions.network ? 'true' : null),
  },
  {
    field: 'permissions.envAllow',
    loosens: 'any variable added (it reaches every command)',
    check: (base, rules) => joined(added(base.permissions.envAllow, rules.permissions.envAllow).map(String)),
  },
  {
    field: 'permissions.readable',
    loosens: 'any path or pattern added',
    check: (base, rules) => joined(added(base.permissions.readable, rules.permissions.readable).map(String)),
  },
  {
    field: 'permissions.hidden',
    loosens: 'any entry removed (adding is tightening)',
    check: (base, rules) => joined(removed(base.permissions.hidden, rules.permissions.hidden).map((entry) => `drops ${entry}`)),
  },
  {
    field: 'permissions.deny',
    loosens: 'any pattern removed (adding is tightening)',
    check: (base, rules) => joined(removed(base.permissions.deny, rules.permissions.deny).map((entry) => `drops ${entry}`)),
  },
  {
    field: 'approvals',
    loosens: 'allow rules added, deny or ask rules removed, a weaker default (deny → ask → allow), headless: allow',
    check: (base, rules) => {
      const found = approvalsLoosened(base.approvals, rules.approvals);
      if (rules.approvals.headless === 'allow' && base.approvals.headless !== 'allow') found.push('headless allow');
      else if (HEADLESS_STRENGTH[rules.approvals.headless] < HEADLESS_STRENGTH[base.approvals.headless]) found.push(`headless ${rules.approvals.headless}`);
      return joined(found);
    },
  },
  {
    field: 'phases.<phase>.approvals',
    loosens: 'the same, per phase',
    check: (base, rules) =>
      joined(
        Object.entries(rules.phases).flatMap(([name, phase]) =>
          approvalsLoosened(base.phases[name]?.approvals ?? {}, phase.approvals).map((found) => `${name}: ${found}`),
        ),
      ),
  },
  {
    field: 'phases.<phase>.tools',
    loosens: 'a phase of the rules below given tools it did not allow (all, or names added)',
    check: (base, rules) =>
      joined(
        Object.entries(base.phases).flatMap(([name, phase]) => {
          const now = rules.phases[name]?.tools;
          if (phase.tools === 'all' || now === undefined) return [];
          if (now === 'all') return [`${name}: all`];
          const more = added(phase.tools, now);
          return more.length > 0 ? [`${name}: adds ${list(more)}`] : [];
        }),
      ),
  },
  {
    field: 'permissions.limits',
    loosens: 'memoryMiB above the default (8192 at most) or above the rules below, processes raised',
    check: (base, rules) => {
      const found: string[] = [];
      const [was, now] = [base.permissions.limits, rules.permissions.limits];
      if (now.memoryMiB !== undefined && now.memoryMiB > (was.memoryMiB ?? DEFAULT_MEMORY_CEILING_MIB)) found.push(`memoryMiB ${now.memoryMiB}`);
      if (now.processes > was.processes) found.push(`processes ${now.processes}`);
      return joined(found);
    },
  },
  {
    field: 'tools.phases',
    loosens: 'a tool placed in a phase the rules below kept it out of, or its placement removed',
    check: (base, rules) =>
      joined(
        Object.entries(base.tools.phases).flatMap(([tool, phases]) => {
          const now = rules.tools.phases[tool];
          if (now === undefined) return [`${tool}: no longer placed`];
          const more = added(phases, now);
          return more.length > 0 ? [`${tool}: adds ${list(more)}`] : [];
        }),
      ),
  },
  {
    field: 'tools.maxCallsPerReply',
    loosens: 'raised (more commands in one step of the step budget)',
    check: (base, rules) => (rules.tools.maxCallsPerReply > base.tools.maxCallsPerReply ? String(rules.tools.maxCallsPerReply) : null),
  },
  {
    field: 'model.maxResponseBytes',
    loosens: "raised (the harness's own memory, outside the sandbox)",
    check: (base, rules) => (rules.model.maxResponseBytes > base.model.maxResponseBytes ? String(rules.model.maxResponseBytes) : null),
  },
  {
    field: 'tools.enabled',
    loosens: 'any tool added',
    check: (base, rules) => joined(added(base.tools.enabled, rules.tools.enabled).map(String)),
  },
  {
    field: 'hooks',
    loosens: 'any hook added, in the sandbox or where: host (a hook is a command rein runs and obeys; a host hook runs outside the sandbox)',
    check: (base, rules) =>
      joined(HOOK_MOMENTS.flatMap((moment) => added(base.hooks[moment], rules.hooks[moment]).map((hook) => `${moment}: ${stableStringify(hook)}`))),
  },
  {
    field: 'mcp.servers',
    loosens: 'any server added or changed (a server is a program rein starts)',
    check: (base, rules) => joined(Object.keys(rules.mcp.servers).filter((name) => !same(base.mcp.servers[name], rules.mcp.servers[name]))),
  },
  {
    field: 'snapshots',
    loosens: 'snapshots off, or a path excluded that was kept (what `rein rewind` could no longer undo)',
    check: (base, rules) => {
      if (base.snapshots.enabled && !rules.snapshots.enabled) return 'enabled: false';
      return joined(rules.snapshots.exclude.filter((pattern) => !base.snapshots.exclude.includes(pattern)));
    },
  },
  {
    field: 'mcp.projectConfig',
    loosens: "true (starts the servers the repository's .mcp.json names)",
    check: (base, rules) => (rules.mcp.projectConfig && !base.mcp.projectConfig ? 'true' : null),
  },
  {
    field: 'verification',
    loosens: 'the gate off, a changed `when`, pass exit code or pass pattern, fewer runs, a check removed or changed, commandsCountAsEdits off',
    check: (base, rules) => {
      const [was, now] = [base.verification, rules.verification];
      const found: string[] = [];
      if (was.gate && !now.gate) found.push('gate false');
      if (!same(was.when, now.when)) found.push('when changed');
      if (was.passExitCode !== now.passExitCode) found.push(`passExitCode ${now.passExitCode}`);
      if (was.passPattern !== now.passPattern) found.push(`passPattern ${now.passPattern ?? '(none)'}`);
      if (now.runs < was.runs) found.push(`runs ${now.runs}`);
      const gone = removed(was.checks, now.checks);
      if (gone.length > 0) found.push(`checks drop ${list(gone)}`);
      if (was.commandsCountAsEdits && !now.commandsCountAsEdits) found.push('commandsCountAsEdits false');
      return joined(found);
    },
  },
  {
    field: 'budgets',
    loosens: 'maxSteps, maxSeconds, maxTokens or maxCostUsd raised or removed (your time and money)',
    check: (base, rules) =>
      joined(
        (['maxSteps', 'maxSeconds', 'maxTokens', 'maxCostUsd'] as const).flatMap((key) => {
          const [was, now] = [base.budgets[key], rules.budgets[key]];
          if (was === undefined || (now !== undefined && now <= was)) return [];
          return [`${key} ${now ?? '(none)'}`];
        }),
      ),
  },
  {
    field: 'model.prices',
    loosens: 'any price changed (the cost cap is computed from them)',
    check: (base, rules) => (same(base.model.prices, rules.model.prices) ? null : 'changed'),
  },
  {
    field: 'systemPrompt, messages, verification.refusal, stall.rules[].message, phases.<phase>.nudges',
    label: "rein's texts",
    loosens: "any change: these texts reach the model as rein's own words, with rein's authority",
    check: (base, rules) => {
      const found: string[] = [];
      if (base.systemPrompt !== rules.systemPrompt) found.push('systemPrompt');
      if (!same(base.messages, rules.messages)) found.push('messages');
      if (base.verification.refusal !== rules.verification.refusal) found.push('verification.refusal');
      if (rules.stall.rules.some((rule) => rule.message !== undefined && !base.stall.rules.some((old) => old.message === rule.message)))
        found.push('stall.rules messages');
      for (const [name, phase] of Object.entries(rules.phases)) if (!same(base.phases[name]?.nudges ?? {}, phase.nudges)) found.push(`phases.${name}.nudges`);
      return joined(found);
    },
  },
  {
    field: 'agents, delegation',
    loosens: "any change: an agent is a prompt in rein's words, a model and an endpoint that code and money go to, and more runs on your budget",
    check: (base, rules) => {
      const found: string[] = [];
      if (!same(base.agents, rules.agents)) found.push('agents');
      if (!same(base.delegation, rules.delegation)) found.push('delegation');
      return joined(found);
    },
  },
];

/** Top-level sections a rules file may change freely, and why (a test checks that every section is judged somewhere). */
export const FREE_SECTIONS: Record<string, string> = {
  context: 'how the record is compacted',
  model: 'request settings for your own endpoint (prices and maxResponseBytes excepted)',
  repositoryInstructions: "which file is given to the model, labelled as the repository's words",
  stall: 'stall thresholds (their texts excepted)',
  tools: 'output limits and command timeouts (tools.enabled, phases and maxCallsPerReply excepted)',
};

/** Every widening `rules` makes over `base`, as `field: what` lines; empty when it only keeps or narrows. */
export function looseningsOf(base: Rules, rules: Rules): string[] {
  return LOOSENING_RULES.flatMap((rule) => {
    const found = rule.check(base, rules);
    return found === null ? [] : [`${rule.label ?? rule.field}: ${found}`];
  });
}
