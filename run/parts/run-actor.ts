import { type Actor, createActor } from 'xstate';
import type { ChatMessage } from '../../context/messages.js';
import type { HarnessMachine } from '../../machines/harness-machine.js';
import { isCheckpoint, stateLabel } from '../../machines/introspection.js';
import type { HarnessContext, HarnessInput } from '../../machines/types.js';
import { rememberedForRepository } from '../../rules/trust/index.js';
import { toolSchemasJson } from '../../tools/index.js';
import { describeLostJobs } from '../../tools/sandbox/jobs/job-lines.js';
import type { JobView } from '../../tools/sandbox/jobs/job-store.js';
import { readProgress } from '../../tools/update-todo.js';
import { createInspectionTracer } from '../record/inspection-trace.js';
import { runFile } from '../record/run-dir.js';
import { type SavedState, STATE_VERSION, saveState } from '../record/state-file.js';
import { checkRestorable } from '../record/state-migration.js';
import type { RunOptions } from '../start-run.js';
import type { ToolCallingMode } from './machine.js';
import type { RunFiles } from './run-files.js';
import type { Toolbox } from './toolbox.js';

export type HarnessActor = Actor<HarnessMachine>;

/** The run's root actor, the trace of its transitions, and the jobs an earlier process of this run left (they died with it). */
export interface RunActor {
  actor: HarnessActor;
  tracer: ReturnType<typeof createInspectionTracer>;
  lostJobs: JobView[];
}

interface RunActorParts {
  options: RunOptions;
  saved: SavedState | null;
  workspace: string;
  machine: HarnessMachine;
  files: RunFiles;
  toolbox: Toolbox;
  mode: ToolCallingMode;
  lostJobs: JobView[];
}

/**
 * The actor, restored from the saved snapshot on resume, its record appended to as it runs, and its state saved at
 * every checkpoint (`act`, `awaitingApproval`) and at its end: the save is in the same macrostep as the transition
 * into the checkpoint, before any actor it starts can act.
 *
 * @example const { actor, tracer } = createRunActor({ options, saved, workspace, machine, files, toolbox, mode, lostJobs });
 */
export function createRunActor(parts: RunActorParts): RunActor {
  const { options, saved, machine, files } = parts;
  const input = harnessInput(parts);
  if (saved) checkRestorable(machine, (saved.snapshot as { value?: unknown }).value, runFile(options.runDir, 'state'));
  const restored = saved
    ? restoreSnapshot(saved, describeLostJobs(parts.lostJobs), input.rememberedApprovals ?? [], () => callIdsOf(files.transcript.slice(0, saved.recordLength)))
    : undefined;
  const tracer = createInspectionTracer(files.trace, {
    label: restored ? stateLabel(restored.value as never) : '',
    step: restored?.context.step ?? 0,
    ...(options.inspect ? { forward: options.inspect } : {}),
  });
  const actor = createActor(machine, {
    input,
    inspect: tracer.inspect,
    // A persisted snapshot read from disk: XState types the option by the machine's own snapshot type.
    ...(restored ? { snapshot: restored as never } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  actor.on('record.append', (event) => files.transcript.append(event.messages));
  const stateNow = currentState(parts, actor);
  // A snapshot's copy of the state needs no fsync of its own: the checkpoint's save makes the record durable.
  const snapshotState = () => stateNow({ sync: false });
  actor.subscribe({
    // The end of each machine step: write what it logged, and save the state at checkpoints.
    next: (snapshot) => {
      files.trace.flush();
      files.transcript.flush();
      if (options.saveState !== false && (isCheckpoint(snapshot) || snapshot.status === 'done'))
        saveState(runFile(options.runDir, 'state'), stateNow({ sync: true }), { fsync: options.fsync === true });
      files.snapshots.onStep(snapshot, snapshotState);
    },
    error: () => undefined,
  });
  return { actor, tracer, lostJobs: parts.lostJobs };
}

function harnessInput({ options, workspace, files, toolbox }: RunActorParts): HarnessInput {
  return {
    task: options.task,
    testCmd: options.testCmd,
    model: options.model.name,
    todo: readProgress(workspace) ?? [],
    ...(files.instructions ? { repositoryInstructions: files.instructions.text } : {}),
    overheadTokens: Math.ceil(toolSchemasJson(toolbox.tools).length / options.rules.context.charsPerToken) + 8,
    rememberedApprovals: rememberedForRepository(workspace),
  };
}

/**
 * The actor's state as `state.json` holds it (written, renamed: atomic, and in the kernel before the next action, so
 * kill -9 loses nothing); with `fsync`, the record and the journal reach the disk before a state that points past their ends could.
 */
function currentState({ options, saved, files, mode }: RunActorParts, actor: HarnessActor): (how: { sync: boolean }) => SavedState {
  const startedAt = Date.now();
  return ({ sync }) => {
    if (sync && options.fsync === true) {
      files.transcript.sync();
      files.journal.sync();
    }
    // getPersistedSnapshot() is typed as a generic Snapshot; the harness context is in it.
    const whole = actor.getPersistedSnapshot() as unknown as { context: HarnessContext };
    // Every call id of the run is in the record up to recordLength, where a restore reads them again: kept in the
    // state too, they made each step's save (and snapshot) grow with the run's length.
    const { callIds: _inTheRecord, ...context } = whole.context;
    const persisted = { ...whole, context };
    return {
      version: STATE_VERSION,
      savedAt: new Date().toISOString(),
      elapsedMs: (saved?.elapsedMs ?? 0) + (Date.now() - startedAt),
      recordLength: persisted.context.recordLength,
      traceIndex: files.nextIndex(),
      snapshot: persisted,
      ...(mode.prompted ? { toolCalling: 'prompted' as const } : {}),
    };
  };
}

/**
 * The saved snapshot with the elapsed time written into the context, so the clock re-arms with what is left; `notices`
 * are queued for the model; the repository's remembered approvals are read afresh (a person may have edited the trust store).
 */
function restoreSnapshot(saved: SavedState, notices: string[], repository: HarnessContext['approvals']['remembered'], recordedCallIds: () => string[]) {
  const snapshot = saved.snapshot as { value: unknown; context: HarnessContext };
  const { approvals } = snapshot.context;
  const remembered = [...repository, ...approvals.remembered.filter((entry) => entry.scope !== 'repository')];
  return {
    ...snapshot,
    context: {
      ...snapshot.context,
      // States saved before the ids were left to the record still carry them.
      callIds: snapshot.context.callIds ?? recordedCallIds(),
      elapsedMs: saved.elapsedMs,
      notices: [...snapshot.context.notices, ...notices],
      approvals: { ...approvals, remembered },
    },
  };
}

/** The ids of the tool calls in these messages, in order. */
function callIdsOf(messages: readonly ChatMessage[]): string[] {
  return messages.flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : []));
}
