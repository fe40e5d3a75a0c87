import { posix } from 'node:path';
import { compileRuleRegex } from '../../lib/rule-regex.js';
import type { CallFacts } from './call-facts.js';
import { codeRunningReason } from './code-running.js';
import { parseRuleString, wildcard } from './patterns.js';
import { type RememberedDecision, rememberedFor } from './remembered.js';
import type { ApprovalRuleInput, ApprovalRuleObject, Approvals, ApprovalVerdict, PhaseApprovals } from './schema.js';
import { assignmentCount, parseCommandLine } from './shell-words.js';

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

/**
 * Deny and ask rules read the command every way it could be meant (the whole text, each part between operators, and
 * each simple command's words with quotes removed and the program's folder dropped), so `g"it" push` and
 * `/usr/bin/git push` are caught by `git push*`. An allow rule reads the words (see `allowMatches`).
 */
function commandMatches(rule: ApprovalRuleObject, command: string, reading: CommandReading): boolean {
  if (reading === 'whole') return allowMatches(rule, command);
  const fits = (text: string) =>
    (rule.command === undefined || wildcard(rule.command.trim().replace(/[ \t]+/g, ' ')).test(text)) &&
    (rule.commandRegex === undefined || compileRuleRegex(rule.commandRegex).test(text));
  const parts = command
    .split(/;|&&|\|\||\||&|\n|`|\$\(|\)/)
    .map((part) => part.trim())
    .filter(Boolean);
  const simple = parseCommandLine(command).commands.flatMap((words) => {
    const bare = words.slice(assignmentCount(words));
    if (bare.length === 0) return [];
    return [bare.join(' '), [posix.basename(bare[0]!), ...bare.slice(1)].join(' ')];
  });
  return fits(command) || parts.some(fits) || simple.some(fits);
}

/**
 * Whether an allow rule lets a command through. The command must be one simple command (no operator, substitution,
 * redirection or `$` expansion) unless the rule itself spells operators; its words must match the rule's words (a
 * `*` inside a word matches within that word; a `*` ending the rule, alone or glued to its last word, matches any
 * further words: `git diff*` allows `git diff --stat`, never `git difftool`). And no simple command in it may run
 * code the rule does not name: an option or program of the code-running table (`git -c`, `git difftool`,
 * `find -exec`, `rg --pre`, `xargs`, `sh -c`, …) is allowed only by a rule whose own words name it.
 */
function allowMatches(rule: ApprovalRuleObject, command: string): boolean {
  const line = parseCommandLine(command);
  if (line.unterminated) return false;
  const pattern = rule.command?.trim().replace(/[ \t]+/g, ' ');
  const spelled = CONTROL_OPERATORS.test(pattern ?? rule.commandRegex ?? '');
  if (spelled) {
    if (pattern !== undefined && !wildcard(pattern).test(command)) return false;
  } else {
    if (line.commands.length !== 1 || line.operators.length > 0 || line.substitutions || line.redirections) return false;
    if (line.expansions && !(pattern ?? rule.commandRegex ?? '').includes('$')) return false;
    if (pattern !== undefined && !wordsMatch(parseCommandLine(pattern).commands.flat(), line.commands[0]!)) return false;
  }
  if (rule.commandRegex !== undefined && !compileRuleRegex(rule.commandRegex).test(command)) return false;
  const named = new Set(pattern === undefined ? [] : parseCommandLine(pattern).commands.flat());
  return line.commands.every((words) => {
    const found = codeRunningReason(words);
    return found === null || named.has(found.token);
  });
}

/** A rule's words against a command's: `*` within a word is a glob of that word; a trailing `*` any further words. */
function wordsMatch(pattern: readonly string[], words: readonly string[]): boolean {
  let fixed = [...pattern];
  let rest = false;
  const last = fixed[fixed.length - 1];
  if (last?.endsWith('*') && !last.endsWith('\\*')) {
    rest = true;
    fixed = last === '*' ? fixed.slice(0, -1) : [...fixed.slice(0, -1), last.slice(0, -1)];
  }
  if (rest ? words.length < fixed.length : words.length !== fixed.length) return false;
  return fixed.every((word, index) => wildcard(word).test(words[index]!));
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
