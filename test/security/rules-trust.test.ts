import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadRules } from '../../config/load-rules.js';
import { beginRulesWatch, endRulesWatch, isUntrusted, trustRulesFiles } from '../../lib/rules-trust.js';
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
    const trust = JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', 'lib', 'rules-trust.js')).href);
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
    expect(trustRulesFiles(ws)).toEqual(['rein.config.mjs']);
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
    expect(trustRulesFiles(ws)).toEqual(['rein.config.mjs']);
  });

  it('rules files nobody changed during a run stay loadable', async () => {
    const ws = makeTempDir();
    fs.writeFileSync(path.join(ws, 'rein.config.json'), '{"budgets":{"maxSteps":7}}');
    beginRulesWatch(ws, path.join(ws, 'run'));
    expect((await loadRules({ workspace: ws })).rules.budgets.maxSteps).toBe(7);
    expect(endRulesWatch(ws, path.join(ws, 'run'))).toEqual([]);
  });
});
