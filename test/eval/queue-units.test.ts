import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfiguration } from '../../eval/configurations.js';
import { planJobs } from '../../eval/plan-jobs.js';
import { createProgress } from '../../eval/progress.js';
import { collectFinished } from '../../eval/queue/collect.js';
import { configKeyFor, evalIdOf, jobIdFor } from '../../eval/queue/job-ids.js';
import { parseRedisUrl } from '../../eval/queue/redis-endpoint.js';
import { packRunFiles, writeRunFiles } from '../../eval/queue/run-files.js';
import { hashContent } from '../../eval/queue/task-content.js';
import { packTask, unpackTask } from '../../eval/queue/task-pack.js';
import { loadTaskSet } from '../../eval/task.js';
import { writeTaskSet } from './eval-fixtures.js';
import { cleanUp, tempDir } from './queue-fixtures.js';

afterAll(cleanUp);

/** A small task folder with an executable script, a symlink and an empty directory. */
function taskFolder(): string {
  const root = join(tempDir('rein-queue-pack-'), 'demo');
  mkdirSync(join(root, 'repo', 'lib'), { recursive: true });
  mkdirSync(join(root, 'repo', 'empty'));
  writeFileSync(join(root, 'task.json'), '{}');
  writeFileSync(join(root, 'repo', 'lib', 'calc.js'), 'export const add = (a, b) => a - b;\n');
  writeFileSync(join(root, 'repo', 'run.sh'), '#!/bin/sh\necho hi\n');
  chmodSync(join(root, 'repo', 'run.sh'), 0o755);
  symlinkSync('lib/calc.js', join(root, 'repo', 'calc.js'));
  return root;
}

/** A packed task with a hand-written manifest, as a hostile Redis could hold. */
function craftedBlob(entries: Array<{ path: string; kind: string; size?: number; target?: string }>, body = ''): Buffer {
  const manifest = Buffer.from(JSON.stringify(entries.map((entry) => ({ executable: false, size: 0, ...entry }))));
  const header = Buffer.alloc(4);
  header.writeUInt32BE(manifest.length);
  return gzipSync(Buffer.concat([header, manifest, Buffer.from(body)]));
}

describe('task folders travel by content hash', () => {
  it('a packed task unpacks to the same folder, with the same hash: bytes, executable bit, symlinks and empty directories', async () => {
    const root = taskFolder();
    const { hash, blob } = await packTask('demo', root);
    expect(hash).toBe(await hashContent('demo', root));
    const copy = join(tempDir('rein-queue-unpack-'), 'demo');
    await unpackTask(blob, copy);
    expect(await hashContent('demo', copy)).toBe(hash);
    expect(readFileSync(join(copy, 'repo', 'lib', 'calc.js'), 'utf8')).toContain('a - b');
    expect(statSync(join(copy, 'repo', 'run.sh')).mode & 0o111).not.toBe(0);
    expect(lstatSync(join(copy, 'repo', 'calc.js')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(copy, 'repo', 'calc.js'))).toBe('lib/calc.js');
    expect(statSync(join(copy, 'repo', 'empty')).isDirectory()).toBe(true);
  });

  it('the hash changes with any byte, the executable bit, a file name or the task id', async () => {
    const root = taskFolder();
    const original = await hashContent('demo', root);
    expect(await hashContent('other', root)).not.toBe(original);
    writeFileSync(join(root, 'repo', 'lib', 'calc.js'), 'export const add = (a, b) => a + b;\n');
    const edited = await hashContent('demo', root);
    expect(edited).not.toBe(original);
    chmodSync(join(root, 'repo', 'run.sh'), 0o644);
    const modeChanged = await hashContent('demo', root);
    expect(modeChanged).not.toBe(edited);
    writeFileSync(join(root, 'repo', 'new.txt'), '');
    expect(await hashContent('demo', root)).not.toBe(modeChanged);
  });

  it('a blob cannot write outside its folder: ".." paths, absolute paths and entries under a symlink are refused', async () => {
    const target = tempDir('rein-queue-hostile-');
    await expect(unpackTask(craftedBlob([{ path: '../escape.txt', kind: 'file', size: 1 }], 'x'), join(target, 'a'))).rejects.toThrow(
      'bad path "../escape.txt"',
    );
    await expect(unpackTask(craftedBlob([{ path: '/etc/escape', kind: 'file', size: 1 }], 'x'), join(target, 'b'))).rejects.toThrow('bad path');
    await expect(
      unpackTask(
        craftedBlob(
          [
            { path: 'link', kind: 'symlink', target: '/tmp' },
            { path: 'link/escape.txt', kind: 'file', size: 1 },
          ],
          'x',
        ),
        join(target, 'c'),
      ),
    ).rejects.toThrow('"link/escape.txt" lies under a symlink');
  });
});

