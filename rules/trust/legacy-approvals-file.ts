import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { realKey } from '../../lib/state/state-records.js';
import type { RememberedDecision } from '../approvals/remembered.js';

/**
 * The approval trust file of earlier versions (`$XDG_CONFIG_HOME/rein/approvals.json`, else
 * `~/.config/rein/approvals.json`): remembered decisions by repository and trusted hooks by workspace. Still read,
 * never written: its decisions now live in the trust store (store.ts). A malformed file counts as empty.
 */
interface LegacyApprovalsFile {
  repositories: Record<string, RememberedDecision[]>;
  hooks: Record<string, string>;
}

export function legacyApprovalsFile(workspace: string, env: NodeJS.ProcessEnv = process.env): LegacyApprovalsFile {
  const path = join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'rein', 'approvals.json');
  // A file inside the workspace (XDG_CONFIG_HOME or a home folder there) is something the agent could have written.
  if (isInside(workspace, path)) return { repositories: {}, hooks: {} };
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<LegacyApprovalsFile>;
    const record = (field: unknown) => (field && typeof field === 'object' && !Array.isArray(field) ? field : {});
    return { repositories: record(value.repositories) as LegacyApprovalsFile['repositories'], hooks: record(value.hooks) as LegacyApprovalsFile['hooks'] };
  } catch {
    return { repositories: {}, hooks: {} };
  }
}

function isInside(workspace: string, file: string): boolean {
  const inside = relative(realKey(resolve(workspace)), realKey(resolve(file)));
  return inside === '' || (!inside.startsWith('..') && !inside.startsWith('/'));
}
