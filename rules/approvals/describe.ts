import { enabledPhases, type Rules } from '../schema.js';
import { approvalPolicyOf } from './policy.js';
import type { ApprovalRuleInput } from './schema.js';

const list = (rules: readonly ApprovalRuleInput[]) =>
  rules.length === 0 ? '-' : rules.map((rule) => (typeof rule === 'string' ? rule : JSON.stringify(rule))).join(', ');

/**
 * The approval rules in effect, per phase, in the order they are checked:
 * what `rein rules show` prints after the JSON.
 *
 * @example describeApprovals(defaultRules()) // 'approvals (checked in this order: deny → remembered → ask → allow → default) …'
 */
export function describeApprovals(rules: Rules): string {
  const lines = [
    `approvals (checked in this order: deny → remembered → ask → allow → default; timeout ${rules.approvals.timeoutSeconds} s = deny; headless: ${rules.approvals.headless}):`,
  ];
  const width = Math.max(6, ...enabledPhases(rules).map((phase) => phase.length));
  for (const phase of enabledPhases(rules)) {
    const { global, phase: own } = approvalPolicyOf(phase, rules);
    const both = (key: 'deny' | 'ask' | 'allow') => list([...(own?.[key] ?? []), ...global[key]]);
    lines.push(`  ${phase.padEnd(width)} deny: ${both('deny')} | ask: ${both('ask')} | allow: ${both('allow')} | default: ${own?.default ?? global.default}`);
  }
  return `${lines.join('\n')}\n`;
}
