import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../lib/errors.js';
import { commandWords } from '../../../rules/hooks/command-words.js';
import { workspacePathsIn } from '../../../rules/hooks/host-hooks.js';
import { admitRun } from '../../../run/parts/admission.js';
import { loadRules } from '../../../run/rules-files/load-rules.js';
import { makeTempDir, writeFiles } from '../../helpers/workspace.js';

describe('the words of a hook command (rules/hooks/command-words.ts)', () => {
  it('splits as sh does before expansion: quotes joined and removed, escapes kept, operators between words', () => {
    expect(commandWords(`sh "./my checks/policy.sh" && echo 'a;b' x\\ y|wc -l;$(./sub.sh)`)).toEqual([
      'sh',
      './my checks/policy.sh',
      'echo',
      'a;b',
      'x y',
      'wc',
      '-l',
      '$',
      './sub.sh',
    ]);
  });
});

describe('a host hook may not run what the agent can rewrite (rules/hooks/host-hooks.ts)', () => {
  it('finds relative paths, absolute paths under the workspace and files that exist there; addresses and messages are not paths', () => {
    const root = makeTempDir('rein-host-hook-');
    writeFiles(root, { 'check.py': '', 'tests/test_x.py': '' });
    const found = (command: string) => workspacePathsIn(command, root);
    expect(found('./policy.sh')).toEqual(['./policy.sh']);
    expect(found('sh scripts/policy.sh')).toEqual(['scripts/policy.sh']);
    expect(found('python3 check.py')).toEqual(['check.py']);
    expect(found('pytest tests')).toEqual(['tests']);
    expect(found(`bash ${root}/hooks/x.sh`)).toEqual([`${root}/hooks/x.sh`]);
    expect(found('node --require=./preload.js x')).toEqual(['--require=./preload.js']);
    expect(found('curl -d @payload/x.json https://example.com')).toEqual(['@payload/x.json']);
    expect(found(`curl -s -X POST -H 'Content-Type: application/json' -d @- https://hooks.example.com/services/T0/B0`)).toEqual([]);
    expect(found(`notify-send "rein: step 3/4 done"`)).toEqual([]);
    expect(found('~/.config/rein/hooks/notify.sh')).toEqual([]);
    expect(found('/usr/local/bin/notify')).toEqual([]);
    // Claude Code's name for the project folder (and rein's own) is the workspace: a script below it is inside.
    expect(found('"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh')).toEqual(['$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh']);
    expect(found('${REIN_WORKSPACE}/x.sh')).toEqual(['${REIN_WORKSPACE}/x.sh']);
  });

  it('refuses where: host with a workspace script before a run starts, naming the hook, the path and the fix', async () => {
    const root = makeTempDir('rein-host-hook-');
    writeFiles(root, { 'scripts/policy.sh': 'echo {}\n' });
    const rulesFile = join(makeTempDir('rein-host-rules-'), 'rein.json');
    const admit = async () => {
      const { rules } = await loadRules({ configPath: rulesFile, workspace: root });
      return admitRun({ workspace: root, rules, configPath: rulesFile, runDir: makeTempDir('rein-host-run-') });
    };
    writeFileSync(rulesFile, JSON.stringify({ hooks: { preToolUse: [{ command: 'echo' }, { command: 'sh scripts/policy.sh', where: 'host' }] } }));
    const error = await admit().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toContain(`${rulesFile}: hooks.preToolUse[1] (\`sh scripts/policy.sh\`) has where: host`);
    expect(message).toContain(`\`scripts/policy.sh\` is a path inside the workspace ${root}`);
    expect(message).toContain('Move the script outside the repository (e.g. ~/.config/rein/hooks/)');
    expect(message).toContain('or drop `where: host`');
    // The same hook in the sandbox (the default), or a host hook whose script lives outside the repository, loads.
    writeFileSync(rulesFile, JSON.stringify({ hooks: { preToolUse: [{ command: 'sh scripts/policy.sh' }] } }));
    await expect(admit()).resolves.toBeDefined();
    const outside = join(homedir(), '.config', 'rein', 'hooks', 'notify.sh');
    writeFileSync(rulesFile, JSON.stringify({ hooks: { runEnd: [{ command: outside, where: 'host' }] } }));
    const loaded = await loadRules({ configPath: rulesFile, workspace: root });
    expect(loaded.rules.hooks.runEnd[0]).toMatchObject({ command: outside, where: 'host' });
  });
});
