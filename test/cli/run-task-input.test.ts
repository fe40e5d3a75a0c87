import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir, writeFiles } from '../helpers/workspace.js';

// Long tasks: from a file or standard input (one argument is at most 128 KiB on Linux), and refused with the
// numbers, before anything is asked of the endpoint or made on disk, when the model's window cannot hold them.

let stub: OpenAIStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** A repository, an endpoint that finishes at once, and the flags that run against it with a window of `window` tokens. */
async function setup(window: number) {
  stub = await startOpenAIStub(() => ({ toolCalls: [{ name: 'finish', arguments: { summary: 'done' } }] }));
  const repo = makeTempDir('rein-task-input-');
  writeFiles(repo, { 'a.txt': 'x\n' });
  const flags = [
    '--test-cmd',
    'true',
    '--model',
    'm',
    '--base-url',
    stub.url,
    '--context-window',
    String(window),
    '--preset',
    'no-verification-gate',
    '--json',
  ];
  return { repo, flags };
}

/** The task as the model got it: the first request's first user message. */
const taskSent = () => (stub!.requests[0]!.messages as Array<{ role: string; content: string }>).find((message) => message.role === 'user')!.content;

/** An issue text longer than one command-line argument may be. */
const LONG = `The report is wrong.\n${'A line of the issue, quoted from the tracker, with "quotes" and ünïcode. '.repeat(2500)}`;

describe('rein run with a long task', () => {
  it('--task-file FILE: a task of 180 KB, more than one argument can hold, reaches the model whole', async () => {
    const { repo, flags } = await setup(200_000);
    const file = join(makeTempDir('rein-task-file-'), 'ISSUE.md');
    writeFileSync(file, LONG);
    const result = await runCli(['run', repo, '--task-file', file, ...flags], { env: cleanEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(LONG.length).toBeGreaterThan(128 * 1024);
    expect(taskSent().startsWith(LONG.trim())).toBe(true);
  });

  it('-: the task from standard input', async () => {
    const { repo, flags } = await setup(200_000);
    const result = await runCli(['run', repo, '-', ...flags], { env: cleanEnv(), input: LONG });
    expect(result.code, result.stderr).toBe(0);
    expect(taskSent().startsWith(LONG.trim())).toBe(true);
  });

  it('a task larger than the window is refused with the numbers: exit 2, no request to the endpoint, no run directory', async () => {
    const { repo, flags } = await setup(32_768);
    const result = await runCli(['run', repo, '-', ...flags], { env: cleanEnv(), input: LONG });
    expect(result.code).toBe(2);
    const said = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { status: string; error: string };
    expect(said.status).toBe('error');
    expect(said.error).toMatch(
      /^rein run: the task does not fit the model's context window: it is about 45,630 tokens \(182,520 characters at 4 characters a token\), and with the system prompt and tool definitions \(about \d+ tokens\) and room for an answer \(256\) the first request needs 4\d,\d{3}, more than the window of 32,768 \(context\.windowTokens\); shorten the task, or give the model's real window with --context-window$/,
    );
    expect(stub!.requests).toEqual([]);
    expect(existsSync(join(repo, '.rein'))).toBe(false);
  });

  it.each([
    ['a missing file', (dir: string) => ['--task-file', join(dir, 'nope.md')], /--task-file .*nope\.md: no such file/],
    ['a directory', (dir: string) => ['--task-file', dir], /--task-file .* is a directory, not a file/],
    ['an empty file', (dir: string) => ['--task-file', join(dir, 'empty.md')], /--task-file .*empty\.md holds no task \(it is empty\)/],
    ['the task given twice', (dir: string) => ['Fix it.', '--task-file', join(dir, 'empty.md')], /the task is given twice/],
  ])('%s is a usage error that says so', async (_what, args, said) => {
    const { repo, flags } = await setup(32_768);
    const dir = makeTempDir('rein-task-bad-');
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'empty.md'), '\n  \n');
    const result = await runCli(['run', repo, ...args(dir), ...flags.filter((flag) => flag !== '--json')], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(said);
  });

  it('standard input that is empty is said to be empty', async () => {
    const { repo, flags } = await setup(32_768);
    const result = await runCli(['run', repo, '-', ...flags.filter((flag) => flag !== '--json')], { env: cleanEnv(), input: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('standard input holds no task (it is empty)');
  });
});
