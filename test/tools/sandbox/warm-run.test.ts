import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTool } from '../../../tools/run.js';
import { headTail } from '../../../tools/shaping/shape.js';
import type { CommandPolicy } from '../../../tools/types.js';
import { commandLine, describeProcess, killQuietly, processesWithArgument, processesWithEnvironment, uniqueMarker } from '../../helpers/processes.js';
import { openRunSandbox, sandboxContext } from '../../helpers/run-sandbox.js';
import { spawnHarness } from '../../helpers/spawn-harness.js';
import { waitUntil } from '../../helpers/wait.js';
import { makeTempDir } from '../../helpers/workspace.js';

// Every guarantee of the spawn-per-command path (test/tools/run.test.ts), through one warm sandbox per run:
// on the host (sandbox: none) and inside bubblewrap.
describe.each(['none', 'bwrap'] as const)('warm sandbox (%s)', (sandboxKind) => {
  const setup = (policy: Partial<CommandPolicy> = {}) => {
    const root = makeTempDir();
    const sandbox = openRunSandbox(root, { sandbox: sandboxKind, ...policy });
    const run = (command: string, signal?: AbortSignal) =>
      runTool.execute({ command }, sandboxContext(root, sandbox, { policy: { sandbox: sandboxKind, ...policy }, signal }));
    return { root, sandbox, run };
  };

  it('runs in the workspace root, exit code first, stderr merged in order', async () => {
    const { root, run } = setup();
    const result = await run('pwd; echo one; echo two >&2; echo three; exit 3');
    expect(result).toEqual({
      content: `exit=3\n${root}\none\ntwo\nthree\n`,
      ok: true,
      effect: { kind: 'command', command: 'pwd; echo one; echo two >&2; echo three; exit 3', exitCode: 3, timedOut: false, blocked: false },
    });
  });

  it("reports death by signal as 128 + the signal number, and keeps one command from seeing the next one's output", async () => {
    const { run } = setup();
    expect((await run('echo before; kill -9 $$')).content).toBe('exit=137\nbefore\n');
    const outputs = await Promise.all(['a', 'b', 'c'].map((word) => run(`echo ${word}; sleep 0.05; echo ${word}2`)));
    expect(outputs.map((result) => result.content)).toEqual(['exit=0\na\na2\n', 'exit=0\nb\nb2\n', 'exit=0\nc\nc2\n']);
  });

  it('head+tail truncates long output and keeps non-UTF-8 readable', async () => {
    const { run } = setup();
    const result = await run('seq 1 20000');
    expect(result.content).toBe(headTail(`exit=0\n${Array.from({ length: 20000 }, (_, i) => i + 1).join('\n')}\n`, 6000));
    expect((await run("printf 'caf\\xe9 \\xff\\n'")).content).toBe('exit=0\ncaf\uFFFD \uFFFD\n');
  });

  it('passes output that looks like the end marker through as output', async () => {
    const { run } = setup();
    const result = await run("printf 'a\\0\\0REIN-END-0123456789abcdef0123456789abcdef\\0\\0b\\n'");
    expect(result.content).toBe('exit=0\na\0\0REIN-END-0123456789abcdef0123456789abcdef\0\0b\n');
  });

  it('keeps memory bounded while a command prints 300 MB', async () => {
    const { run } = setup({ timeoutSeconds: 120 });
    const before = process.memoryUsage().rss;
    const result = await run("head -c 300000000 /dev/zero | tr '\\0' y");
    const grown = process.memoryUsage().rss - before;
    expect(result.content).toBe(`exit=0\n${'y'.repeat(2953)}\n...[${300_000_007 - 2 * 2960} chars omitted]...\n${'y'.repeat(2960)}`);
    expect(grown).toBeLessThan(100 * 1024 * 1024);
  }, 120_000);

  it('kills the whole process group on timeout, grandchildren included, and escalates to SIGKILL', async () => {
    const { run } = setup({ timeoutSeconds: 1 });
    const marker = uniqueMarker();
    const result = await run(`trap '' TERM; sleep ${marker} & echo started; sleep ${marker}`);
    expect(result.content).toBe('exit=timeout after 1s (process group killed)\nstarted\n');
    expect(result.effect).toMatchObject({ exitCode: null, timedOut: true });
    expect(processesWithArgument(marker)).toEqual([]);
    // The sandbox is still there for the next command.
    expect((await run('echo next')).content).toBe('exit=0\nnext\n');
  });

  it('does not let background processes outlive a finished command, in its group or out of it', async () => {
    const { run } = setup();
    const marker = uniqueMarker();
    const result = await run(`sleep ${marker} & setsid sleep ${marker} & (sleep ${marker} &) ; echo started`);
    expect(result.content).toBe('exit=0\nstarted\n');
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('kills the process group when the harness aborts', async () => {
    const { root, run } = setup();
    const marker = uniqueMarker();
    const controller = new AbortController();
    const poll = setInterval(() => {
      if (fs.existsSync(path.join(root, 'started'))) {
        clearInterval(poll);
        controller.abort();
      }
    }, 20);
    const result = await run(`echo before; sleep ${marker} & touch started; sleep ${marker}`, controller.signal);
    clearInterval(poll);
    expect(result.content).toBe('exit=aborted (process group killed)\nbefore\n');
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('reports a command that killed the supervisor, and starts a new sandbox for the next one', async () => {
    const { run } = setup();
    // The supervisor is the parent of the reporter that is this command's parent.
    const result = await run('read -r s < /proc/$PPID/stat; s=${s##*) }; set -- $s; kill -9 $2; sleep 5');
    expect(result.ok).toBe(false);
    expect(result.content).toMatch(/^Command could not run: the sandbox ended while the command ran/);
    expect((await run('echo again')).content).toBe('exit=0\nagain\n');
  });

  it('refuses a command with a NUL byte without disturbing the next one', async () => {
    const { run } = setup();
    expect((await run('echo a\0b')).content).toBe('Command could not run: the command contains a NUL byte');
    expect((await run('echo fine')).content).toBe('exit=0\nfine\n');
  });

  it('hides secrets from the command environment', async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-warm-must-not-leak';
    try {
      const { run } = setup();
      const result = await run('env');
      expect(result.content).not.toContain('must-not-leak');
      expect(result.content).toMatch(/^PATH=/m);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  // The supervisor reads the harness's end of a pipe: when the harness dies, however it dies, it sees EOF.
  it('kills the running command and every job when the harness is killed with SIGKILL', async () => {
    const marker = uniqueMarker();
    const root = makeTempDir();
    const harness = spawnHarness(
      sandboxKind,
      root,
      marker,
      `
      await sandbox.startJob('sleep ' + process.env.MARKER);
      await runTool.execute({ command: 'sleep ' + process.env.MARKER + ' & sleep ' + process.env.MARKER }, ctx);
    `,
    );
    await waitUntil(
      () => processesWithArgument(marker).filter((pid) => commandLine(pid).startsWith('sleep\0')).length >= 3,
      'the job and the command to run',
      20_000,
    );
    harness.kill('SIGKILL');
    await waitUntil(() => processesWithArgument(marker).length === 0, 'the job and the command to die', 10_000).catch(() => undefined);
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('leaves nothing behind when the harness is killed at any moment of setting up the sandbox', async () => {
    const leftovers: string[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      const marker = uniqueMarker();
      // The supervisor starts with the first command: from before bwrap exists to the command running.
      const harness = spawnHarness(
        sandboxKind,
        makeTempDir(),
        marker,
        "await sandbox.runCommand('sleep 300', { timeoutMs: 600_000, signal: ctx.signal, outputCap: 100 });",
      );
      const exited = new Promise((resolve) => harness.once('exit', resolve));
      // From "before bwrap exists" to "supervisor ready", spread over the attempts.
      await new Promise<void>((resolve) => harness.stdout!.once('data', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, attempt * 8));
      harness.kill('SIGKILL');
      await exited;
      await waitUntil(() => processesWithEnvironment(`REIN_TEST_MARKER=${marker}`).length === 0, 'the sandbox to go', 10_000).catch(() => undefined);
      const left = processesWithEnvironment(`REIN_TEST_MARKER=${marker}`);
      leftovers.push(...left.map((pid) => `attempt ${attempt}: ${describeProcess(pid)}`));
      killQuietly(left);
    }
    expect(leftovers).toEqual([]);
  }, 120_000);
});