describe('run files come back compressed, under a size cap', () => {
  it('under the cap every file comes back whole; over it the trace is cut at a line boundary and the others are left out', async () => {
    const dir = tempDir('rein-queue-run-');
    const lines = Array.from({ length: 4000 }, (_, index) => JSON.stringify({ kind: 'model', step: index, noise: Math.random().toString(36).repeat(4) }));
    writeFileSync(join(dir, 'trace.jsonl'), lines.join('\n') + '\n');
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ big: randomBytes(20_000).toString('hex') }));

    const whole = await packRunFiles(dir, 64 * 1024 * 1024);
    expect(whole.cut).toEqual([]);
    const back = tempDir('rein-queue-back-');
    await writeRunFiles(back, whole.files);
    expect(readFileSync(join(back, 'trace.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'trace.jsonl'), 'utf8'));

    const cap = 40_000;
    const capped = await packRunFiles(dir, cap);
    expect(capped.files.map((file) => file.name)).toEqual(['trace.jsonl']);
    expect(capped.files.reduce((total, file) => total + Buffer.from(file.gzip, 'base64').length, 0)).toBeLessThanOrEqual(cap);
    const trace = gunzipSync(Buffer.from(capped.files[0]!.gzip, 'base64')).toString('utf8');
    expect(trace.endsWith('\n')).toBe(true);
    expect(trace.length).toBeGreaterThan(0);
    expect(lines.join('\n').startsWith(trace.slice(0, -1))).toBe(true);
    expect(capped.cut).toEqual([
      { name: 'trace.jsonl', bytes: Buffer.byteLength(lines.join('\n') + '\n'), kept: Buffer.byteLength(trace) },
      { name: 'state.json', bytes: statSync(join(dir, 'state.json')).size, kept: 0 },
    ]);
  });
});

