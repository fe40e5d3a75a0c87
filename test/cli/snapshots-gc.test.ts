import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSnapshotIndex } from '../../run/record/snapshot-index.js';
import { call, makeTempDir, reply, runScripted } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';

describe('rein snapshots gc', () => {
  it('says what it would drop and remove, removes nothing with --dry-run, and refuses a bad --keep-days', async () => {
    const state = makeTempDir('rein-test-state-');
    const previous = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = state;
    let runDir: string;
    let store: string;
    try {
      const run = await runScripted({
        files: { 'a.txt': 'a\n' },
        testCmd: 'true',
        script: [reply(call('run', { command: 'printf b > b.txt' })), reply(call('finish', { summary: 'x' }))],
      });
      runDir = run.runDir;
      store = readSnapshotIndex(runDir)[0]!.store;
    } finally {
      if (previous === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = previous;
    }
    rmSync(runDir, { recursive: true });
    const env = cleanEnv({ XDG_STATE_HOME: state });
    const dry = await runCli(['snapshots', 'gc', '--dry-run', '--store', store], { env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`would drop ${runDir} (its run directory is gone)`);
    // Just written: younger than the grace period, so nothing would go yet.
    expect(dry.stdout).toMatch(/0 run\(s\) kept, 1 dropped; would remove 0 of \d+ objects/);
    expect(existsSync(join(store, 'objects'))).toBe(true);
    const bad = await runCli(['snapshots', 'gc', '--keep-days', 'soon', '--store', store], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--keep-days takes a number of days');
    const unknown = await runCli(['snapshots', 'prune'], { env });
    expect(unknown.code).toBe(2);
  }, 60_000);
});
