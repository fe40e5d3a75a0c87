import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, startOpenAIStub } from '../../testing/index.js';
import { removeLeftoverTempFiles } from '../../tools/edits/temp-file-journal.js';
import { cleanEnv, repoRoot, runCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

let stub: OpenAIStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const tempFiles = (dir: string) => fs.readdirSync(dir).filter((name) => name.endsWith('.rein-tmp'));

/** A rein process (the built atomic writer) writing 600 MB over `file`, killed with SIGKILL while it writes. */
async function killMidWrite(file: string, env: NodeJS.ProcessEnv, other: string): Promise<string> {
  const script = `import(${JSON.stringify(path.join(repoRoot, 'dist', 'tools', 'edits', 'atomic-write.js'))}).then((m) => m.writeFileAtomic(${JSON.stringify(file)}, Buffer.alloc(600 * 1024 * 1024, 120)))`;
  const child = spawn(process.execPath, ['-e', script], { env, stdio: 'ignore' });
  const closed = new Promise((resolve) => child.on('close', resolve));
  const dir = path.dirname(file);
  const ours = () => tempFiles(dir).filter((name) => name !== other);
  await waitUntil(() => ours().some((name) => fs.statSync(path.join(dir, name)).size > 0), 'the temporary file to be half written', 20_000);
  child.kill('SIGKILL');
  await closed;
  const [left] = ours();
  expect(fs.statSync(path.join(dir, left!)).size).toBeLessThan(600 * 1024 * 1024);
  return left!;
}

// Issue 25, item 13: kill -9 during a large edit left a partial `.rein-tmp` file in the workspace that nothing
// cleaned up; the next run's model and the user's diff saw it as the agent's work.
describe('a temporary file left by a rein killed mid-write', () => {
  it('is gone when the next run starts, before the model sees the workspace; a look-alike file of the user stays', async () => {
    const repo = makeTempDir('rein-tmp-');
    const state = makeTempDir('rein-state-');
    const env = cleanEnv({ XDG_STATE_HOME: state });
    fs.writeFileSync(path.join(repo, 'big.txt'), 'old\n');
    const lookAlike = '.big.txt.0123456789ab.rein-tmp';
    fs.writeFileSync(path.join(repo, lookAlike), 'the user made this one');

    const left = await killMidWrite(path.join(repo, 'big.txt'), env, lookAlike);
    expect(left).toMatch(/^\.big\.txt\.[0-9a-f]{12}\.rein-tmp$/);
    expect(fs.readFileSync(path.join(repo, 'big.txt'), 'utf8')).toBe('old\n');

    const seen: { atStart?: string[]; listed?: string } = {};
    stub = await startOpenAIStub((request) => {
      const results = request.messages.filter((message) => message.role === 'tool');
      if (results.length === 0) {
        seen.atStart = tempFiles(repo);
        return { toolCalls: [{ id: 'c0', name: 'run', arguments: { command: 'ls -a' } }] };
      }
      if (results.length === 1) {
        seen.listed = String(results[0]!.content);
        return { toolCalls: [{ id: 'c1', name: 'run', arguments: { command: 'true' } }] };
      }
      return { toolCalls: [{ id: 'c2', name: 'finish', arguments: { summary: 'looked' } }] };
    });
    const result = await runCli(['run', repo, 'look', '--test-cmd', 'true', '--model', 'm'], {
      env: { ...env, OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'sk-test-key-123456' },
    });
    expect(result.code, result.stderr).toBe(0);
    // Neither the workspace at the first request nor the model's own `ls -a` shows it.
    expect(seen.atStart).toEqual([lookAlike]);
    expect(seen.listed).not.toContain(left);
    expect(seen.listed).toContain(lookAlike);
    expect(tempFiles(repo)).toEqual([lookAlike]);
    expect(fs.readFileSync(path.join(repo, lookAlike), 'utf8')).toBe('the user made this one');
  }, 90_000);

  it("leaves a writer's temporary file alone while that writer still runs", () => {
    const state = makeTempDir('rein-state-');
    const dir = path.join(state, 'rein', 'temp-files');
    fs.mkdirSync(dir, { recursive: true });
    const repo = makeTempDir('rein-tmp-');
    const name = '.a.txt.00112233aabb.rein-tmp';
    fs.writeFileSync(path.join(repo, name), 'in flight');
    const startTime = fs.readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
    fs.writeFileSync(path.join(dir, `${process.pid}-${startTime}-0011aabb`), `${fs.realpathSync(repo)}\0${name}`);
    expect(removeLeftoverTempFiles({ XDG_STATE_HOME: state })).toEqual([]);
    expect(tempFiles(repo)).toEqual([name]);
    // A record whose writer is gone (another start time under the same pid) names a file rein made: it goes.
    fs.renameSync(path.join(dir, `${process.pid}-${startTime}-0011aabb`), path.join(dir, `${process.pid}-1-0011aabb`));
    expect(removeLeftoverTempFiles({ XDG_STATE_HOME: state })).toEqual([path.join(fs.realpathSync(repo), name)]);
    expect(tempFiles(repo)).toEqual([]);
  });

  it('a record naming a file that is not a temporary file of rein, or a folder reached through a link, removes nothing', () => {
    const state = makeTempDir('rein-state-');
    const dir = path.join(state, 'rein', 'temp-files');
    fs.mkdirSync(dir, { recursive: true });
    const repo = fs.realpathSync(makeTempDir('rein-tmp-'));
    fs.writeFileSync(path.join(repo, 'notes.txt'), 'keep');
    fs.mkdirSync(path.join(repo, 'real'));
    fs.writeFileSync(path.join(repo, 'real', '.a.00112233aabb.rein-tmp'), 'keep');
    fs.symlinkSync(path.join(repo, 'real'), path.join(repo, 'link'));
    fs.writeFileSync(path.join(dir, '1-1-00000001'), `${repo}\0notes.txt`);
    fs.writeFileSync(path.join(dir, '1-1-00000002'), `${path.join(repo, 'link')}\0.a.00112233aabb.rein-tmp`);
    fs.writeFileSync(path.join(dir, '1-1-00000003'), `${repo}\0../${path.basename(repo)}/notes.txt`);
    expect(removeLeftoverTempFiles({ XDG_STATE_HOME: state })).toEqual([]);
    expect(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8')).toBe('keep');
    expect(fs.readdirSync(path.join(repo, 'real'))).toEqual(['.a.00112233aabb.rein-tmp']);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
