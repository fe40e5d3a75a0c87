import { mkdirSync } from 'node:fs';
import type { TraceLine } from '../../lib/trace/trace-events.js';
import { openCallJournal } from '../record/call-journal.js';
import { runFile } from '../record/run-dir.js';
import type { SavedState } from '../record/state-file.js';
import { lastTraceState, nextTraceIndex, openTracer, type Tracer } from '../record/trace.js';
import { Transcript } from '../record/transcript.js';
import { readRepositoryInstructions } from '../repository-instructions.js';
import type { ResourceStack } from '../resource-stack.js';
import type { RunOptions } from '../start-run.js';
import { type WorkspaceSnapshots, workspaceSnapshots } from './workspace-snapshots.js';

/** The run directory's files, each released (closed) with the run. */
export interface RunFiles {
  trace: Tracer;
  tracePath: string;
  /** The first line this process writes: after a killed process's lines, which stay. */
  firstIndex: number;
  /** On resume: the state the stopped process's trace had reached. */
  stoppedIn: string | null;
  /** The index the next trace line gets (saved with the state, so a resumed run numbers on). */
  nextIndex(): number;
  transcript: Transcript;
  journal: ReturnType<typeof openCallJournal>;
  /** The repository's instructions (AGENTS.md), read once for a new run: a resumed run's record already holds them. */
  instructions: ReturnType<typeof readRepositoryInstructions>;
  /** The step snapshots (`snapshots.jsonl` and the store), scanned while the run waits for the model; closed before the trace. */
  snapshots: WorkspaceSnapshots;
}

/**
 * Opens the trace (redacting `secrets` from every line), the record and the call journal, and reads the repository's
 * instructions; each is registered in `held` as it opens.
 *
 * @example const files = openRunFiles({ options, saved, workspace, secrets }, held);
 */
export function openRunFiles(
  run: { options: RunOptions; saved: SavedState | null; workspace: string; secrets: readonly string[] },
  held: ResourceStack,
): RunFiles {
  const { options, saved } = run;
  mkdirSync(options.runDir, { recursive: true });
  const tracePath = options.tracePath ?? runFile(options.runDir, 'trace');
  const firstIndex = nextTraceIndex(tracePath);
  const stoppedIn = saved ? lastTraceState(tracePath) : null;
  let next = firstIndex;
  const onLine = (line: TraceLine, text: string) => {
    next = line.i + 1;
    options.onTrace?.(line);
    options.onTraceLine?.(text);
  };
  const trace = held.own('the trace', openTracer(tracePath, [...run.secrets], { firstIndex, onLine }), (tracer) => tracer.close());
  const recordPath = runFile(options.runDir, 'record');
  const transcript = held.own('the record', saved ? Transcript.resume(recordPath, saved.recordLength) : new Transcript(recordPath), (record) => record.close());
  const journal = held.own('the call journal', openCallJournal(runFile(options.runDir, 'journal')), (calls) => calls.close());
  const { repositoryInstructions: wanted } = options.rules;
  const instructions = !saved && wanted.enabled ? readRepositoryInstructions(run.workspace, wanted) : null;
  const snapshots = held.own('the workspace snapshots', workspaceSnapshots({ options, workspace: run.workspace }), (taken) => taken.close());
  return { trace, tracePath, firstIndex, stoppedIn, nextIndex: () => next, transcript, journal, instructions, snapshots };
}
