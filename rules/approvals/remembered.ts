import type { CallFacts } from './call-facts.js';

/**
 * Where a remembered decision holds: `command` this exact call (tool and
 * arguments) for the rest of the run, `tool` every call of this tool for the
 * rest of the run, `run` every call for the rest of the run, `repository`
 * this exact call in every later run on this repository (kept in the trust
 * file, rules/trust/approvals-trust-file.ts). `once` is not remembered.
 */
export const REMEMBER_SCOPES = ['once', 'command', 'tool', 'run', 'repository'] as const;
export type RememberScope = (typeof REMEMBER_SCOPES)[number];

export interface RememberedDecision {
  verdict: 'allow' | 'deny';
  scope: Exclude<RememberScope, 'once'>;
  tool: string;
  /** For `command` and `repository`: the arguments' hash (see argsHash). */
  argsHash?: string;
  /** What was approved, for a person reading the trust store. */
  command?: string;
}

/** The newest remembered decision that covers this call, or null. */
export function rememberedFor(remembered: readonly RememberedDecision[], call: CallFacts, hash: string): RememberedDecision | null {
  for (let index = remembered.length - 1; index >= 0; index--) {
    const entry = remembered[index]!;
    if (covers(entry, call, hash)) return entry;
  }
  return null;
}

function covers(entry: RememberedDecision, call: CallFacts, hash: string): boolean {
  if (entry.scope === 'run') return true;
  if (entry.tool !== call.tool) return false;
  if (entry.scope === 'tool') return true;
  return entry.argsHash === hash;
}

/** The decision to remember for a scope, or null for `once`. */
export function toRemember(scope: RememberScope, verdict: 'allow' | 'deny', call: CallFacts, hash: string): RememberedDecision | null {
  if (scope === 'once') return null;
  const exact = scope === 'command' || scope === 'repository';
  return {
    verdict,
    scope,
    tool: call.tool,
    ...(exact ? { argsHash: hash } : {}),
    ...(exact && call.command ? { command: call.command } : {}),
  };
}
