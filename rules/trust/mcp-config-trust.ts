import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readRegularFile } from '../../lib/regular-file.js';
import { realKey, trustRecords } from './store.js';

/** A repository's `.mcp.json` a person trusted, by the workspace's real path. */
interface TrustedMcpConfig {
  workspace: string;
  /** sha256 of the file as it was trusted. */
  hash: string;
  trustedAt: string;
}

const trusted = trustRecords<TrustedMcpConfig>('trustedMcpConfig');

const FILE = '.mcp.json';

/** The sha256 of the workspace's `.mcp.json` (a regular file only; a FIFO or link is refused), or null when there is none. */
export function mcpConfigHash(workspace: string): string | null {
  const file = join(workspace, FILE);
  if (!existsSync(file)) return null;
  return createHash('sha256').update(readRegularFile(file)).digest('hex');
}

/**
 * Whether a person trusted this workspace's `.mcp.json` exactly as it is now: a file a run (or anyone) changed since
 * is untrusted again, so no server it names starts until a person has looked at it.
 *
 * @example isTrustedMcpConfig('/w/repo') // false until `rein trust /w/repo` (or yes at the prompt)
 */
export function isTrustedMcpConfig(workspace: string): boolean {
  const hash = mcpConfigHash(workspace);
  return hash !== null && trusted.get(realKey(workspace))?.hash === hash;
}

/** Records the workspace's `.mcp.json` as it is now; returns its hash, or null when there is none. */
export function trustMcpConfig(workspace: string): string | null {
  const hash = mcpConfigHash(workspace);
  if (hash === null) return null;
  const key = realKey(workspace);
  trusted.put(key, key, { workspace: key, hash, trustedAt: new Date().toISOString() });
  return hash;
}

/** `rein trust --revoke`: forgets the `.mcp.json` records of this workspace or of every workspace under this folder. */
export function revokeMcpConfigs(folder: string): string[] {
  const gone = trusted
    .list()
    .map(({ key }) => key)
    .filter((workspace) => workspace === folder || workspace.startsWith(`${folder.replace(/\/$/, '')}/`));
  for (const workspace of gone) trusted.remove(workspace);
  return gone;
}

/** `rein trust --list`: every trusted `.mcp.json`. */
export function listTrustedMcpConfigs(): TrustedMcpConfig[] {
  return trusted.list().map(({ value }) => value);
}
