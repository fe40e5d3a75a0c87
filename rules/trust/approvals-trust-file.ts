import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../lib/errors.js';
import type { RememberedDecision } from '../approvals/remembered.js';

/**
 * The approval trust file: decisions a person told rein to remember for a
 * repository. It lives outside every repository (a repository must not be
 * able to approve its own calls), in the user's config directory, as
 * readable JSON a person may edit or empty.
 */

/** `$REIN_TRUST_FILE`, else `$XDG_CONFIG_HOME/rein/approvals.json`, else `~/.config/rein/approvals.json`. */
export function trustFilePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.REIN_TRUST_FILE) return env.REIN_TRUST_FILE;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'rein', 'approvals.json');
}

const remembered = z.strictObject({
  verdict: z.enum(['allow', 'deny']),
  scope: z.literal('repository'),
  tool: z.string().min(1),
  argsHash: z.string().min(1),
  command: z.string().optional(),
});
const trustSchema = z.strictObject({
  version: z.literal(1),
  repositories: z.record(z.string(), z.array(remembered)),
  /** Per repository: the fingerprint of the hooks its rules file declares that a person trusted (rules/trust/hooks-trust.ts). */
  hooks: z.record(z.string(), z.string()).optional(),
});
type TrustFile = z.infer<typeof trustSchema>;

function readTrust(path: string): TrustFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { version: 1, repositories: {} };
  }
  const parsed = trustSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new UsageError(`${path}: not a rein approval trust file (${parsed.error.issues[0]?.message}); fix or remove it`);
  return parsed.data;
}

/** The decisions remembered for this repository (its real path). */
export function rememberedForRepository(path: string, repository: string): RememberedDecision[] {
  return readTrust(path).repositories[repository] ?? [];
}

/** Remembers a decision for a repository; a newer decision about the same call replaces the older one. */
export function rememberForRepository(path: string, repository: string, decision: RememberedDecision): void {
  const trust = readTrust(path);
  const kept = (trust.repositories[repository] ?? []).filter((entry) => !(entry.tool === decision.tool && entry.argsHash === decision.argsHash));
  trust.repositories[repository] = [...kept, { ...decision, scope: 'repository', argsHash: decision.argsHash ?? '' }];
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, `${JSON.stringify(trust, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** Trusts a repository's hooks as they are now (`rein rules trust-hooks`). */
export function trustHooks(path: string, repository: string, fingerprint: string): void {
  const trust = readTrust(path);
  trust.hooks = { ...trust.hooks, [repository]: fingerprint };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, `${JSON.stringify(trust, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}
