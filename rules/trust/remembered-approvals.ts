import type { RememberedDecision } from '../approvals/remembered.js';
import { legacyApprovalsFile } from './legacy-approvals-file.js';
import { trustRecords } from './store.js';

interface RememberedRecord extends RememberedDecision {
  repository: string;
  rememberedAt: string;
}

/** One record per repository, tool and arguments: a newer decision about the same call replaces the older one. */
const remembered = trustRecords<RememberedRecord>('rememberedApprovals');
const keyOf = (repository: string, decision: Pick<RememberedDecision, 'tool' | 'argsHash'>) => `${repository}\n${decision.tool}\n${decision.argsHash ?? ''}`;

/**
 * The decisions a person told rein to remember for this repository (its real path), oldest first. Kept in the trust
 * store, outside every repository: a repository must not be able to approve its own calls.
 *
 * @example rememberedForRepository('/work/repo') // [{ verdict: 'allow', scope: 'repository', tool: 'run', argsHash: '…' }]
 */
export function rememberedForRepository(repository: string): RememberedDecision[] {
  const legacy = (legacyApprovalsFile(repository).repositories[repository] ?? []).filter((entry) => entry && typeof entry.tool === 'string');
  const stored = remembered
    .list()
    .map(({ value }) => value)
    .filter((value) => value.repository === repository)
    .sort((a, b) => a.rememberedAt.localeCompare(b.rememberedAt))
    .map(({ repository: _repository, rememberedAt: _at, ...decision }) => decision);
  return [...legacy, ...stored];
}

/** Remembers a decision for a repository; a newer decision about the same call replaces the older one. */
export function rememberForRepository(repository: string, decision: RememberedDecision): void {
  remembered.put(keyOf(repository, decision), repository, {
    ...decision,
    scope: 'repository',
    argsHash: decision.argsHash ?? '',
    repository,
    rememberedAt: new Date().toISOString(),
  });
}

/** `rein trust --revoke`: forgets what was remembered for this repository, or for every repository under this folder. Returns how many decisions. */
export function forgetRemembered(folder: string): number {
  const under = (path: string) => path === folder || path.startsWith(`${folder.replace(/\/$/, '')}/`);
  const gone = remembered.list().filter(({ value }) => under(value.repository));
  for (const { key } of gone) remembered.remove(key);
  return gone.length;
}

/** Every remembered decision, by repository, for `rein trust --list`. */
export function listRemembered(): Array<RememberedDecision & { repository: string; rememberedAt: string }> {
  return remembered.list().map(({ value }) => value);
}
