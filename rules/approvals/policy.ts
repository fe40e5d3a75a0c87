import { type Phase, phaseRule, type Rules } from '../schema.js';
import type { ApprovalPolicy } from './evaluate.js';

/** The approval rules in effect in a phase: the global lists and the phase's own. */
export function approvalPolicyOf(phase: Phase, rules: Rules): ApprovalPolicy {
  const { allow, ask, deny, default: fallback } = rules.approvals;
  return { global: { allow, ask, deny, default: fallback }, phase: phaseRule(rules, phase).approvals };
}
