import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { packTask } from '../../eval/queue/task-pack.js';
import { jobDataSchema, KEY_PREFIX, QUEUE_NAME, taskKey } from '../../eval/queue/wire-format.js';
import { type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { writeTaskSet } from './eval-fixtures.js';
import { cleanUp, readRecords, startEval, startRedis, startWorker, type TestRedis, tempDir, tempFile } from './queue-fixtures.js';

afterAll(cleanUp);

const COORDINATOR_KEY = 'sk-coordinator-0123456789SECRET';
const COORDINATOR_ENDPOINT = 'http://coordinator-endpoint.invalid/v1';
const WORKER_KEY = 'sk-worker-9876543210SECRET';
const REDIS_PASSWORD = 'queue-pass-5f0c1e';

/** The raw Redis hashes of the jobs waiting on the queue (what a worker would be handed). */
async function waitingJobs(redis: TestRedis, count: number): Promise<Array<Record<string, string>>> {
  const client = redis.client();
  const queue = new Queue(QUEUE_NAME, { connection: client, prefix: KEY_PREFIX });
  try {
    let ids: string[] = [];
    for (const deadline = Date.now() + 60_000; ids.length < count; await new Promise((resolve) => setTimeout(resolve, 100))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} waiting job(s)`);
      ids = (await queue.getWaiting()).map((job) => job.id!);
    }
    return await Promise.all(ids.map((id) => client.hgetall(`${KEY_PREFIX}:${QUEUE_NAME}:${id}`)));
  } finally {
    await queue.close();
    client.disconnect();
  }
}

/** Runs the tests, then finishes: enough model to make a few real requests. */
function policy(request: StubRequest) {
  const last = request.messages.at(-1)!;
  const text = typeof last.content === 'string' ? last.content : '';
  if (text.startsWith('exit=')) return { toolCalls: [{ name: 'finish', arguments: { summary: 'done' } }] };
  return { toolCalls: [{ name: 'run', arguments: { command: 'node --test' } }] };
}

describe('rein eval --queue: what travels and what does not', () => {
  it('secrets never travel: the job holds no key, endpoint or Redis password; the worker calls its own endpoint with its own key', async () => {
    const stub = await startOpenAIStub(policy);
    try {
      const redis = await startRedis({ password: REDIS_PASSWORD });
      const tasks = writeTaskSet(['add']);
      const out = join(tempDir('rein-queue-secrets-'), 'out');
      // A rules file travels too (by content hash), and the worker checks the rules it loads against the coordinator's.
      const config = tempFile('short.json', JSON.stringify({ budgets: { maxSteps: 4 } }));
      const coordinator = startEval(
        [tasks, '--config', config, '--model', 'stub-model', '--queue', redis.url, '--out', out],
        cleanEnv({ OPENAI_API_KEY: COORDINATOR_KEY, OPENAI_BASE_URL: COORDINATOR_ENDPOINT }),
      );
      const [job] = await waitingJobs(redis, 1);
      const raw = JSON.stringify(job);
      for (const secret of [COORDINATOR_KEY, 'coordinator-endpoint.invalid', REDIS_PASSWORD, tasks, config]) expect(raw).not.toContain(secret);
      const data = jobDataSchema.parse(JSON.parse(job!.data!));
      expect(data.model).toEqual({ kind: 'endpoint', name: 'stub-model' });

      // The worker's URL has no password: it comes from REIN_REDIS_PASSWORD; the key from --api-key-file.
      const keyFile = tempFile('key.txt', `${WORKER_KEY}\n`);
      const worker = startWorker(`redis://127.0.0.1:${redis.port}`, {
        env: cleanEnv({ REIN_REDIS_PASSWORD: REDIS_PASSWORD, OPENAI_BASE_URL: stub.url }),
        args: ['--api-key-file', keyFile],
      });
      expect(await coordinator.exited, coordinator.stderr() + worker.log()).toBe(0);
      const [record] = readRecords(out);
      expect(record).toMatchObject({ task: 'add', config: 'short', model: 'stub-model', status: 'step_limit', steps: 4 });
      expect(stub.requests.length).toBeGreaterThan(0);
      expect(new Set(stub.requests.map((request) => request.headers.authorization))).toEqual(new Set([`Bearer ${WORKER_KEY}`]));
      expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain("each worker's own endpoint");
      expect(readFileSync(join(out, record!.tracePath), 'utf8')).not.toContain(WORKER_KEY);
    } finally {
      await stub.close();
    }
  }, 180_000);

  it('a wrong Redis password is one clear line and exit code 2, before anything is enqueued', async () => {
    const redis = await startRedis({ password: REDIS_PASSWORD });
    const tasks = writeTaskSet(['add']);
    const result = await runCli(['eval', tasks, '--queue', `redis://:wrong@127.0.0.1:${redis.port}`, '--out', join(tempDir('rein-queue-auth-'), 'out')], {
      env: cleanEnv(),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot use Redis at redis:\/\/\*\*\*@127\.0\.0\.1:\d+: the login was refused/);
    expect(result.stderr).not.toContain('wrong');
  }, 60_000);

  it("a worker refuses a job whose task does not hash to the job's hash, and the run is recorded as refused, never run", async () => {
    const redis = await startRedis();
    const tasks = writeTaskSet(['add']);
    const out = join(tempDir('rein-queue-hash-'), 'out');
    const coordinator = startEval([tasks, '--preset', 'default', '--queue', redis.url, '--out', out]);
    await waitingJobs(redis, 1);
    // Someone with access to Redis swaps the stored task for another folder under the same key.
    const { hash } = await packTask('add', join(tasks, 'add'));
    const tampered = join(tempDir('rein-queue-tampered-'), 'add');
    cpSync(join(tasks, 'add'), tampered, { recursive: true });
    writeFileSync(join(tampered, 'repo', 'calc.js'), 'export const add = () => { require("child_process").execSync("touch /tmp/owned"); };\n');
    const client = redis.client();
    await client.set(taskKey(hash), (await packTask('add', tampered)).blob);
    client.disconnect();

    const worker = startWorker(redis.url);
    expect(await coordinator.exited, coordinator.stderr()).toBe(0);
    const [record] = readRecords(out);
    expect(record).toMatchObject({ task: 'add', status: 'crash', resolved: false, steps: 0 });
    expect(record!.reason).toMatch(
      /^queue: refused by worker [^:]+:\d+: task add: the stored folder hashes to [0-9a-f]{12}, not to the job's [0-9a-f]{12}; refusing to run it \(after 2 starts\)$/,
    );
    expect(worker.log()).toContain('add × default #0: refused');
    expect(worker.log()).not.toMatch(/add × default #0: (un)?resolved/);
  }, 120_000);

  it("a job's rules module runs on a worker only if its operator trusted that file: without --trust-rules it is refused, never imported", async () => {
    const redis = await startRedis();
    const tasks = writeTaskSet(['add']);
    // Imported, it writes where the worker's environment says (the coordinator has no such variable).
    const rules = tempFile(
      'queued.mjs',
      "import fs from 'node:fs';\nif (process.env.REIN_TEST_CANARY) fs.writeFileSync(process.env.REIN_TEST_CANARY, 'imported');\nexport default { budgets: { maxSteps: 3 } };\n",
    );
    const canary = join(tempDir('rein-queue-canary-'), 'imported');
    const out = join(tempDir('rein-queue-rules-'), 'out');
    const coordinator = startEval([tasks, '--config', rules, '--queue', redis.url, '--out', out]);
    const worker = startWorker(redis.url, { env: cleanEnv({ REIN_TEST_CANARY: canary }) });
    expect(await coordinator.exited, coordinator.stderr()).toBe(0);
    const [record] = readRecords(out);
    expect(record).toMatchObject({ task: 'add', status: 'crash', resolved: false, steps: 0 });
    expect(record!.reason).toMatch(/this rules file came from a queue job and is code, and rein runs no code it was not told to trust .*--trust-rules FILE/);
    expect(existsSync(canary)).toBe(false);
    worker.child.kill('SIGKILL');

    // The operator reviewed the file and names their copy: the same bytes run as they are.
    const trusted = join(tempDir('rein-queue-rules-ok-'), 'out');
    const again = startEval([tasks, '--config', rules, '--queue', redis.url, '--out', trusted]);
    const reviewed = tempFile('reviewed.mjs', readFileSync(rules, 'utf8'));
    const trusting = startWorker(redis.url, { env: cleanEnv({ REIN_TEST_CANARY: canary }), args: ['--trust-rules', reviewed] });
    expect(await again.exited, again.stderr() + trusting.log()).toBe(0);
    expect(readRecords(trusted)[0]).toMatchObject({ task: 'add', config: 'queued', steps: expect.any(Number) });
    expect(readRecords(trusted)[0]!.status).not.toBe('crash');
    expect(readFileSync(canary, 'utf8')).toBe('imported');
  }, 180_000);

  it("a job's JSON rules file that widens the rules is refused on a worker that was not told to trust it", async () => {
    const redis = await startRedis();
    const tasks = writeTaskSet(['add']);
    const rules = tempFile('open.json', JSON.stringify({ permissions: { sandbox: 'none', network: true } }));
    const out = join(tempDir('rein-queue-open-'), 'out');
    const coordinator = startEval([tasks, '--config', rules, '--queue', redis.url, '--out', out]);
    startWorker(redis.url);
    expect(await coordinator.exited, coordinator.stderr()).toBe(0);
    const [record] = readRecords(out);
    expect(record).toMatchObject({ task: 'add', status: 'crash', steps: 0 });
    expect(record!.reason).toMatch(/came from a queue job and is not trusted, and it loosens the rules[\s\S]*permissions\.sandbox/);
  }, 120_000);

  it("a queued task's setup_cmd runs in the sandbox on a worker, on the host only with --host-task-code; its simulated model module is refused", async () => {
    const redis = await startRedis();
    const tasks = writeTaskSet(['add', 'crash']);
    const canary = join(tempDir('rein-queue-setup-'), 'setup-ran-here');
    const taskFile = join(tasks, 'add', 'task.json');
    writeFileSync(taskFile, JSON.stringify({ ...JSON.parse(readFileSync(taskFile, 'utf8')), setup_cmd: `echo host > ${canary}; touch ready` }));
    const out = join(tempDir('rein-queue-contained-'), 'out');
    const coordinator = startEval([tasks, '--queue', redis.url, '--out', out]);
    const worker = startWorker(redis.url);
    expect(await coordinator.exited, coordinator.stderr()).toBe(0);
    const records = readRecords(out);
    // The setup ran (in the sandbox its write lands in a private /tmp) and the run went on.
    expect(records.find((record) => record.task === 'add')).toMatchObject({ status: expect.not.stringMatching(/setup_failed|crash/) });
    expect(existsSync(canary)).toBe(false);
    expect(records.find((record) => record.task === 'crash')!.reason).toMatch(
      /task crash: its simulated model is a module of the task \(.*crash-model\.mjs\), which this worker would import outside the sandbox; start the worker with --host-task-code/,
    );
    worker.child.kill('SIGKILL');

    const again = join(tempDir('rein-queue-host-code-'), 'out');
    const second = startEval([tasks, '--task', 'add', '--queue', redis.url, '--out', again]);
    const trusting = startWorker(redis.url, { args: ['--host-task-code'] });
    expect(await second.exited, second.stderr() + trusting.log()).toBe(0);
    expect(readFileSync(canary, 'utf8')).toBe('host\n');
  }, 180_000);

  it('rediss:// works against a TLS-only redis-server with a self-signed certificate trusted through NODE_EXTRA_CA_CERTS', async () => {
    const redis = await startRedis({ tls: true });
    const tasks = writeTaskSet(['shout']);
    const untrusted = await runCli(['eval', tasks, '--queue', redis.url, '--out', join(tempDir('rein-queue-tls-'), 'out')], { env: cleanEnv() });
    expect(untrusted.code).toBe(2);
    expect(untrusted.stderr).toContain('TLS failed');
    expect(untrusted.stderr).toContain('NODE_EXTRA_CA_CERTS');

    const env = cleanEnv({ NODE_EXTRA_CA_CERTS: redis.ca! });
    const worker = startWorker(redis.url, { env });
    const out = join(tempDir('rein-queue-tls-'), 'out');
    const result = await runCli(['eval', tasks, '--preset', 'default', '--queue', redis.url, '--out', out], { env, timeoutMs: 120_000 });
    expect(result.code, result.stderr + worker.log()).toBe(0);
    expect(readRecords(out)).toMatchObject([{ task: 'shout', resolved: true, status: 'done' }]);
    expect(worker.log()).toContain(`connected to ${redis.url}`);
  }, 150_000);
});

describe('rein eval --queue and rein worker: usage', () => {
  it('refuses what does not fit, naming where it goes instead', async () => {
    const tasks = writeTaskSet(['add']);
    const cases: Array<[string[], RegExp]> = [
      [['eval', tasks, '--queue', 'http://127.0.0.1:6379'], /--queue: expected a redis:\/\/ or rediss:\/\/ URL, got http:/],
      [['eval', tasks, '--queue', 'redis://127.0.0.1:6379/queue'], /the path must be a database number/],
      [
        ['eval', tasks, '--queue', 'redis://127.0.0.1:6379', '--parallel', '2'],
        /with --queue, --parallel belongs to each worker: rein worker --queue … --parallel …/,
      ],
      [['eval', tasks, '--attempts', '3'], /--attempts applies to queued runs; add --queue/],
      [['worker'], /rein worker: expected --queue redis:\/\/host:6379 \(or REIN_QUEUE\)/],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, { env: cleanEnv(), timeoutMs: 170_000 })));
    results.forEach((result, index) => {
      expect(result.code, cases[index]![0].join(' ')).toBe(2);
      expect(result.stderr).toMatch(cases[index]![1]);
    });
  }, 180_000);
});
