import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTool } from '../../tools/run.js';
import type { CommandPolicy } from '../../tools/types.js';
import { commandLine, hasEnded, parentOf, processesWithEnvironment, uniqueMarker } from '../helpers/processes.js';
import { openRunSandbox, sandboxContext } from '../helpers/run-sandbox.js';
import { spawnHarness } from '../helpers/spawn-harness.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

// The warm sandbox starts each command's shell ahead (a spare, process/supervisor.sh), and forks one as before
// for a command too long for it. What a command sees must not depend on which it got.
const SPARE_START = 'bash\0-c\0IFS=';
/** Long enough for the next command's shell to be started (process/supervisor.ts waits 10 ms, then it takes a few). */
const modelTurn = () => new Promise((resolve) => setTimeout(resolve, 600));
/** Longer than the longest command a spare takes, so the command goes the forking way. */
const LONG_PADDING = `#${'x'.repeat(17_000)}\n`;

// What a command can see of its own shell: its name, its pid, its stdin, its open files, anything of the supervisor's,
// the string it was started with (a shell that evals its command instead of exec'ing bash -c has its own there),
// and, first, which way it was started (a spare's tag ends in -w<n>) and whether well before the command (30 ticks
// of 10 ms; a model turn here is 600 ms).
const LIST_FDS = "ls /proc/self/fd | tr '\\n' ' '";
const PROBE = [
  '[[ ${REIN_JOB##*-} == w* ]] && echo spare || echo forked',
  'read -r -a stat < /proc/$$/stat; read -r up _ < /proc/uptime',
  '(( ${up/./} - stat[21] >= 30 )) && echo started-ahead || echo started-now',
  'echo "0=$0"',
  '[ "$$" = "$BASHPID" ] && echo own-pid',
  'readlink /proc/$$/fd/0',
  `${LIST_FDS}; echo`,
  'declare -F | wc -l',
  "set | grep -c -E '^(c|token|nonce|command|scope|grace_ms|spare_cmd|spare_ids|waiting|number|pair|SPARE_SHELL)='",
  '[[ $BASH_EXECUTION_STRING == *own-pid* ]] && echo own-string',
  'exit 4',
].join('\n');

