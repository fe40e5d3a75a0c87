import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { liveRunWriter } from '../../run/record/run-liveness.js';
import { call, reply, runScripted } from '../../testing/index.js';
import { waitUntil } from '../helpers/wait.js';

// Whether a run's process still runs (`rein resume` refuses then, and the snapshot store keeps its objects), told
// from its trace's last start or resume line: the pid on this host, alive, not a zombie, started before the line.

/** A finished run's directory whose trace ends at its start line, written by `writer`. */
async function runStartedBy(writer: { pid: number; t: number; host?: string }): Promise<string> {
  const run = await runScripted({ script: [reply(call('finish', { summary: 'done' }))], testCmd: 'true', rules: { verification: { gate: false } } });
  const tracePath = join(run.runDir, 'trace.jsonl');
  const start = JSON.parse(readFileSync(tracePath, 'utf8').split('\n')[0]!) as Record<string, unknown>;
  writeFileSync(tracePath, `${JSON.stringify({ ...start, pid: writer.pid, host: writer.host ?? hostname(), t: writer.t })}\n`);
  return run.runDir;
}

const now = () => Date.now() / 1000;

/** The same run with its trace made of these lines after its start line. */
function withLines(runDir: string, lines: Record<string, unknown>[]): string {
  const tracePath = join(runDir, 'trace.jsonl');
  const start = readFileSync(tracePath, 'utf8').split('\n')[0]!;
  writeFileSync(tracePath, [start, ...lines.map((line) => JSON.stringify(line))].join('\n') + '\n');
  return runDir;
}

describe('whether a run is still running', () => {
  it('its writer alive on this host, started before its start line: running', async () => {
    expect(liveRunWriter(await runStartedBy({ pid: process.pid, t: now() }))).toEqual({ pid: process.pid });
  });

  it('a writer that is gone, a pid taken by a later process, another host, or an end line: not running', async () => {
    const gone = Number(execFileSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }));
    expect(liveRunWriter(await runStartedBy({ pid: gone, t: now() }))).toBeNull();
    // This process started long after a line written at the epoch's start: the pid was only reused.
    expect(liveRunWriter(await runStartedBy({ pid: process.pid, t: 1 }))).toBeNull();
    expect(liveRunWriter(await runStartedBy({ pid: process.pid, t: now(), host: 'elsewhere' }))).toBeNull();
    const ended = await runScripted({ script: [reply(call('finish', { summary: 'done' }))], testCmd: 'true', rules: { verification: { gate: false } } });
    expect(liveRunWriter(ended.runDir)).toBeNull();
  });

  it('the last start or resume line counts: a live resume after an end is running; an interruption or a crash after it is not', async () => {
    const gone = Number(execFileSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }));
    const live = { pid: process.pid, host: hostname(), t: now() };
    const resumed = withLines(await runStartedBy({ pid: gone, t: now() }), [{ kind: 'end' }, { kind: 'resume', ...live }, { kind: 'model' }]);
    expect(liveRunWriter(resumed)).toEqual({ pid: process.pid });
    for (const stop of ['interrupted', 'crash', 'end'])
      expect(liveRunWriter(withLines(await runStartedBy(live), [{ kind: 'resume', ...live }, { kind: stop }]))).toBeNull();
  });

  it('a killed writer not yet reaped (a zombie) is gone', async () => {
    // `sleep 0` exits at once; its parent execs a sleep that never waits for it, so it stays a zombie meanwhile.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 5 >/dev/null'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
      await waitUntil(() => /\) Z /.test(readFileSync(`/proc/${zombie}/stat`, 'utf8')), 'the child to be a zombie', 5_000);
      expect(liveRunWriter(await runStartedBy({ pid: zombie, t: now() }))).toBeNull();
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
