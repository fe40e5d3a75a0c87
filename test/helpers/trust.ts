import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, vi } from 'vitest';
import { RULES_FILE_NAMES } from '../../lib/state/harness-files.js';
import { fingerprintRules, trustRulesFile } from '../../rules/trust/index.js';
import { makeTempDir } from './workspace.js';

/** Each test of the file gets its own user state dir (XDG_STATE_HOME), so trust records never leak between tests or into yours. */
export function useTempStateDir(): { current: string } {
  const state = { current: '' };
  beforeEach(() => {
    state.current = makeTempDir('rein-state-');
    vi.stubEnv('XDG_STATE_HOME', state.current);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  return state;
}

/** What `rein trust <workspace>` does: the workspace's rules file is recorded as trusted, as it is now. */
export async function trustWorkspaceRules(workspace: string): Promise<void> {
  const name = RULES_FILE_NAMES.find((candidate) => existsSync(join(workspace, candidate)));
  if (!name) throw new Error(`no rules file in ${workspace}`);
  trustRulesFile(join(workspace, name), await fingerprintRules(join(workspace, name), workspace));
}
