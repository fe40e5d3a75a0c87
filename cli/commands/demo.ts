import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoScript, DEMO_TASK, DEMO_TEST_CMD } from '../../demo/demo-model.js';
import { loadRules } from '../../rules/load.js';
import { parseCommand, stringFlag, type FlagSpec } from '../args.js';
import { executeRun, type Io } from '../execute-run.js';
import { scriptedModelSource } from '../model-source.js';
import { EXIT } from '../exit-codes.js';

export const DEMO_USAGE = `rein demo [--preset NAME] [--viz] [--viz-port N] [--json] [--run-dir DIR]

Copies a small buggy repo to a temp dir and runs the full harness on it with a
built-in scripted model: plan, build, a refused finish, verify, fix, finish.
Offline, no API key.`;

const DEMO_FLAGS: FlagSpec = {
  preset: { type: 'string' }, viz: { type: 'boolean' }, 'viz-port': { type: 'string' }, json: { type: 'boolean' },
  'run-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' },
};

/** The bundled demo repo, found from the compiled file's location. */
export function demoRepoPath(): string {
  return fileURLToPath(new URL('../../../demo/repo', import.meta.url));
}

export async function demoCommand(argv: string[], io: Io): Promise<number> {
  const parsed = parseCommand('rein demo', argv, DEMO_FLAGS);
  if (parsed.values.help) { io.stdout.write(DEMO_USAGE + '\n'); return EXIT.done; }
  const workspace = mkdtempSync(join(tmpdir(), 'rein-demo-'));
  cpSync(demoRepoPath(), workspace, { recursive: true });
  const { rules } = await loadRules({ preset: stringFlag(parsed, 'preset'), overrides: { verification: { command: DEMO_TEST_CMD } } });
  io.stderr.write(`rein demo: copied the demo repo to ${workspace}\n`);
  return executeRun({
    io, json: Boolean(parsed.values.json),
    run: {
      workspace, task: DEMO_TASK, testCmd: DEMO_TEST_CMD, rules, model: scriptedModelSource('demo-scripted', demoScript),
      runDir: stringFlag(parsed, 'run-dir') ?? join(workspace, '.rein', 'runs', 'demo'),
    },
  });
}
