import { thisTraceWriter } from '../../lib/trace/trace-writer.js';
import type { RunSandbox } from '../../tools/sandbox/run-sandbox.js';
import { writeRunMeta } from '../record/run-dir.js';
import type { SavedState } from '../record/state-file.js';
import { TRACE_VERSION } from '../record/trace.js';
import type { RunOptions } from '../start-run.js';
import type { RunFiles } from './run-files.js';
import type { Toolbox } from './toolbox.js';

/**
 * The trace's first lines for a new run: `start` (and run.json beside it), the repository's instructions that were
 * read; or, for a run killed before its first step was saved, a `resume` line that says it starts over. A resumed run's
 * `resume` line is written when it starts (run-to-end.ts).
 *
 * @example writeStartLines({ options, saved, workspace, sandbox, files, toolbox });
 */
export function writeStartLines(run: {
  options: RunOptions;
  saved: SavedState | null;
  workspace: string;
  sandbox: RunSandbox;
  files: RunFiles;
  toolbox: Toolbox;
}): void {
  const { options, files } = run;
  const { trace } = files;
  if (run.saved) return;
  if (files.firstIndex > 0) {
    trace.log('resume', {
      fromState: 'start',
      recordLength: 0,
      elapsedMs: 0,
      note: 'killed before the first step was saved; starting over',
      ...thisTraceWriter(),
    });
    return;
  }
  writeRunMeta(options.runDir, {
    workspace: run.workspace,
    task: options.task,
    testCmd: options.testCmd,
    model: options.model.name,
    rules: options.rules,
    ...(options.model.baseURL ? { baseURL: options.model.baseURL } : {}),
    ...(options.configPath ? { configPath: options.configPath } : {}),
    ...(options.configFingerprint ? { configFingerprint: options.configFingerprint } : {}),
    ...(options.tracePath ? { tracePath: files.tracePath } : {}),
  });
  trace.log('start', {
    version: TRACE_VERSION,
    task: options.task,
    testCmd: options.testCmd,
    model: options.model.name,
    endpoint: options.model.description,
    workspace: run.workspace,
    runDir: options.runDir,
    sandbox: run.sandbox.description,
    visibility: run.sandbox.visibility,
    tools: run.toolbox.tools.map((tool) => tool.name),
    rules: options.rules,
    // A delegated child's trace names its parent: the run, the delegate call, the agent and the depth.
    ...(options.agentLink ? { parent: options.agentLink } : {}),
    ...(options.rulesSources ? { rulesFrom: options.rulesSources } : {}),
    ...thisTraceWriter(),
  });
  if (files.instructions) {
    const { text: _text, ...read } = files.instructions;
    trace.log('repository_instructions', read);
  }
}