describe.each(['none', 'bwrap'] as const)('the shell started ahead (%s)', (sandboxKind) => {
  const setup = (policy: Partial<CommandPolicy> = {}) => {
    const root = makeTempDir();
    const sandbox = openRunSandbox(root, { sandbox: sandboxKind, ...policy });
    const run = (command: string) => runTool.execute({ command }, sandboxContext(root, sandbox, { policy: { sandbox: sandboxKind, ...policy } }));
    return { root, sandbox, run };
  };

  it('gives each command the shell the forking way gives it: started ahead for two calls in a row, forked for a third or a long command', async () => {
    const { sandbox, run } = setup();
    // The open files of a command: 0-2 and ls's own; what the harness inherited is closed by the supervisor.
    const fds = '0 1 2 3 ';
    const seen = (way: string, started: string) => `exit=4\n${way}\n${started}\n0=bash\nown-pid\n/dev/null\n${fds}\n0\n0\nown-string\n`;
    await run('true');
    await modelTurn();
    // Two tool calls of one reply: each finds a shell started during the model's turn.
    expect((await run(PROBE)).content).toBe(seen('spare', 'started-ahead'));
    expect((await run(PROBE)).content).toBe(seen('spare', 'started-ahead'));
    expect((await run(LONG_PADDING + PROBE)).content).toBe(seen('forked', 'started-now'));
    // A third: forked, unless 10 ms passed since the one before (a loaded machine) and new shells were asked for.
    expect([seen('forked', 'started-now'), seen('spare', 'started-now'), seen('spare', 'started-ahead')]).toContain((await run(PROBE)).content);
    await modelTurn();
    expect((await run(PROBE)).content).toBe(seen('spare', 'started-ahead'));
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
    // However many commands ran, two shells wait: a new one only where the last was used.
    await modelTurn();
    expect(waitingShellsOf(process.pid)).toHaveLength(2);
  });

  it('reports a syntax error, and a command that looks like an option, as bash -c does, either way', async () => {
    const { run } = setup();
    for (const padding of ['', LONG_PADDING]) {
      const result = await run(`${padding}echo fine; if`);
      expect(result.content).toMatch(/^exit=2\nbash: -c: line \d+: syntax error/);
      expect(result.content).not.toContain('fine');
      expect((await run(`-x${padding ? ` ${padding}` : ''}`)).content).toBe('exit=127\nbash: line 1: -x: command not found\n');
    }
  });

  it('runs the next commands in new shells when the ones started ahead were killed while they waited', async () => {
    const { sandbox, run } = setup();
    expect((await run('true')).content).toBe('exit=0\n');
    await modelTurn();
    // A job kills the waiting shells, as a command's `pkill bash` would: this sandbox's, found by their tag (<token>-w<n>).
    const job = await sandbox.startJob(
      [
        'mine="REIN_JOB=${REIN_JOB%-*}-w" killed=0',
        'for p in /proc/[0-9]*; do',
        '  mapfile -d "" -t vars 2>/dev/null < $p/environ || continue',
        '  for v in "${vars[@]}"; do [[ $v == "$mine"* ]] && kill -9 ${p#/proc/} && (( killed += 1 )); done',
        'done',
        'echo killed $killed',
      ].join('\n'),
    );
    const ended = await sandbox.waitJob(job.id, 20_000, new AbortController().signal);
    expect(fs.readFileSync(ended.log, 'utf8')).toBe('killed 2\n');
    expect((await run('echo still; echo "0=$0"; exit 3')).content).toBe('exit=3\nstill\n0=bash\n');
    expect((await run('echo and again')).content).toBe('exit=0\nand again\n');
  });

  it('runs nothing of a command whose shell was killed while it read it, and the next command whole', async () => {
    const { run } = setup();
    await run('true');
    const command = `echo WHOLE COMMAND RAN; : ${'x'.repeat(12_000)}\necho TAIL RAN AS A COMMAND`;
    // The window is made wide: the reporter waits (stopped) while the shell reads a long command, and the shell is
    // killed part way. On a busy machine the shell may read it all before it is killed; then the attempt is repeated
    // (5 tries missed every time under the full suite's load on 2 cores; each try is about 0.1 s).
    let caught = 0;
    for (let attempt = 0; attempt < 30 && caught === 0; attempt++) {
      await modelTurn();
      const spare = nextShellOf(process.pid);
      const reporter = parentOf(spare);
      process.kill(reporter, 'SIGSTOP');
      process.kill(spare, 'SIGSTOP');
      const result = run(command);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const before = bytesRead(spare);
      process.kill(spare, 'SIGCONT');
      let read = 0;
      for (let spins = 0; spins < 1e6 && read <= 50; spins++) read = bytesRead(spare) - before;
      process.kill(spare, 'SIGKILL');
      process.kill(reporter, 'SIGCONT');
      const { content } = await result;
      if (read > 50 && read < command.length - 100) {
        caught++;
        expect(content).toBe('exit=137\n');
      }
      expect((await run('echo next')).content).toBe('exit=0\nnext\n');
    }
    expect(caught).toBe(1);
    await modelTurn();
    expect((await run('echo and the one after')).content).toBe('exit=0\nand the one after\n');
  });

  it('runs once, at once, a command whose shell was killed after its reporter took it for alive; never again later', async () => {
    const { root, run } = setup();
    await run('true');
    await modelTurn();
    const spare = nextShellOf(process.pid);
    // Stopped, the shell still counts as alive, so its reporter waits on it; killed, it has read nothing: the whole
    // request is still in the pipe, so nothing of it ran, and it is run the forking way (no false "exit 137").
    process.kill(spare, 'SIGSTOP');
    const result = run('echo ran >> runs.log; echo once');
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(spare, 'SIGKILL');
    expect((await result).content).toBe('exit=0\nonce\n');
    for (let turn = 0; turn < 3; turn++) {
      await modelTurn();
      expect((await run('echo after')).content).toBe('exit=0\nafter\n');
    }
    expect(fs.readFileSync(path.join(root, 'runs.log'), 'utf8')).toBe('ran\n');
  });

  it('passes over a waiting shell that lost its reporter, and ends it; forks the next command when both did', async () => {
    const { run } = setup({ timeoutSeconds: 5 });
    const way = '; [[ ${REIN_JOB##*-} == w* ]] && echo spare || echo forked';
    await run('true');
    await modelTurn();
    const [next, other] = waitingShellsOf(process.pid);
    // As when a command killed it: gone before the next request.
    const killReporter = async (shell: number) => {
      const reporter = parentOf(shell);
      process.kill(reporter, 'SIGKILL');
      await waitUntil(() => hasEnded(reporter), 'the reporter to die');
    };
    await killReporter(next!);
    expect((await run(`echo hi${way}`)).content).toBe('exit=0\nhi\nspare\n');
    expect(commandLine(next!)).toBe('');
    await modelTurn();
    const waiting = waitingShellsOf(process.pid);
    for (const shell of waiting) await killReporter(shell);
    expect((await run(`echo hi${way}`)).content).toBe('exit=0\nhi\nforked\n');
    for (const shell of [other!, ...waiting]) expect(commandLine(shell)).toBe('');
    await modelTurn();
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

/** The shells waiting for commands in the one sandbox this process started, the one the next command goes to (the oldest) first. */
function waitingShellsOf(ancestor: number): number[] {
  const found = fs
    .readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid) && commandLine(pid).startsWith(SPARE_START))
    .map(Number)
    .filter((pid) => {
      for (let at = pid, hops = 0; at > 1 && hops < 20; at = parentOf(at), hops++) if (at === ancestor) return true;
      return false;
    });
  expect(found).toHaveLength(2);
  // A spare's tag is <token>-w<n>, numbered as they are started.
  const number = (pid: number) => Number(/REIN_JOB=[^\0]*-w(\d+)\0/.exec(fs.readFileSync(`/proc/${pid}/environ`, 'utf8'))![1]);
  return found.sort((a, b) => number(a) - number(b));
}

/** The shell the next command goes to. */
function nextShellOf(ancestor: number): number {
  return waitingShellsOf(ancestor)[0]!;
}

/** Bytes process `pid` has read so far (its rchar). */
function bytesRead(pid: number): number {
  return Number(/rchar: (\d+)/.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
}
