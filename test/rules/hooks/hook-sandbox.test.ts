import { spawn } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { planHookLaunch } from '../../../actors/hooks/hook-launch.js';
import { runHook } from '../../../actors/hooks/run-hook.js';
import type { CommandPolicy } from '../../../rules/command-policy.js';
import type { HookSpec } from '../../../rules/hooks/schema.js';
import { repoRoot } from '../../helpers/cli.js';
import { processesWithArgument, uniqueMarker } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/wait.js';
import { defaultPolicy, makeTempDir, writeFiles } from '../../helpers/workspace.js';

// Sandboxed hooks must really get bubblewrap here: a machine without it fails these tests instead of running them bare.
const SANDBOXED: CommandPolicy = { ...defaultPolicy, sandbox: 'bwrap' };

function hook(command: string, fields: Partial<HookSpec> = {}): HookSpec {
  return { command, tools: '*', timeoutSeconds: 10, where: 'sandbox', ...fields };
}

function runIn(root: string, spec: HookSpec, options: { policy?: CommandPolicy; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {}) {
  const context = { root, policy: options.policy ?? SANDBOXED, env: options.env ?? process.env, hookEnv: { REIN_WORKSPACE: root } };
  return runHook(
    'preToolUse',
    spec,
    { moment: 'preToolUse', call: { tool: 'run', args: { command: 'ls' } } },
    {
      launch: (command, given) => planHookLaunch(command, given.where, context),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
}

describe('a hook runs in a bubblewrap sandbox of its own, built from the run’s policy (actors/hooks/hook-launch.ts)', () => {
  it('reads the workspace as it is but cannot change it; it gets the run’s filtered environment, never rein’s secrets', async () => {
    const root = makeTempDir('rein-hook-ws-');
    writeFiles(root, { 'note.txt': 'written by the agent\n' });
    const outcome = await runIn(root, hook('cat note.txt >&2; env >&2; touch made.txt'), {
      env: { ...process.env, OPENAI_API_KEY: 'sk-hook-env-secret-123456' },
    });
    expect(outcome).toMatchObject({ where: 'sandbox', exitCode: 1 });
    expect(outcome.hostBecause).toBeUndefined();
    expect(outcome.stderr).toContain('written by the agent');
    expect(outcome.stderr).toMatch(/Read-only file system/);
    expect(outcome.stderr).toContain(`REIN_WORKSPACE=${root}`);
    expect(outcome.stderr).not.toContain('sk-hook-env-secret');
    expect(existsSync(join(root, 'made.txt'))).toBe(false);
  });

  it('has no network when the run’s commands have none, and has it when the rules turn it on', async () => {
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const connect = hook(`python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), 3)" && echo '{"decision":"allow"}'`);
      const root = makeTempDir('rein-hook-ws-');
      const off = await runIn(root, connect);
      expect(off.where).toBe('sandbox');
      expect(off.decision).toBeUndefined();
      expect(off.problem).toMatch(/exit 1/);
      const on = await runIn(root, connect, { policy: { ...SANDBOXED, network: true } });
      expect(on).toMatchObject({ where: 'sandbox', decision: 'allow', exitCode: 0 });
    } finally {
      server.close();
    }
  });

  it('a timeout or an abort kills everything the hook started; a hook that ended leaves no watchdog behind', async () => {
    const root = makeTempDir('rein-hook-ws-');
    const slow = uniqueMarker();
    const timedOut = await runIn(root, hook(`sleep ${slow} & sleep ${slow}`, { timeoutSeconds: 0.5 }));
    expect(timedOut.problem).toBe('timed out after 0.5 s');
    await waitUntil(() => processesWithArgument(slow).length === 0, 'the timed-out hook’s processes to be gone', 3000);

    const stopped = uniqueMarker();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const aborted = await runIn(root, hook(`sleep ${stopped}`), { signal: controller.signal });
    expect(aborted.problem).toBe('stopped with the run');
    await waitUntil(() => processesWithArgument(stopped).length === 0, 'the aborted hook’s processes to be gone', 3000);

    const quick = uniqueMarker();
    expect((await runIn(root, hook(`true ${quick}`))).exitCode).toBe(0);
    await waitUntil(() => processesWithArgument(quick).length === 0, 'the finished hook’s watchdog to be gone', 3000);
  });

  // In the sandbox bubblewrap's --die-with-parent would do; on the host only the watchdog stops the hook.
  it.each(['sandbox', 'host'] as const)('a harness killed with SIGKILL leaves nothing of a running hook behind (where: %s)', async (where) => {
    const root = makeTempDir('rein-hook-ws-');
    const marker = uniqueMarker();
    const dist = (file: string) => JSON.stringify(pathToFileURL(join(repoRoot, 'dist', file)).href);
    const harness = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
        const { runHook } = await import(${dist('actors/hooks/run-hook.js')});
        const { planHookLaunch } = await import(${dist('actors/hooks/hook-launch.js')});
        const context = { root: process.env.ROOT, policy: ${JSON.stringify(SANDBOXED)}, env: process.env, hookEnv: {} };
        const spec = { command: 'sleep ' + process.env.MARKER, tools: '*', timeoutSeconds: 300, where: process.env.WHERE };
        await runHook('preToolUse', spec, {}, { launch: (command) => planHookLaunch(command, process.env.WHERE, context) });
      `,
      ],
      { env: { ...process.env, ROOT: root, MARKER: marker, WHERE: where }, stdio: 'ignore' },
    );
    await waitUntil(() => processesWithArgument(`sleep\0${marker}`).length > 0, 'the hook to be sleeping');
    harness.kill('SIGKILL');
    await waitUntil(() => processesWithArgument(marker).length === 0, 'the hook to die with the harness', 5000);
  });

  it('a script named by its absolute path outside the workspace is shown read-only to the hook: it runs, but writes nothing there', async () => {
    const root = makeTempDir('rein-hook-ws-');
    const scripts = makeTempDir('rein-hook-scripts-');
    writeFileSync(join(scripts, 'check.sh'), `touch "${scripts}/ran"; echo '{"decision":"deny","message":"checked in the sandbox"}'\n`);
    const outcome = await runIn(root, hook(`sh ${join(scripts, 'check.sh')}`));
    expect(outcome).toMatchObject({ where: 'sandbox', decision: 'deny', message: 'checked in the sandbox' });
    expect(existsSync(join(scripts, 'ran'))).toBe(false);
  });

  it('a script in the home folder itself or in a folder holding the workspace is not shown: that would show their other files', async () => {
    const parent = makeTempDir('rein-hook-parent-');
    const root = join(parent, 'repo');
    const home = makeTempDir('rein-hook-home-');
    const script = `echo '{"decision":"allow"}'\n`;
    writeFiles(parent, { 'repo/README.md': '', 'check.sh': script });
    writeFiles(home, { 'check.sh': script });
    vi.stubEnv('HOME', home);
    try {
      for (const folder of [parent, home]) {
        const outcome = await runIn(root, hook(`sh ${join(folder, 'check.sh')}`));
        // sh exits 2 for a script it cannot open, which the protocol reads as a denial.
        expect(outcome).toMatchObject({
          where: 'sandbox',
          exitCode: 2,
          decision: 'deny',
          message: expect.stringMatching(/cannot open .*check\.sh: No such file/),
        });
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('where a hook runs when it is not sandboxed', () => {
  it('where: host runs a script outside the workspace on the host, where it can write a host file', async () => {
    const root = makeTempDir('rein-hook-ws-');
    const scripts = makeTempDir('rein-hook-scripts-');
    const notify = join(scripts, 'notify.sh');
    writeFileSync(notify, `#!/bin/sh\ncat > "${scripts}/notified.json"\n`);
    chmodSync(notify, 0o755);
    const outcome = await runIn(root, hook(notify, { where: 'host' }));
    expect(outcome).toMatchObject({ where: 'host', hostBecause: 'where: host', exitCode: 0 });
    expect(existsSync(join(scripts, 'notified.json'))).toBe(true);
  });

  it('rules that require bubblewrap where it cannot run refuse the hook (it fails closed) instead of running it on the host', async () => {
    const root = makeTempDir('rein-hook-ws-');
    vi.stubEnv('PATH', makeTempDir('rein-no-bwrap-'));
    try {
      const outcome = await runIn(root, hook('touch made.txt'));
      expect(outcome).toMatchObject({
        where: 'sandbox',
        exitCode: null,
        problem: expect.stringMatching(/^could not start: cannot run in the sandbox: .*bwrap/),
      });
    } finally {
      vi.unstubAllEnvs();
    }
    expect(existsSync(join(root, 'made.txt'))).toBe(false);
  });

  it('a run without a sandbox (sandbox: none) runs its hooks on the host too, and says why', async () => {
    const root = makeTempDir('rein-hook-ws-');
    const outcome = await runIn(root, hook('touch made.txt'), { policy: { ...defaultPolicy, sandbox: 'none' } });
    expect(outcome).toMatchObject({ where: 'host', hostBecause: 'the run has no sandbox (the rules set sandbox: none)', exitCode: 0 });
    expect(existsSync(join(root, 'made.txt'))).toBe(true);
  });
});
