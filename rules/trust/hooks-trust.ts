import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { UsageError } from '../../lib/errors.js';
import { stableStringify } from '../../lib/stable-json.js';
import { type Hooks, hasHooks } from '../hooks/schema.js';

/**
 * Hooks are commands rein runs at its own moments, whose answers decide
 * calls and finishes (and with `where: host`, run outside the sandbox), so a
 * repository must not bring its own: hooks declared by a rules file inside
 * the workspace run only after a person trusted exactly those hooks (`rein
 * rules trust-hooks`), by a fingerprint kept in the trust file outside every
 * repository. The fingerprint covers every field, `where` included: a hook
 * moved from the sandbox to the host is trusted no more. Hooks from a rules
 * file elsewhere (`--config ~/rein.json`) are the user's own.
 */

export function hooksFingerprint(hooks: Hooks): string {
  return createHash('sha256').update(stableStringify(hooks)).digest('hex');
}

function trustedFingerprints(trustFile: string): Record<string, string> {
  try {
    const value = (JSON.parse(readFileSync(trustFile, 'utf8')) as { hooks?: unknown }).hooks;
    return value && typeof value === 'object' ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** Whether the rules file sits inside the workspace (a repository's own rules file). */
export function fromRepository(configPath: string | undefined, workspace: string): boolean {
  if (!configPath) return false;
  const rel = relative(resolve(workspace), resolve(configPath));
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith('/');
}

/** Refuses to start a run whose repository brought hooks nobody trusted; the message says how to review and trust them. */
export function checkHooksTrusted(hooks: Hooks, configPath: string | undefined, workspace: string, trustFile: string): void {
  if (!hasHooks(hooks) || !fromRepository(configPath, workspace)) return;
  if (trustedFingerprints(trustFile)[resolve(workspace)] === hooksFingerprint(hooks)) return;
  throw new UsageError(
    `${configPath} declares hooks, commands rein would run and obey, and this repository's hooks are not trusted (or changed since). Review them with \`rein rules show --workspace ${workspace}\`, then trust them with \`rein rules trust-hooks --workspace ${workspace}\``,
  );
}
