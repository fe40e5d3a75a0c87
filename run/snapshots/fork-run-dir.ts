import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../lib/errors.js';
import type { Rules } from '../../rules/schema.js';
import type { RulesFingerprint } from '../../rules/trust/index.js';
import { readJsonLines } from '../record/jsonl.js';
import { type RunMeta, runFile, traceFileOf, writeRunMeta } from '../record/run-dir.js';
import { appendSnapshotIndex, type StepSnapshot } from '../record/snapshot-index.js';
import { type SavedState, saveState } from '../record/state-file.js';
import { keepJournalUpTo } from './rewind.js';
import type { SnapshotRun } from './step-snapshots.js';

/** What a fork changes from its origin; everything else (task, test command) is the origin's. */
interface ForkChanges {
  workspace: string;
  model?: string;
  baseURL?: string;
  rules?: Rules;
  configPath?: string;
  configFingerprint?: RulesFingerprint;
}

/**
 * Makes a fork's run directory from the origin's state at a step, ready for `rein resume`: run.json (the origin's,
 * with the fork's changes and `forkOf`), the record and the call journal up to the step, the trace up to it (so the
 * page and ATIF show the shared history), the step's chart state (its facts, budgets spent and elapsed time: the
 * fork's budget starts from the origin's usage at that step) and the snapshots up to it.
 *
 * @example writeForkRunDir({ run, target, chart, forkDir, changes: { workspace, model: 'other' } });
 */
export function writeForkRunDir(fork: { run: SnapshotRun; target: StepSnapshot; chart: SavedState; forkDir: string; changes: ForkChanges }): void {
  const { run, target, chart, forkDir, changes } = fork;
  if (existsSync(forkDir)) throw new UsageError(`${forkDir} already exists`);
  mkdirSync(forkDir, { recursive: true });
  const { version: _version, createdAt: _createdAt, tracePath: _tracePath, ...origin } = run.meta;
  const meta: Omit<RunMeta, 'version' | 'createdAt'> = {
    ...origin,
    workspace: changes.workspace,
    ...(changes.model ? { model: changes.model } : {}),
    ...(changes.baseURL ? { baseURL: changes.baseURL } : {}),
    ...(changes.rules ? { rules: changes.rules } : {}),
    ...(changes.configPath ? { configPath: changes.configPath, configFingerprint: changes.configFingerprint } : {}),
    forkOf: { runDir: run.runDir, step: target.step },
  };
  writeRunMeta(forkDir, meta);
  writeFileSync(runFile(forkDir, 'record'), firstLines(runFile(run.runDir, 'record'), chart.recordLength));
  keepJournalUpTo(run.runDir, target.step, forkDir);
  writeFileSync(runFile(forkDir, 'trace'), traceUpTo(traceFileOf(run.runDir, run.meta), chart.traceIndex));
  saveState(runFile(forkDir, 'state'), { ...chart, forkOf: { runDir: run.runDir, step: target.step } });
  const position = run.index.lastIndexOf(target);
  for (const line of run.index.slice(0, position + 1)) if (line.kind === 'step' && line.step <= target.step) appendSnapshotIndex(forkDir, line);
  // The origin lists its forks (its page links to them); one short line, appended last, so a half-made fork is not listed.
  appendFileSync(join(run.runDir, FORKS_FILE), `${JSON.stringify({ runDir: forkDir, step: target.step, at: new Date().toISOString() })}\n`);
}

/** The origin's list of its forks, one JSON line each (`rein fork` appends). */
const FORKS_FILE = 'forks.jsonl';

/**
 * The forks `rein fork` made of a run, oldest first: each one's run directory and the step it branched at. A fork
 * whose run directory is gone is left out, and so is a line that is not one (the file is read as hostile).
 *
 * @example for (const fork of forksOf(runDir)) console.log(fork.runDir, fork.step);
 */
export function forksOf(runDir: string): Array<{ runDir: string; step: number }> {
  const out: Array<{ runDir: string; step: number }> = [];
  for (const value of readJsonLines<Record<string, unknown>>(join(runDir, FORKS_FILE)).values) {
    const { runDir: dir, step } = value ?? {};
    if (typeof dir !== 'string' || !Number.isInteger(step) || (step as number) < 0 || !existsSync(runFile(dir, 'meta'))) continue;
    if (!out.some((fork) => fork.runDir === dir)) out.push({ runDir: dir, step: step as number });
  }
  return out;
}

function firstLines(path: string, count: number): string {
  if (!existsSync(path)) return '';
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean).slice(0, count);
  return lines.map((line) => `${line}\n`).join('');
}

/** The origin's trace lines numbered below `index`: what had happened when the step's state was saved. */
function traceUpTo(path: string, index: number): string {
  if (!existsSync(path)) return '';
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => {
      const found = /^\{"i":(\d+)/.exec(line);
      return found !== null && Number(found[1]) < index;
    })
    .map((line) => `${line}\n`)
    .join('');
}
