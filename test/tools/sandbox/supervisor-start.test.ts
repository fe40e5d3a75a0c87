import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withHarnessWatchdog } from '../../../tools/sandbox/lifetime/watched-argv.js';
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

// The same for every bash rein starts on its own: the watchdog of a one-off command, an MCP server or a hook, and the
// shell of a command run the spawn-per-command way. A ~/.bashrc with `pyenv init` waits a minute on a stale lock.
describe('a process rein starts on its own, under its watchdog', () => {
  it("reads no ~/.bashrc, also when the harness's environment has no SHLVL", async () => {
    const home = makeTempDir();
    const sourced = path.join(home, 'bashrc-was-read');
    fs.writeFileSync(path.join(home, '.bashrc'), `touch ${JSON.stringify(sourced)}\nexit 3\n`);
    const env = buildCommandEnv({ PATH: process.env.PATH, HOME: home });
    expect(env.SHLVL).toBeUndefined();
    const [program, ...args] = withHarnessWatchdog(['bash', '--norc', '-c', 'echo $HOME']);
    // Its own process group, as rein starts it: the watchdog ends its group when the harness (this test) is gone.
    // Node hands a child's stdin over as a socket: the case bash takes for a remote shell.
    const child = spawn(program!, args, { cwd: home, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(status).toBe(0);
    expect(stdout).toBe(`${home}\n`);
    expect(fs.existsSync(sourced)).toBe(false);
  });
});
