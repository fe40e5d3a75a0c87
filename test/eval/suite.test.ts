import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runShell } from '../../eval/shell.js';
import type { Fix } from '../../eval/simulated/simulation-schema.js';
import { type EvalTask, loadTaskSet } from '../../eval/task.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { checkSyntax } from '../../tools/edits/syntax-check.js';
import { repoRoot } from '../helpers/cli.js';

const { tasks, problems } = loadTaskSet(join(repoRoot, 'eval', 'suite'));

/** A copy of the task's repo with the given fixes applied in order; each `old` must occur exactly once when applied. */
function workspaceWith(task: EvalTask, fixes: readonly Fix[]): string {
  const dir = makeTempDir(`rein-suite-${task.id}-`, { until: 'exit' });
  cpSync(task.repoDir, dir, { recursive: true });
  for (const fix of fixes) {
    const source = readFileSync(join(dir, fix.path), 'utf8');
    expect(source.split(fix.old).length - 1, `${task.id}: "${fix.old}" must occur once in ${fix.path}`).toBe(1);
    writeFileSync(
      join(dir, fix.path),
      source.replace(fix.old, () => fix.new),
    );
  }
  return dir;
}

async function exitOf(command: string, task: EvalTask, cwd: string): Promise<number | null> {
  const result = await runShell(command, { cwd, timeoutS: 60, env: { REIN_TASK_DIR: task.dir, REIN_WORKSPACE: cwd }, sandbox: false, readable: [] });
  return result.exitCode;
}

describe('the bundled offline suite', () => {
  it('loads without problems: Python and JavaScript tasks, each with a simulated model', () => {
    expect(problems).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(8);
    expect(tasks.filter((task) => task.test_cmd.startsWith('python3 -m unittest'))).toHaveLength(6);
    expect(tasks.filter((task) => /^node [\w.-]+\.test\.js$/.test(task.test_cmd)).length).toBeGreaterThanOrEqual(4);
    for (const task of tasks) expect(task.simulated?.kind, task.id).toBe('registry');
  });

  it("never shows a fix's reveal text in the files the model reads first, and every broken edit really is a syntax error", async () => {
    for (const task of tasks) {
      const simulation = task.simulated!.kind === 'registry' ? task.simulated!.simulation : null;
      for (const path of simulation!.inspect) {
        const source = readFileSync(join(task.repoDir, path), 'utf8');
        for (const fix of simulation!.fixes) if (fix.reveal) expect(source.includes(fix.reveal), `${task.id}: ${path} gives away "${fix.reveal}"`).toBe(false);
      }
      for (const fix of simulation!.fixes.filter((entry) => entry.broken !== undefined)) {
        const source = readFileSync(join(task.repoDir, fix.path), 'utf8').replace(fix.old, () => fix.broken!);
        expect((await checkSyntax(fix.path, source)).kind, `${task.id}: broken edit of ${fix.path}`).toBe('invalid');
      }
    }
  });

  it('ships every file its simulated models read, and every reveal text is somewhere in the repo the agent sees', async () => {
    for (const task of tasks) {
      const simulation = task.simulated!.kind === 'registry' ? task.simulated!.simulation : null;
      const dir = workspaceWith(task, []);
      try {
        let seen = '';
        for (const command of simulation!.flood) {
          const run = await runShell(command, { cwd: dir, timeoutS: 30, env: {}, sandbox: false, readable: [] });
          expect(run.exitCode, `${task.id}: "${command}" fails in a fresh copy of repo/ (is the file committed?)`).toBe(0);
          expect(run.output.length, `${task.id}: "${command}" is too small to flood the context`).toBeGreaterThan(3_000);
          seen += run.output;
        }
        for (const path of simulation!.inspect) seen += readFileSync(join(dir, path), 'utf8');
        seen += readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile() && /\.(js|py)$/.test(entry.name))
          .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
          .join('\n');
        for (const fix of simulation!.fixes)
          if (fix.reveal) expect(seen.includes(fix.reveal), `${task.id}: nothing the agent can see says "${fix.reveal}"`).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('is graded by its check: unsolved as shipped, solved with every fix, unsolved when a test-revealed or unplanned fix is missing', async () => {
    await Promise.all(
      tasks.map(async (task) => {
        const fixes = task.simulated!.kind === 'registry' ? task.simulated!.simulation.fixes : [];
        const dirs = [workspaceWith(task, []), workspaceWith(task, fixes)];
        try {
          expect(await exitOf(task.check_cmd, task, dirs[0]!), `${task.id} as shipped`).not.toBe(0);
          expect(await exitOf(task.check_cmd, task, dirs[1]!), `${task.id} with all fixes`).toBe(0);
          const unplanned = fixes.filter((fix) => !fix.needs_plan);
          if (unplanned.length < fixes.length) {
            dirs.push(workspaceWith(task, unplanned));
            // Visible tests first: the check copies its hidden tests into the workspace.
            expect(await exitOf(task.test_cmd, task, dirs[2]!), `${task.id}: visible tests pass without the planned fix`).toBe(0);
            expect(await exitOf(task.check_cmd, task, dirs[2]!), `${task.id} without the planned fix`).not.toBe(0);
          }
        } finally {
          for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
        }
      }),
    );
  }, 90_000);
});
