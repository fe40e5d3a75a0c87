import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCommandEnv } from '../../../tools/sandbox/plan/environment.js';
import { startSupervisor } from '../../../tools/sandbox/supervisor/supervisor.js';
import { makeTempDir } from '../../helpers/workspace.js';

describe('the supervisor on the host', () => {
  // Node gives it a socket for stdin; bash takes a shell on a socket for a remote one and reads ~/.bashrc when SHLVL
  // is unset, as it is for a harness started by systemd, cron or a container's CMD.
  it("reads no ~/.bashrc, also when the harness's environment has no SHLVL", async () => {
    const home = makeTempDir();
    const sourced = path.join(home, 'bashrc-was-read');
    fs.writeFileSync(path.join(home, '.bashrc'), `touch ${JSON.stringify(sourced)}\nexit 3\n`);
    const env = buildCommandEnv({ PATH: process.env.PATH, HOME: home });
    expect(env.SHLVL).toBeUndefined();
    const supervisor = startSupervisor({ wrap: null, cwd: home, env });
    try {
      const result = await supervisor.runCommand('echo $HOME', { timeoutMs: 20_000, signal: new AbortController().signal, outputCap: 1000 });
      expect(result.ending).toBe('exited');
      expect(result.output.finish()).toBe(`${home}\n`);
      expect(fs.existsSync(sourced)).toBe(false);
    } finally {
      await supervisor.close();
    }
  });
});
