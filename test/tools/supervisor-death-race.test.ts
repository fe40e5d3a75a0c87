import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SUPERVISOR_SCRIPT } from '../../tools/supervisor-script.js';
import { commandLine, processesWithArgument, processesWithEnvironment, uniqueMarker } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * The script with the start of a command's shell delayed: `sleep <seconds>` between the fork and the exec of the line
 * that holds `fork`. In that moment the shell is an untagged copy of its reporter, so only its parentage says whose it is.
 */
function widened(fork: string, seconds: string): string {
  const line = SUPERVISOR_SCRIPT.split('\n').find((candidate) => candidate.includes(fork));
  if (!line?.endsWith(' &')) throw new Error(`the supervisor script no longer starts a shell with: ${fork}`);
  const started = line.trim().slice(0, -2).replace(' bash -c', ' exec bash -c');
  return SUPERVISOR_SCRIPT.replace(line, `( sleep ${seconds}; ${started} ) &`);
}

// The host has no PID namespace to end everything with the supervisor: the sweep at the harness's death must also take
// a command whose shell is between its fork and its exec, or it starts after the sweep, with nobody left to stop it.
// (test/tools/warm-run.test.ts kills the harness at spread moments of set-up; this holds the moment open.)
describe('the harness dies while a command is being started, on the host', () => {
  it.each([
    { path: 'a shell started ahead', fork: 'REIN_JOB=$token-$slot bash -c "$SPARE_SHELL"', extra: '' },
    // Over SPARE_MAX_CHARS: the forking way.
    { path: 'a forked shell', fork: 'REIN_JOB=$tag bash -c -- "$command"', extra: ` #${'x'.repeat(17_000)}` },
  ])('$path: nothing of the command runs after the supervisor has gone', async ({ fork, extra }) => {
    const marker = uniqueMarker();
    const delay = `0.5${randomBytes(3).readUIntBE(0, 3)}`;
    const supervisor = spawn('bash', ['-c', widened(fork, delay), 'rein-supervisor', randomBytes(8).toString('hex'), '200', 'host'], {
      cwd: makeTempDir(),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', REIN_TEST_MARKER: marker },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    const [stdin, stdout, stderr, control] = supervisor.stdio as unknown as [Writable, Readable, Readable, Readable];
    stdout.resume();
    stderr.resume();
    try {
      await new Promise<void>((resolve) => control.once('data', () => resolve()));
      stdin.write(['run', 'c1', 'nonce', `sleep ${marker}${extra}`].map((field) => `${field}\0`).join(''));
      await waitUntil(
        () => processesWithArgument(delay).some((pid) => commandLine(pid).startsWith('sleep\0')),
        'the shell to be forked and held before its exec',
      );
      // What the supervisor sees of a harness killed with SIGKILL: every pipe's far end closed at once.
      for (const stream of [stdin, stdout, stderr, control]) stream.destroy();
      await waitUntil(() => processesWithEnvironment(`REIN_TEST_MARKER=${marker}`).length === 0, 'the supervisor and its processes to go', 5_000).catch(
        () => undefined,
      );
      expect(processesWithEnvironment(`REIN_TEST_MARKER=${marker}`).map((pid) => commandLine(pid).split('\0')[0])).toEqual([]);
    } finally {
      for (const pid of processesWithEnvironment(`REIN_TEST_MARKER=${marker}`)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    }
  });
});
