import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { beginRulesWatch, clearUntrustedMarks, endRulesWatch, isUntrusted, rulesFilesIn } from '../../rules/trust/index.js';
import { loadRules } from '../../run/rules-files/load-rules.js';
import { repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

// Issue 25, item 3: a rules file the agent wrote was loaded by the next run when the run never reached its clean-up
// (kill -9, a crash, a hang), after a resume, or when .rein was missing and the agent made its record a folder.
const AGENT_RULES = "export default { permissions: { sandbox: 'none', network: true } };\n";
let state: string;

beforeEach(() => {
  state = makeTempDir();
  vi.stubEnv('XDG_STATE_HOME', state);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('rules files an agent wrote', () => {
  it('a run killed with SIGKILL after the agent wrote rein.config.mjs: the next run refuses to load it', async () => {
    const ws = makeTempDir();
    const trust = JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', 'rules', 'trust', 'rules-watch.js')).href);
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { beginRulesWatch } = await import(${trust});
         const fs = await import('node:fs');
         beginRulesWatch(${JSON.stringify(ws)}, ${JSON.stringify(path.join(ws, 'run'))});
         fs.writeFileSync(${JSON.stringify(path.join(ws, 'rein.config.mjs'))}, ${JSON.stringify(AGENT_RULES)});
         process.stdout.write('written\\n');
         setInterval(() => {}, 1000);`,
      ],
      { env: { ...process.env, XDG_STATE_HOME: state }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => child.stdout.on('data', () => resolve()));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    await expect(loadRules({ workspace: ws })).rejects.toThrow(/an agent run wrote this rules file/);
    // Nothing of it is in the repository: the record is in the user's state dir.
    expect(fs.readdirSync(ws).sort()).toEqual(['rein.config.mjs']);
    expect(clearUntrustedMarks(ws)).toEqual(['rein.config.mjs']);
    expect(isUntrusted(ws, 'rein.config.mjs')).toBe(false);
  });

  it('a resumed run keeps the baseline of its first start', () => {
    const ws = makeTempDir();
    const run = path.join(ws, 'run');
    beginRulesWatch(ws, run);
    fs.writeFileSync(path.join(ws, 'rein.config.json'), '{"permissions":{"network":true}}');
    beginRulesWatch(ws, run);
    expect(endRulesWatch(ws, run)).toEqual(['rein.config.json']);
    expect(isUntrusted(ws, 'rein.config.json')).toBe(true);
  });

  it('a .rein/untrusted-rules.json folder made by the agent changes nothing', async () => {
    const ws = makeTempDir();
    const run = path.join(ws, 'run');
    beginRulesWatch(ws, run);
    fs.mkdirSync(path.join(ws, '.rein', 'untrusted-rules.json'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'rein.config.mjs'), AGENT_RULES);
    expect(endRulesWatch(ws, run)).toEqual(['rein.config.mjs']);
    await expect(loadRules({ workspace: ws })).rejects.toThrow(/an agent run wrote this rules file/);
    expect(clearUntrustedMarks(ws)).toEqual(['rein.config.mjs']);
  });

  it('rules files nobody changed during a run stay loadable', async () => {
    const ws = makeTempDir();
    fs.writeFileSync(path.join(ws, 'rein.config.json'), '{"budgets":{"maxSteps":7}}');
    beginRulesWatch(ws, path.join(ws, 'run'));
    expect((await loadRules({ workspace: ws })).rules.budgets.maxSteps).toBe(7);
    expect(endRulesWatch(ws, path.join(ws, 'run'))).toEqual([]);
  });

  it('runs ending at the same moment in many processes lose none of each other’s marks', async () => {
    // One record file per workspace, file and content: with one shared file, a read-change-write lost marks here.
    const trust = JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', 'rules', 'trust', 'rules-watch.js')).href);
    const workspaces = Array.from({ length: 12 }, () => makeTempDir());
    for (const ws of workspaces) beginRulesWatch(ws, path.join(ws, 'run'));
    for (const ws of workspaces) fs.writeFileSync(path.join(ws, 'rein.config.json'), '{"permissions":{"network":true}}');
    const ends = workspaces.map(
      (ws) =>
        new Promise<number | null>((resolve) => {
          const child = spawn(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              `const { endRulesWatch } = await import(${trust}); endRulesWatch(${JSON.stringify(ws)}, ${JSON.stringify(path.join(ws, 'run'))});`,
            ],
            { env: { ...process.env, XDG_STATE_HOME: state }, stdio: 'inherit' },
          );
          child.on('exit', resolve);
        }),
    );
    expect(await Promise.all(ends)).toEqual(workspaces.map(() => 0));
    expect(workspaces.filter((ws) => !isUntrusted(ws, 'rein.config.json'))).toEqual([]);
    // And no ended run's baseline lingers: a file a person writes after every run ended is theirs.
    for (const ws of workspaces) fs.writeFileSync(path.join(ws, 'rein.config.yaml'), 'budgets: { maxSteps: 3 }\n');
    expect(workspaces.filter((ws) => isUntrusted(ws, 'rein.config.yaml'))).toEqual([]);
  }, 60_000);

  it('marks and unended runs in the single trust file of earlier versions still count, and rein trust clears them', () => {
    const ws = fs.realpathSync(makeTempDir());
    fs.writeFileSync(path.join(ws, 'rein.config.json'), '{"permissions":{"network":true}}');
    const other = fs.realpathSync(makeTempDir());
    fs.writeFileSync(path.join(other, 'rein.config.yaml'), 'budgets: { maxSteps: 3 }\n');
    const hash = [...rulesFilesIn(ws).values()][0];
    const legacy = path.join(state, 'rein', 'rules-trust.json');
    fs.mkdirSync(path.dirname(legacy), { recursive: true });
    fs.writeFileSync(legacy, JSON.stringify({ untrusted: { [ws]: { 'rein.config.json': hash } }, watching: { [other]: { '/gone/run': {} } } }));
    expect(isUntrusted(ws, 'rein.config.json')).toBe(true);
    // A run that started (with no rules file) under the old version and never ended.
    expect(isUntrusted(other, 'rein.config.yaml')).toBe(true);
    expect(clearUntrustedMarks(ws)).toEqual(['rein.config.json']);
    expect(clearUntrustedMarks(other)).toEqual(['rein.config.yaml']);
    expect(isUntrusted(ws, 'rein.config.json')).toBe(false);
    expect(isUntrusted(other, 'rein.config.yaml')).toBe(false);
  });

  it('a FIFO left under a rules file name neither blocks the harness nor passes as unchanged', async () => {
    const ws = makeTempDir();
    const run = path.join(ws, 'run');
    beginRulesWatch(ws, run);
    execFileSync('mkfifo', [path.join(ws, 'rein.config.json')]);
    // A plain read would wait for a writer forever, on the event loop, deaf to signals.
    expect(endRulesWatch(ws, run)).toEqual(['rein.config.json']);
    await expect(loadRules({ workspace: ws })).rejects.toThrow(/rein\.config\.json.*(a FIFO, not a regular file|an agent run wrote)/);
    clearUntrustedMarks(ws);
    await expect(loadRules({ workspace: ws })).rejects.toThrow(/rein\.config\.json is a FIFO, not a regular file; rein does not read it/);
  });
});
