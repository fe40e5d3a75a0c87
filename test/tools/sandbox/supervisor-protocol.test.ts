import { describe, expect, it } from 'vitest';
import { buildCommandEnv } from '../../../tools/sandbox/plan/environment.js';
import { createReportReader, encodeRequest, parseReport, type SupervisorReport } from '../../../tools/sandbox/supervisor/protocol.js';
import { startSupervisor } from '../../../tools/sandbox/supervisor/supervisor.js';
import { makeTempDir } from '../../helpers/workspace.js';

describe('the supervisor protocol', () => {
  it('reads every report the supervisor sends', () => {
    expect(parseReport('R 4321')).toEqual({ type: 'ready', pid: 4321 });
    expect(parseReport('S c12 77')).toEqual({ type: 'started', id: 'c12', pgid: 77 });
    expect(parseReport('E c12 130')).toEqual({ type: 'commandEnded', id: 'c12', status: 130 });
    expect(parseReport('X j3 0')).toEqual({ type: 'jobEnded', id: 'j3', status: 0 });
    expect(parseReport('P unknown request')).toEqual({ type: 'problem', text: 'unknown request' });
  });

  it.each([
    'Q c1 0', // no such report
    'E c1', // a field missing
    'E c1 zero', // not a number
    'E c1 0 extra', // a field too many
    'R', // ready without its pid
    'S c 1 2',
    'E c1;rm 0', // an id no request has
    '',
  ])('refuses %j', (line) => {
    expect(() => parseReport(line)).toThrow(/does not know/);
  });

  it('writes requests as NUL-ended fields and refuses a field with a NUL', () => {
    expect(encodeRequest({ type: 'run', id: 'c1', nonce: 'ab', command: 'echo hi' })).toBe('run\0c1\0ab\0echo hi\0');
    expect(encodeRequest({ type: 'stop', pgid: 42 })).toBe('stop\x0042\0');
    expect(encodeRequest({ type: 'quit' })).toBe('quit\0');
    expect(() => encodeRequest({ type: 'job', id: 'j1', log: '/tmp/a\0b', command: 'x' })).toThrow(/NUL/);
  });

  it('joins reports split across chunks, and stops at the first it cannot read', () => {
    const reports: SupervisorReport[] = [];
    const errors: string[] = [];
    const read = createReportReader(
      (report) => reports.push(report),
      (error) => errors.push(error.message),
    );
    read('R 1\nS c1 ');
    read('9\nE c1 0\nbogus line\nX j1 0\n');
    expect(reports.map((report) => report.type)).toEqual(['ready', 'started', 'commandEnded']);
    expect(errors).toEqual([expect.stringContaining('"bogus line"')]);
    read('X j2 0\n');
    expect(reports).toHaveLength(3);
  });

  it('takes a line longer than any report for a broken stream', () => {
    const errors: string[] = [];
    const read = createReportReader(
      () => undefined,
      (error) => errors.push(error.message),
    );
    read('E '.repeat(3_000));
    expect(errors).toHaveLength(1);
  });
});

describe('a supervisor that breaks the protocol', () => {
  it('is ended, its command fails with why, and the harness is told it is gone', async () => {
    const cwd = makeTempDir();
    const exits: string[] = [];
    // Stands in for a supervisor that says something rein does not know on its report pipe, then behaves.
    const supervisor = startSupervisor({
      wrap: (inner) => ['bash', '-c', 'printf "R 1\\nW hello\\n" >&3; exec "$@"', 'bash', ...inner],
      cwd,
      env: buildCommandEnv({ PATH: process.env.PATH, HOME: cwd }),
      onExit: (detail) => exits.push(detail),
    });
    const result = await supervisor.runCommand('echo ran', { timeoutMs: 20_000, signal: new AbortController().signal, outputCap: 1000 });
    expect(result.ending).toBe('failed');
    expect(result.failure).toMatch(/report rein does not know: "W hello"/);
    expect(supervisor.alive).toBe(false);
    expect(exits).toEqual([expect.stringContaining('killed by SIGKILL')]);
    await supervisor.close();
  });
});
