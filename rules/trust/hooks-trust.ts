import { createHash } from 'node:crypto';
import { relative, resolve } from 'node:path';
import { UsageError } from '../../lib/errors.js';
import { stableStringify } from '../../lib/stable-json.js';
import { type Hooks, hasHooks } from '../hooks/schema.js';
import { legacyApprovalsFile } from './legacy-approvals-file.js';
import { realKey, trustRecords } from './store.js';

/**
 * Hooks are commands rein runs at its own moments, whose answers decide calls and finishes (and with `where: host`,
 * run outside the sandbox), so a repository must not bring its own: hooks declared by a rules file inside the
 * workspace run only after a person trusted exactly those hooks (`rein rules trust-hooks`), by a fingerprint kept in
 * the trust store. The fingerprint covers every field, `where` included: a hook moved from the sandbox to the host is
 * trusted no more. Hooks from a rules file elsewhere (`--config ~/rein.json`) are the user's own.
 */
const trustedHooks = trustRecords<{ workspace: string; fingerprint: string; trustedAt: string }>('trustedHooks');

function hooksFingerprint(hooks: Hooks): string {
  return createHash('sha256').update(stableStringify(hooks)).digest('hex');
}

/** `rein rules trust-hooks`: a person trusts this repository's hooks as they are. */
export function trustHooks(workspace: string, hooks: Hooks): void {
  const key = realKey(workspace);
  trustedHooks.put(key, key, { workspace: key, fingerprint: hooksFingerprint(hooks), trustedAt: new Date().toISOString() });
}

/** Whether a person trusted exactly these hooks for this repository. */
function isTrustedHooks(workspace: string, hooks: Hooks): boolean {
  const key = realKey(workspace);
  const fingerprint = hooksFingerprint(hooks);
  return trustedHooks.get(key)?.fingerprint === fingerprint || legacyApprovalsFile(workspace).hooks[resolve(workspace)] === fingerprint;
}

/** Whether the rules file sits inside the workspace (a repository's own rules file). */
function fromRepository(configPath: string | undefined, workspace: string): boolean {
  if (!configPath) return false;
  const rel = relative(resolve(workspace), resolve(configPath));
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith('/');
}

/** Refuses to start a run whose repository brought hooks nobody trusted; the message says how to review and trust them. */
export function checkHooksTrusted(hooks: Hooks, configPath: string | undefined, workspace: string): void {
  if (!hasHooks(hooks) || !fromRepository(configPath, workspace) || isTrustedHooks(workspace, hooks)) return;
  throw new UsageError(
    `${configPath} declares hooks, commands rein would run and obey, and this repository's hooks are not trusted (or changed since). Review them with \`rein rules show --workspace ${workspace}\`, then trust them with \`rein rules trust-hooks --workspace ${workspace}\``,
  );
}

/** Every repository whose hooks a person trusted, with when. */
export function listTrustedHooks(): Array<{ workspace: string; trustedAt: string }> {
  return trustedHooks.list().map(({ value }) => ({ workspace: value.workspace, trustedAt: value.trustedAt }));
}

/** `rein trust --revoke`: forgets the trusted hooks of this workspace, or of every workspace under this folder. Returns the workspaces. */
export function revokeHooks(folder: string): string[] {
  const under = (path: string) => path === folder || path.startsWith(`${folder.replace(/\/$/, '')}/`);
  const gone = trustedHooks.list().filter(({ value }) => under(value.workspace));
  for (const { key } of gone) trustedHooks.remove(key);
  return gone.map(({ value }) => value.workspace);
}
