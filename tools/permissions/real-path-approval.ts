import fs from 'node:fs';
import path from 'node:path';
import { callFacts } from '../../rules/approvals/call-facts.js';
import { type ApprovalPolicy, judgeCall } from '../../rules/approvals/evaluate.js';
import { resolveInWorkspace } from './path-guard.js';

const STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;

/**
 * Path rules judge what a call touches, not only how the model spelled it: just before a call with a path runs,
 * its real path (links resolved) is judged by the same rules, and if that judgement is stricter than the one for the
 * written path (a link `docs/notes` to a denied `secrets/`, or to a folder whose edits are asked about), the call is
 * refused with the reason. Nothing runs that a rule about its real path would have stopped or asked about. Null when
 * the call may run.
 *
 * @example realPathRefusal('/w', 'edit_file', '{"path":"link/a.txt",…}', policy) // 'Refused: link/a.txt is secrets/a.txt …'
 */
export function realPathRefusal(root: string, tool: string, rawArgs: string, policy: ApprovalPolicy): string | null {
  const written = callFacts(tool, rawArgs);
  if (written.path === undefined) return null;
  let real: string;
  try {
    const realRoot = fs.realpathSync(root);
    real = path.relative(realRoot, resolveInWorkspace(realRoot, written.path)).split(path.sep).join('/') || '.';
  } catch {
    // Outside the workspace or hidden: the tool itself refuses it, with its own reason.
    return null;
  }
  if (real === written.path) return null;
  const asWritten = judgeCall(written, policy, [], '');
  const asReal = judgeCall({ ...written, path: real }, policy, [], '');
  if (STRICTNESS[asReal.verdict] <= STRICTNESS[asWritten.verdict]) return null;
  const what = asReal.verdict === 'deny' ? 'refuse' : 'ask a person about';
  return `Refused: ${written.path} is ${real} (through a symlink), and the approval rules ${what} ${real}: ${asReal.reason}. Name ${real} itself so the call is judged as what it touches.`;
}
