import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runTool } from '../../tools/run.js';
import type { CommandPolicy } from '../../tools/types.js';
import { commandLine, processesWithEnvironment, uniqueMarker } from '../helpers/processes.js';
import { openRunSandbox, sandboxContext } from '../helpers/run-sandbox.js';
import { spawnHarness } from '../helpers/spawn-harness.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

// The warm sandbox starts each command's shell ahead (a spare, tools/supervisor-script.ts), and forks one as before
// for a command too long for it. What a command sees must not depend on which it got.
const SPARE_START = 'bash\0-c\0IFS=';
/** Long enough for the next command's shell to be started (tools/supervisor.ts waits 10 ms, then it takes a few). */
const modelTurn = () => new Promise((resolve) => setTimeout(resolve, 150));
/** Longer than the longest command a spare takes, so the command goes the forking way. */
const LONG_PADDING = `#${'x'.repeat(17_000)}\n`;

// What a command can see of its own shell: its name, its pid, its stdin, its open files, and anything of the supervisor's.
const LIST_FDS = "ls /proc/self/fd | tr '\\n' ' '";
const PROBE = [
  'echo "0=$0"',
  '[ "$$" = "$BASHPID" ] && echo own-pid',
  'readlink /proc/$$/fd/0',
  `${LIST_FDS}; echo`,
  'declare -F | wc -l',
  "set | grep -c -E '^(c|token|nonce|command|scope|grace_ms|spare_cmd|spare_ids|SPARE_SHELL)='",
  "head -c 12 /proc/$$/cmdline | tr '\\0' ' '; echo",
  'exit 4',
].join('\n');

describe.each(['none', 'bwrap'] as const)('the shell started ahead (%s)', (sandboxKind) => {
  const setup = (policy: Partial<CommandPolicy> = {}) => {
    const root = makeTempDir();
    const sandbox = openRunSandbox(root, { sandbox: sandboxKind, ...policy });
    const run = (command: string) => runTool.execute({ command }, sandboxContext(root, sandbox, { policy: { sandbox: sandboxKind, ...policy } }));
    return { sandbox, run };
  };

  it('gives each command a bash of its own with nothing of the supervisor: started ahead after a model turn, forked back to back or for a long command', async () => {
    const { sandbox, run } = setup();
    // The open files a bash started by this process has (0-2, what this process inherited, and ls's own).
    const fds = execFileSync('bash', ['-c', LIST_FDS], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    const seen = (cmdlineStart: string) => `exit=4\n0=bash\nown-pid\n/dev/null\n${fds}\n0\n0\n${cmdlineStart}\n`;
    expect((await run(PROBE)).content).toBe(seen('bash -c IFS='));
    expect((await run(LONG_PADDING + PROBE)).content).toBe(seen('bash -c #xxx'));
    expect((await run(PROBE)).content).toBe(seen('bash -c echo'));
    await modelTurn();
    expect((await run(PROBE)).content).toBe(seen('bash -c IFS='));
    // A background job, forked while a shell waits, does not hold that shell's pipes either.
    const job = await sandbox.waitJob((await sandbox.startJob(LIST_FDS)).id, 20_000, new AbortController().signal);
    expect(fs.readFileSync(job.log, 'utf8')).toBe(fds);
  });

  it('reports each command its own exit status, however soon its shell ends', async () => {
    const { run } = setup();
    // A shell that exits at once, started ahead: it can be gone before its reporter has even read which request it is.
    const codes = Array.from({ length: 30 }, (_, i) => i % 7);
    const seen = [];
    for (const code of codes) {
      await modelTurn();
      seen.push((await run(`exit ${code}`)).content);
    }
    expect(seen).toEqual(codes.map((code) => `exit=${code}\n`));
  });

  it("reports a syntax error with bash's message and exit status 2, either way", async () => {
    const { run } = setup();
    for (const command of ['echo fine; if', `${LONG_PADDING}echo fine; if`]) {
      const result = await run(command);
      expect(result.content).toMatch(/^exit=2\nbash: (eval|-c): line \d+: syntax error/);
      expect(result.content).not.toContain('fine');
    }
  });

  it('runs the next command in a new shell when the one started ahead was killed while it waited', async () => {
    const { sandbox, run } = setup();
    expect((await run('true')).content).toBe('exit=0\n');
    // A job kills the waiting shell, as a command's `pkill bash` would: this sandbox's, found by its tag (<token>-w<n>).
    const job = await sandbox.startJob(
      [
        'mine="REIN_JOB=${REIN_JOB%-*}-w"',
        'for i in $(seq 200); do',
        '  for p in /proc/[0-9]*; do',
        '    mapfile -d "" -t vars 2>/dev/null < $p/environ || continue',
        '    for v in "${vars[@]}"; do [[ $v == "$mine"* ]] && { kill -9 ${p#/proc/}; echo killed; exit 0; }; done',
        '  done',
        '  sleep 0.05',
        'done',
        'echo none',
      ].join('\n'),
    );
    const ended = await sandbox.waitJob(job.id, 20_000, new AbortController().signal);
    expect(fs.readFileSync(ended.log, 'utf8')).toBe('killed\n');
    expect((await run('echo still; echo "0=$0"; exit 3')).content).toBe('exit=3\nstill\n0=bash\n');
    expect((await run('echo and again')).content).toBe('exit=0\nand again\n');
  });

  it('leaves no waiting shell behind when the run ends, or when the harness is killed with SIGKILL', async () => {
    for (const ending of ['dispose', 'SIGKILL'] as const) {
      const marker = uniqueMarker();
      const harness = spawnHarness(
        sandboxKind,
        makeTempDir(),
        marker,
        `
        await runTool.execute({ command: 'true' }, ctx);
        const fs = await import('node:fs');
        const waiting = () => fs.readdirSync('/proc').filter((pid) => {
          try {
            return fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').startsWith(${JSON.stringify(SPARE_START)}) &&
              fs.readFileSync('/proc/' + pid + '/environ', 'utf8').split('\\0').includes('REIN_TEST_MARKER=' + process.env.MARKER);
          } catch { return false; }
        }).length;
        const deadline = Date.now() + 10_000;
        while (waiting() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        process.stdout.write('waiting ' + waiting() + '\\n');
        if (${JSON.stringify(ending)} === 'dispose') { await sandbox.dispose(); process.stdout.write('disposed\\n'); }
        setInterval(() => {}, 1000);
      `,
      );
      let said = '';
      harness.stdout!.on('data', (chunk: Buffer) => {
        said += chunk.toString('utf8');
      });
      await waitUntil(() => said.includes(ending === 'dispose' ? 'disposed' : 'waiting'), 'the harness to get there', 20_000);
      expect(said).toMatch(/waiting [1-9]/);
      const theirs = () => processesWithEnvironment(`REIN_TEST_MARKER=${marker}`).filter((pid) => pid !== harness.pid);
      if (ending === 'SIGKILL') harness.kill('SIGKILL');
      await waitUntil(() => theirs().length === 0, 'the sandbox to go', 10_000).catch(() => undefined);
      expect(theirs().map((pid) => commandLine(pid).replaceAll('\0', ' '))).toEqual([]);
      harness.kill('SIGKILL');
    }
  }, 60_000);
});