describe('queue addresses and ids', () => {
  it('parses redis:// and rediss:// URLs, takes a password from the environment, and never prints one', () => {
    const plain = parseRedisUrl('redis://10.0.0.5:6380/3');
    expect(plain.options).toMatchObject({ host: '10.0.0.5', port: 6380, db: 3 });
    expect(plain.options.tls).toBeUndefined();
    const secret = parseRedisUrl('rediss://eval:p%40ss@queue.example:6390');
    expect(secret.options).toMatchObject({ host: 'queue.example', port: 6390, username: 'eval', password: 'p@ss', tls: {} });
    expect(secret.display).toBe('rediss://***@queue.example:6390');
    expect(parseRedisUrl('redis://queue.example', { REIN_REDIS_PASSWORD: 'from-env' }).options).toMatchObject({ port: 6379, password: 'from-env' });
    expect(() => parseRedisUrl('queue.example:6379')).toThrow(/redis:\/\/ or rediss:\/\//);
  });

  it('job ids are deterministic per eval, task content, configuration and repeat', () => {
    const taskHash = 'a'.repeat(64);
    const key = configKeyFor('default', 'ffc29988741b', 'simulated:careful');
    expect(jobIdFor('3f9a0c1b2d4e', taskHash, key, 0)).toBe(
      jobIdFor('3f9a0c1b2d4e', taskHash, configKeyFor('default', 'ffc29988741b', 'simulated:careful'), 0),
    );
    expect(
      new Set([
        jobIdFor('3f9a0c1b2d4e', taskHash, key, 0),
        jobIdFor('3f9a0c1b2d4e', taskHash, key, 1),
        jobIdFor('000000000000', taskHash, key, 0),
        jobIdFor('3f9a0c1b2d4e', 'b'.repeat(64), key, 0),
        // Two labels with the same rules are two configurations; so are two models.
        jobIdFor('3f9a0c1b2d4e', taskHash, configKeyFor('copy', 'ffc29988741b', 'simulated:careful'), 0),
        jobIdFor('3f9a0c1b2d4e', taskHash, configKeyFor('default', 'ffc29988741b', 'gpt'), 0),
      ]).size,
    ).toBe(6);
    expect(jobIdFor('3f9a0c1b2d4e', taskHash, key, 0)).not.toContain(':');
  });

  it('an output dir keeps its eval id across re-runs; a new one gets a new id', () => {
    const out = tempDir('rein-queue-id-');
    const id = evalIdOf(out);
    expect(evalIdOf(out)).toBe(id);
    expect(evalIdOf(tempDir('rein-queue-id-'))).not.toBe(id);
  });
});

describe('collecting a finished job', () => {
  async function oneJob() {
    const tasks = writeTaskSet(['shout']);
    const { tasks: loaded } = loadTaskSet(tasks);
    const config = await resolveConfiguration({ label: 'default', preset: 'default' });
    return planJobs(loaded, [config], { repeat: 1 }, join(tempDir('rein-queue-collect-'), 'out'))[0]!;
  }

  it('a job that failed every attempt becomes a crash record that says why', async () => {
    const job = await oneJob();
    const { record } = await collectFinished({ state: 'failed', returnvalue: null, failedReason: 'the run lost its worker 2 times', attemptsStarted: 3 }, job);
    expect(record).toMatchObject({
      task: 'shout',
      config: 'default',
      repeat: 0,
      resolved: false,
      status: 'crash',
      reason: 'queue: the run lost its worker 2 times (after 3 starts)',
    });
  });

  it('a result that is unreadable or answers for another run is a crash record, not a result', async () => {
    const job = await oneJob();
    expect((await collectFinished({ state: 'completed', returnvalue: { v: 99 }, attemptsStarted: 1 }, job)).record.reason).toMatch(
      /^queue: the worker's result is unreadable \(v: .*\); is it a different rein version\?$/,
    );
    const other = { v: 1, record: { task: 'add', config: 'default', repeat: 0, resolved: true, status: 'done' }, files: [], cut: [], worker: 'box:7' };
    const { record } = await collectFinished({ state: 'completed', returnvalue: other, attemptsStarted: 1 }, job);
    expect(record).toMatchObject({
      task: 'shout',
      status: 'crash',
      resolved: false,
      reason: 'queue: worker box:7 answered with the result of add × default #0',
    });
  });
});

describe('the progress line with a queue', () => {
  const record = { task: 'add', config: 'default', repeat: 0, resolved: true, status: 'done', reason: '', steps: 3, wallSeconds: 1.5 } as Parameters<
    ReturnType<typeof createProgress>['finished']
  >[0];

  it('plain lines carry the live worker count; notes are lines of their own', () => {
    const lines: string[] = [];
    let workers = 3;
    const progress = createProgress(
      { write: (text) => lines.push(text) > 0 },
      { total: 2, configs: ['default'], previous: [], status: () => `${workers} workers` },
    );
    progress.finished(record);
    workers = 2;
    progress.note('reconnected to Redis');
    progress.finished({ ...record, task: 'shout' });
    progress.close();
    expect(lines).toEqual([
      'rein eval: [1/2, 3 workers] add × default #0: resolved (done, 3 steps, 1.5 s)\n',
      'rein eval: reconnected to Redis\n',
      'rein eval: [2/2, 2 workers] shout × default #0: resolved (done, 3 steps, 1.5 s)\n',
    ]);
  });

  it('on a terminal the redrawn bar shows the status, and a note clears the bar, prints, and redraws it', () => {
    let screen = '';
    const progress = createProgress(
      {
        isTTY: true,
        columns: 120,
        write: (text) => {
          screen += text;
          return true;
        },
      },
      { total: 2, configs: ['default'], previous: [], status: () => 'Redis unreachable, reconnecting' },
    );
    progress.note('lost the connection to Redis');
    progress.close();
    expect(screen).toContain('\r\x1b[2Krein eval: lost the connection to Redis\n\r\x1b[2Krein eval [');
    expect(screen).toMatch(/rein eval \[-{16}\] 0\/2 \| Redis unreachable, reconnecting \| resolved: default 0\/0/);
  });
});
