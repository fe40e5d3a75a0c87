import { relative, resolve } from 'node:path';
import { UsageError } from '../../lib/errors.js';
import { realKey, type StateRecords, stateRecords } from '../../lib/state/state-records.js';
import { userStateDir } from '../../lib/state/user-state-dir.js';

/**
 * The one store of trust: every decision a person made about something a workspace brings, and every record of what
 * rein itself wrote there, as folders of small private JSON files in the user's state dir (lib/state/state-records.ts),
 * one file per key. No repository and no sandboxed command can write there (the sandbox never shows it), and no two
 * runs ever lose each other's records. A person may read, edit or delete any of them; `rein trust --list` shows them.
 */
export const TRUST_KINDS = {
  /** Rules files (and the workspace modules they import) a person trusted as they are: `rein trust`. */
  trustedRules: 'trusted-rules',
  /** A repository's hooks a person trusted as they are, `where` included: `rein rules trust-hooks`. */
  trustedHooks: 'trusted-hooks',
  /** A repository's `.mcp.json` a person trusted as it is. */
  trustedMcpConfig: 'trusted-mcp',
  /** Approval decisions a person told rein to remember for a repository (`r` at the prompt, `--remember repository`). */
  rememberedApprovals: 'remembered-approvals',
  /** Rules files a run created or changed: not loaded until a person trusts them. */
  untrustedRules: 'rules-untrusted',
  /** The rules files' baseline of each run not yet ended. */
  rulesWatch: 'rules-watch',
  /** The `run.json` rein wrote in each run directory, by hash. */
  runs: 'runs',
  /** The `progress.json` rein last wrote in each workspace, by hash. */
  progress: 'progress',
} as const;
type TrustKind = keyof typeof TRUST_KINDS;

/** The records of one kind. */
export function trustRecords<T>(kind: TrustKind): StateRecords<T> {
  return stateRecords<T>(TRUST_KINDS[kind]);
}

/**
 * Refuses a run whose trust store would lie inside its workspace (`XDG_STATE_HOME` pointed into the repository, or a
 * home folder that holds it): what the agent can write there would be trusted as a person's decision.
 *
 * @example checkStoreOutside('/work/repo') // throws when the user state dir is /work/repo/.state/rein
 */
export function checkStoreOutside(workspace: string, env: NodeJS.ProcessEnv = process.env): void {
  const store = realKey(userStateDir(env));
  const inside = relative(realKey(resolve(workspace)), store);
  if (inside === '' || (!inside.startsWith('..') && !inside.startsWith('/')))
    throw new UsageError(
      `rein's state dir ${store} (XDG_STATE_HOME) is inside the workspace, where sandboxed commands could rewrite what you trusted; set XDG_STATE_HOME to a folder outside it`,
    );
}

export { realKey };
