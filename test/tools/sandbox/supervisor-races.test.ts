import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { shellScript } from '../../../tools/sandbox/shell-scripts.js';
import { commandLine, killQuietly, processesWithArgument, processesWithEnvironment, uniqueMarker } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/wait.js';
import { makeTempDir } from '../../helpers/workspace.js';

const SUPERVISOR_SCRIPT = shellScript('supervisor.sh');

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

/** A supervisor on the host, as tools/sandbox/supervisor/supervisor.ts starts it, every process of it marked by `marker` in its environment. */
async function startOnHost(script: string, marker: string) {
  const token = randomBytes(8).toString('hex');
  const supervisor = spawn('bash', ['-c', script, 'rein-supervisor', token, '200', 'host'], {
    cwd: makeTempDir(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', REIN_TEST_MARKER: marker },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  const [stdin, stdout, stderr, control] = supervisor.stdio as unknown as [Writable, Readable, Readable, Readable];
  stdout.resume();
  stderr.resume();
  let reports = '';
  control.on('data', (chunk: Buffer) => {
    reports += chunk.toString('utf8');
  });
  await waitUntil(() => reports.startsWith('R '), 'the supervisor to be ready');
  return {
    token,
    /** The report lines on fd 3 so far. */
    reports: () => reports.split('\n').filter(Boolean),
    send: (fields: string[]) => stdin.write(fields.map((field) => `${field}\0`).join('')),
    // What the supervisor sees of a harness killed with SIGKILL: every pipe's far end closed at once.
    harnessDies: () => {
      for (const stream of [stdin, stdout, stderr, control]) stream.destroy();
    },
  };
}

// The host has no PID namespace to end everything with the supervisor: the sweep at the harness's death must also take
// a command whose shell is between its fork and its exec, or it starts after the sweep, with nobody left to stop it.
// (test/tools/warm-run.test.ts kills the harness at spread moments of set-up; this holds the moment open.)
describe('the harness dies while a command is being started, on the host', () => {
  const fork = 'REIN_JOB=$tag bash -c -- "$command"';
  it.each([
    { dies: 'once the shell is held' },
    // The reporter dies of SIGPIPE reporting the start to the dead harness, and its shell, orphaned before its exec,
    // has no tag and no reporter; only the supervisor's session says whose.
    { dies: 'right after sending the command' },
  ])('the harness dying $dies: nothing of the command runs after the supervisor has gone', async ({ dies }) => {
    const marker = uniqueMarker();
    const delay = `0.5${randomBytes(3).readUIntBE(0, 3)}`;
    try {
      const supervisor = await startOnHost(widened(fork, delay), marker);
      supervisor.send(['run', 'c1', 'nonce', `sleep ${marker}`]);
      if (dies === 'once the shell is held')
        await waitUntil(
          () => processesWithArgument(delay).some((pid) => commandLine(pid).startsWith('sleep\0')),
          'the shell to be forked and held before its exec',
        );
      supervisor.harnessDies();
      await waitUntil(() => processesWithEnvironment(`REIN_TEST_MARKER=${marker}`).length === 0, 'the supervisor and its processes to go', 5_000).catch(
        () => undefined,
      );
      expect(processesWithEnvironment(`REIN_TEST_MARKER=${marker}`).map((pid) => commandLine(pid).split('\0')[0])).toEqual([]);
    } finally {
      killQuietly(processesWithEnvironment(`REIN_TEST_MARKER=${marker}`));
    }
  });
});

// Killing the reporters at the harness's death leaves none to stop the rest of its command's group, as it does when a
// command ends: the sweep must end those groups itself, untagged members included.
describe('the harness dies while a command or a job runs, on the host', () => {
  it.each(['run', 'job'] as const)('an untagged process left in the group of a %s goes too', async (kind) => {
    const marker = uniqueMarker();
    // Its environment cleared (no tag), SIGHUP ignored, its parent gone: only its process group says whose it is.
    const orphan = `rein-orphan-${randomBytes(6).toString('hex')}`;
    const command = `env -i bash -c 'trap "" HUP; exec -a ${orphan} sleep 300 &'; sleep ${marker}`;
    const orphans = () => processesWithArgument(orphan).filter((pid) => commandLine(pid).startsWith(`${orphan}\0`));
    try {
      const supervisor = await startOnHost(SUPERVISOR_SCRIPT, marker);
      supervisor.send(kind === 'run' ? ['run', 'c1', 'nonce', command] : ['job', 'j1', path.join(makeTempDir(), 'j1.log'), command]);
      await waitUntil(
        () => orphans().length > 0 && processesWithArgument(marker).some((pid) => commandLine(pid).startsWith('sleep\0')),
        'the command and its orphan to run',
      );
      supervisor.harnessDies();
      await waitUntil(() => orphans().length === 0, 'the orphan to go', 5_000).catch(() => undefined);
      expect(orphans().map((pid) => commandLine(pid).split('\0')[0])).toEqual([]);
    } finally {
      killQuietly([...processesWithArgument(orphan), ...processesWithEnvironment(`REIN_TEST_MARKER=${marker}`)]);
    }
  });
});
