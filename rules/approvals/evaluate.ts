import type { CallFacts } from './call-facts.js';
import { parseRuleString, wildcard } from './patterns.js';
import { type RememberedDecision, rememberedFor } from './remembered.js';
import type { ApprovalRuleInput, ApprovalRuleObject, Approvals, ApprovalVerdict, PhaseApprovals } from './schema.js';

/** The approval rules in effect in one phase: the global lists and the phase's own. */
export interface ApprovalPolicy {
  global: Pick<Approvals, 'allow' | 'ask' | 'deny' | 'default'>;
  phase?: PhaseApprovals;
}

/** What the rules say about one call, and why. */
export interface ApprovalJudgement {
  verdict: ApprovalVerdict;
  /** Which step decided: a deny/ask/allow rule, a remembered decision, the default, or the exemption of finish. */
  by: 'deny' | 'ask' | 'allow' | 'remembered' | 'default' | 'exempt';
  /** The rule that matched, as written, or the remembered decision's scope. */
  rule?: string;
  reason: string;
}

/**
 * Judges one call, in the documented order: a deny rule (the phase's or the
 * global ones) refuses it; else a remembered decision holds (a remembered
 * allow is never asked again in its scope); else an ask rule makes it wait
 * for an approval; else an allow rule lets it run; else the default (the
 * phase's, then the global one). `finish` is never judged: the gate decides it.
 *
 * @example judgeCall(callFacts('run', '{"command":"rm -rf /"}'), { global: { deny: ['run(rm *)'], ask: [], allow: [], default: 'allow' } }, [], 'h') // verdict 'deny'
 */
export function judgeCall(call: CallFacts, policy: ApprovalPolicy, remembered: readonly RememberedDecision[], hash: string): ApprovalJudgement {
  if (call.tool === 'finish') return { verdict: 'allow', by: 'exempt', reason: 'finish is decided by the verification gate' };
  const denied = firstMatch([...(policy.phase?.deny ?? []), ...policy.global.deny], call, 'any part');
  if (denied) return { verdict: 'deny', by: 'deny', rule: denied.text, reason: denied.rule.reason ?? `a deny rule matches (${denied.text})` };
  const memory = rememberedFor(remembered, call, hash);
  if (memory) return { verdict: memory.verdict, by: 'remembered', rule: memory.scope, reason: `remembered ${memory.verdict} for this ${memory.scope}` };
  const asked = firstMatch([...(policy.phase?.ask ?? []), ...policy.global.ask], call, 'any part');
  if (asked) return { verdict: 'ask', by: 'ask', rule: asked.text, reason: asked.rule.reason ?? `an ask rule matches (${asked.text})` };
  const allowed = firstMatch([...(policy.phase?.allow ?? []), ...policy.global.allow], call, 'whole');
  if (allowed) return { verdict: 'allow', by: 'allow', rule: allowed.text, reason: allowed.rule.reason ?? `an allow rule matches (${allowed.text})` };
  const verdict = policy.phase?.default ?? policy.global.default;
  return { verdict, by: 'default', reason: `no rule matches; the default is ${verdict}` };
}

/** Whether any call could ever be asked or denied under this policy (otherwise the chart leaves approvals out). */
export function policyCanStop(policy: ApprovalPolicy): boolean {
  const { global, phase } = policy;
  const lists = [global.deny, global.ask, phase?.deny ?? [], phase?.ask ?? []];
  return lists.some((list) => list.length > 0) || (phase?.default ?? global.default) !== 'allow';
}

/**
 * Whether any call could ever be asked about under this policy: an ask rule, or a default of ask. Deny rules and
 * remembered decisions refuse or allow at once; without an ask path no call ever waits for a person.
 */
export function policyCanAsk(policy: ApprovalPolicy): boolean {
  const { global, phase } = policy;
  return global.ask.length > 0 || (phase?.ask ?? []).length > 0 || (phase?.default ?? global.default) === 'ask';
}

/**
 * How a command pattern reads a compound command (`ls; rm -rf x`): a deny or
 * ask rule matches when it fits the whole command or any part of it; an allow
 * rule only when it fits the whole and the command has no control operator
 * the pattern does not spell out, so `run(cat *)` never allows `cat a; rm b`.
 */
type CommandReading = 'any part' | 'whole';

function firstMatch(rules: readonly ApprovalRuleInput[], call: CallFacts, reading: CommandReading): { rule: ApprovalRuleObject; text: string } | null {
  for (const rule of rules) {
    const object = typeof rule === 'string' ? parseRuleString(rule) : rule;
    if (ruleMatches(object, call, reading)) return { rule: object, text: typeof rule === 'string' ? rule : describeRule(object) };
  }
  return null;
}

/** Whether one rule covers a call; a rule about commands or paths never matches a call without one. */
function ruleMatches(rule: ApprovalRuleObject, call: CallFacts, reading: CommandReading): boolean {
  if (!wildcard(rule.tool ?? '*').test(call.tool)) return false;
  if (rule.command !== undefined || rule.commandRegex !== undefined) {
    if (call.command === undefined || !commandMatches(rule, call.command, reading)) return false;
  }
  if (rule.path !== undefined && (call.path === undefined || !wildcard(rule.path, { slashes: false }).test(call.path))) return false;
  if (rule.notPath !== undefined && (call.path === undefined || wildcard(rule.notPath, { slashes: false }).test(call.path))) return false;
  return true;
}

const CONTROL_OPERATORS = /;|&&|\|\||\||&|`|\$\(|>|<|\n/;

function commandMatches(rule: ApprovalRuleObject, command: string, reading: CommandReading): boolean {
  const fits = (text: string) =>
    (rule.command === undefined || wildcard(rule.command.trim().replace(/[ \t]+/g, ' ')).test(text)) &&
    (rule.commandRegex === undefined || new RegExp(rule.commandRegex).test(text));
  if (reading === 'whole') return fits(command) && (!CONTROL_OPERATORS.test(command) || CONTROL_OPERATORS.test(rule.command ?? rule.commandRegex ?? ''));
  const parts = command
    .split(/;|&&|\|\||\||&|\n|`|\$\(|\)/)
    .map((part) => part.trim())
    .filter(Boolean);
  return fits(command) || parts.some(fits);
}

function describeRule(rule: ApprovalRuleObject): string {
  const parts = [
    rule.command && `command ${rule.command}`,
    rule.commandRegex && `command /${rule.commandRegex}/`,
    rule.path && `path ${rule.path}`,
    rule.notPath && `path not ${rule.notPath}`,
  ];
  const detail = parts.filter(Boolean).join(', ');
  return detail ? `${rule.tool ?? '*'} (${detail})` : (rule.tool ?? '*');
}
