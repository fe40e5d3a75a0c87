import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runTool } from '../../tools/run.js';
import { headTail } from '../../tools/shaping/shape.js';
import type { CommandPolicy } from '../../tools/types.js';
import { repoRoot } from '../helpers/cli.js';
import { commandLine, processesWithArgument, uniqueMarker } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import { makeContext, makeTempDir } from '../helpers/workspace.js';

const run = (command: string, policy: Partial<CommandPolicy> = {}, signal?: AbortSignal, root = makeTempDir()) =>
  runTool.execute({ command }, makeContext(root, { policy: { sandbox: 'none', ...policy }, signal }));

const savedEnv = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
});

describe('run', () => {
  it('puts the exit code first and merges stderr into stdout in order', async () => {
    const result = await run('echo one; echo two >&2; echo three; exit 3');
    expect(result).toEqual({
      content: 'exit=3\none\ntwo\nthree\n',
      ok: true,
      effect: { kind: 'command', command: 'echo one; echo two >&2; echo three; exit 3', exitCode: 3, timedOut: false, blocked: false },
    });
  });

  it('runs in the workspace root', async () => {
    const root = makeTempDir();
    expect((await run('pwd', {}, undefined, root)).content).toBe(`exit=0\n${root}\n`);
  });

  it('head+tail truncates long output with the seed marker', async () => {
    const result = await run('seq 1 20000');
    const full = `exit=0\n${Array.from({ length: 20000 }, (_, i) => i + 1).join('\n')}\n`;
    expect(result.content).toBe(headTail(full, 6000));
    expect(result.content).toMatch(/^exit=0\n1\n2\n[\s\S]*\n\.\.\.\[\d+ chars omitted\]\.\.\.\n[\s\S]*\n20000\n$/);
  });

  it('keeps memory bounded while a command prints 300 MB', async () => {
    const before = process.memoryUsage().rss;
    const result = await run("head -c 300000000 /dev/zero | tr '\\0' y", { timeoutSeconds: 120 });
    const grown = process.memoryUsage().rss - before;
    const marker = `\n...[${300_000_007 - 2 * 2960} chars omitted]...\n`;
    expect(result.content).toBe(`exit=0\n${'y'.repeat(2953)}${marker}${'y'.repeat(2960)}`);
    expect(grown).toBeLessThan(100 * 1024 * 1024);
  }, 90_000);

  it('keeps non-UTF-8 output readable', async () => {
    expect((await run("printf 'caf\\xe9 \\xff\\n'")).content).toBe('exit=0\ncaf\uFFFD \uFFFD\n');
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const marker = uniqueMarker();
    const started = Date.now();
    const result = await run(`sleep ${marker} & echo $!; sleep ${marker}`, { timeoutSeconds: 1 });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(result.content).toMatch(/^exit=timeout after 1s \(process group killed\)\n\d+\n$/);
    expect(result.ok).toBe(false);
    expect(result.effect).toMatchObject({ exitCode: null, timedOut: true, blocked: false });
    const pid = Number(result.content.split('\n')[1]);
    expect(fs.existsSync(`/proc/${pid}/cmdline`) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)).toBe(false);
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('escalates to SIGKILL when the command ignores SIGTERM', async () => {
    const marker = uniqueMarker();
    const started = Date.now();
    const result = await run(`trap '' TERM; sleep ${marker}`, { timeoutSeconds: 1 });
    expect(result.effect).toMatchObject({ timedOut: true });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('does not let background jobs outlive a finished command', async () => {
    const marker = uniqueMarker();
    const started = Date.now();
    const result = await run(`sleep ${marker} & echo started`);
    expect(result.content).toBe('exit=0\nstarted\n');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('kills the process group when the harness aborts', async () => {
    const marker = uniqueMarker();
    const controller = new AbortController();
    const root = makeTempDir();
    // Abort once the command is under way, however slowly a loaded machine starts it.
    const poll = setInterval(() => {
      if (fs.existsSync(path.join(root, 'started'))) {
        clearInterval(poll);
        controller.abort();
      }
    }, 20);
    const result = await run(`echo before; sleep ${marker} & touch started; sleep ${marker}`, {}, controller.signal, root);
    clearInterval(poll);
    expect(result.content).toBe('exit=aborted (process group killed)\nbefore\n');
    expect(result.effect).toMatchObject({ exitCode: null, timedOut: false });
    expect(processesWithArgument(marker)).toEqual([]);
  });

  // A watchdog in the command's group sees the harness gone, also in the moment before bwrap has tied itself to its parent.
  // (bwrap killed in its first milliseconds is left out: its own half that sets up the sandbox can outlive it; see docs/SECURITY.md.)
  it.each([
    ['none', 'running'],
    ['bwrap', 'running'],
    ['none', 'starting'],
  ])('sandbox %s: a command dies with a harness killed by SIGKILL while it is %s', async (sandbox, when) => {
    const marker = uniqueMarker();
    const root = makeTempDir();
    // A harness process that runs one long command and is then killed without any chance to clean up.
    const harness = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      const { runTool } = await import(${JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', 'tools', 'run.js')).href)});
      const policy = { deny: [], sandbox: process.env.SANDBOX, network: false, envAllow: [], timeoutSeconds: 300 };
      const limits = { outputChars: 6000, viewLines: 100, maxHits: 50 };
      await runTool.execute({ command: 'sleep ' + process.env.MARKER }, { root: process.env.ROOT, signal: new AbortController().signal, limits, policy });
    `,
      ],
      { env: { ...process.env, MARKER: marker, ROOT: root, SANDBOX: sandbox }, stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => harness.on('exit', resolve));
    // Running: the command itself is there. Starting: only its wrapper is, bwrap perhaps still setting up.
    await waitUntil(() => processesWithArgument(marker).some((pid) => when === 'starting' || commandLine(pid).startsWith('sleep\0')), 'the command to start');
    harness.kill('SIGKILL');
    await exited;
    // No throw here: the expectation below names the processes left.
    await waitUntil(() => processesWithArgument(marker).length === 0, 'the command to die', 5000).catch(() => undefined);
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('the watchdog is no child of the command: a command that waits for all its children still ends', async () => {
    const started = Date.now();
    const result = await run(`perl -e 'if (!fork) { exit 0 } 1 while wait() != -1; print "reaped all\\n"'`, { timeoutSeconds: 20 });
    expect(result.content).toBe('exit=0\nreaped all\n');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('hides secrets from the command environment', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-must-not-leak';
    process.env.NODE_AUTH_TOKEN = 'npm-token-must-not-leak';
    process.env.REIN_TEST_VISIBLE = 'visible-value';
    process.env.REIN_TEST_SECRET = 'secret-must-not-leak';
    const result = await run('env', { envAllow: ['REIN_TEST_*'] });
    expect(result.content).not.toContain('must-not-leak');
    expect(result.content).toContain('REIN_TEST_VISIBLE=visible-value');
    expect(result.content).toMatch(/^PATH=/m);
  });

  it('blocks denied commands before running anything', async () => {
    const root = makeTempDir();
    const result = await run('touch ran.txt && git push', { deny: [] }, undefined, root);
    expect(result).toEqual({
      content: 'Blocked by policy: git push publishes work outside the workspace; leave pushing to a person. Choose a safer action.',
      ok: false,
      effect: {
        kind: 'command',
        command: 'touch ran.txt && git push',
        exitCode: null,
        timedOut: false,
        blocked: true,
        blockedBy: 'git push publishes work outside the workspace; leave pushing to a person',
      },
    });
    expect(fs.existsSync(path.join(root, 'ran.txt'))).toBe(false);
    expect((await run('terraform apply', { deny: ['terraform\\s+apply'] })).effect).toMatchObject({
      blocked: true,
      blockedBy: 'command matches the deny pattern /terraform\\s+apply/',
    });
  });

  it('refuses to run bare when the rules require bwrap and it is missing', async () => {
    process.env.PATH = '/nonexistent-bin';
    const result = await run('echo hi', { sandbox: 'bwrap' });
    expect(result.content).toBe('Command not run: the rules require sandbox: bwrap, but bubblewrap (bwrap) was not found on PATH.');
    expect(result.ok).toBe(false);
  });
});

describe('run: what it reports when it cannot run or was cut short', () => {
  const lost = (command: string) => ({ kind: 'job', action: 'start', id: null, command, state: 'lost', exitCode: null, log: '', newBytes: 0, running: 0 });
  const interruptedText =
    'exit=interrupted\nNot run again: rein was stopped while this command was running, so it may have partly run and its output is lost. ' +
    'Check what it was meant to change before running it again.\n';

  it('a command a stopped run had started is reported as interrupted, not run again', async () => {
    const result = await runTool.recover!({ command: 'echo hi >> log.txt' }, makeContext(makeTempDir()));
    expect(result).toEqual({
      content: interruptedText,
      ok: false,
      effect: { kind: 'command', command: 'echo hi >> log.txt', exitCode: null, timedOut: false, blocked: false, interrupted: true },
    });
  });

  it('a background job a stopped run had started is reported as lost with rein, by flag or by a trailing &', async () => {
    for (const args of [{ command: 'npm run dev', background: true }, { command: 'npm run dev &' }]) {
      const result = await runTool.recover!(args, makeContext(makeTempDir()));
      expect(result).toEqual({ content: `${interruptedText}A background job it started died with rein.\n`, ok: false, effect: lost(args.command) });
    }
  });

  it("without the run's sandbox a background job is refused, and nothing runs", async () => {
    const root = makeTempDir();
    const result = await runTool.execute({ command: 'touch started', background: true }, makeContext(root, { policy: { sandbox: 'none' } }));
    expect(result).toEqual({
      content: "Background job not started: background jobs need the run's sandbox (rein run); run the command in the foreground.",
      ok: false,
      effect: lost('touch started'),
    });
    expect(fs.existsSync(path.join(root, 'started'))).toBe(false);
  });

  it('a sandbox that cannot start the job says why', async () => {
    const sandbox = {
      mode: { kind: 'none' },
      startJob: async () => {
        throw new Error('too many jobs (8 running)');
      },
    };
    const result = await runTool.execute({ command: 'sleep 100', background: true }, { ...makeContext(makeTempDir()), sandbox: sandbox as never });
    expect(result).toEqual({ content: 'Background job not started: too many jobs (8 running).', ok: false, effect: lost('sleep 100') });
  });

  it('a command the sandbox could not run, and one cut short by an abort, are failed calls with no exit code', async () => {
    const failing = { mode: { kind: 'none' }, runCommand: async () => ({ ending: 'failed', exitCode: null, output: { finish: (prefix: string) => prefix } }) };
    const failed = await runTool.execute({ command: 'ls' }, { ...makeContext(makeTempDir()), sandbox: failing as never });
    expect(failed).toEqual({
      content: 'Command could not run: unknown error',
      ok: false,
      effect: { kind: 'command', command: 'ls', exitCode: null, timedOut: false, blocked: false },
    });
    const aborting = {
      mode: { kind: 'none' },
      runCommand: async () => ({ ending: 'aborted', exitCode: null, output: { finish: (prefix: string) => `${prefix}partial\n` } }),
    };
    const aborted = await runTool.execute({ command: 'ls' }, { ...makeContext(makeTempDir()), sandbox: aborting as never });
    expect(aborted).toEqual({
      content: 'exit=aborted (process group killed)\npartial\n',
      ok: false,
      effect: { kind: 'command', command: 'ls', exitCode: null, timedOut: false, blocked: false },
    });
  });

  it('a sandbox the rules require but the machine lacks: a failed call, no exit code, not blocked', async () => {
    process.env.PATH = '/nonexistent-bin';
    const result = await run('echo hi', { sandbox: 'bwrap' });
    expect(result.effect).toEqual({ kind: 'command', command: 'echo hi', exitCode: null, timedOut: false, blocked: false });
  });
});
