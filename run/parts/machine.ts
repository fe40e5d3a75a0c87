import { createApprover } from '../../actors/approvals/approver.js';
import { createContextManagerActor } from '../../actors/context-manager-actor.js';
import { createHooksActor } from '../../actors/hooks/hooks-actor.js';
import { createSummarizer } from '../../actors/summarizer.js';
import { createToolRunner } from '../../actors/tool-runner.js';
import { ViewBuilder } from '../../context/view-builder.js';
import { harnessMachineFor } from '../machine-cache.js';
import { traceTool } from '../record/inspection-trace.js';
import { runFile } from '../record/run-dir.js';
import type { RunOptions } from '../start-run.js';
import { hooksDepsFor } from './hooks-deps.js';
import type { RunFiles } from './run-files.js';
import type { Toolbox } from './toolbox.js';

/** Whether the model actor has switched to prompted tool calling: saved with the state, so a resumed run goes on in the mode it had. */
export class ToolCallingMode {
  constructor(public prompted: boolean) {}
}

/**
 * The harness machine for these rules with the run's actors provided: the model, the tool runner (journaled, traced,
 * secrets masked), the hooks, the context manager, the summarizer and the approver. Tests provide scripted ones instead.
 *
 * @example const machine = provideActors({ options, workspace, files, toolbox, mode });
 */
export function provideActors(run: { options: RunOptions; workspace: string; files: RunFiles; toolbox: Toolbox; mode: ToolCallingMode }) {
  const { options, files, toolbox, mode } = run;
  const { rules } = options;
  const { trace, transcript } = files;
  const builder = new ViewBuilder();
  const record = () => transcript;
  return harnessMachineFor(rules, {
    guards: options.guards,
    actions: options.actions,
    ...(options.configPath ? { source: options.configPath } : {}),
  }).provide({
    actors: {
      // The model source's actor logic is typed by the source; the machine's slot wants its own placeholder's type.
      model: options.model.createActor(toolbox.schemas, {
        note: ({ kind, ...data }) => {
          if (kind === 'tool_calling') mode.prompted = true;
          trace.log(kind, data as never);
        },
        toolCalling: mode.prompted ? 'prompted' : rules.model.toolCalling,
        recoverToolCalls: rules.model.recoverToolCalls,
        repairArguments: rules.model.repairArguments,
        toolCallIds: rules.model.toolCallIds,
      }) as never,
      // A call's trace line is written with its journal entry: a resumed run reuses the result without tracing it again.
      tools: createToolRunner({
        tools: toolbox.tools,
        toolContext: toolbox.context,
        journal: files.journal,
        maxCallsPerReply: rules.tools.maxCallsPerReply,
        // The last step's workspace snapshot is indexed before a command can change the workspace again.
        ready: files.snapshots.settled,
        secrets: options.secrets ?? [],
        onResult: (result, step) => {
          traceTool(trace, result, step);
          trace.flush();
        },
        onSecretsMasked: (findings, call, step) => trace.log('secrets_masked', { step, id: call.id, name: call.name, findings }),
      }),
      hooks: createHooksActor({ ...hooksDepsFor(options, run.workspace, trace), ready: files.snapshots.settled }),
      contextManager: createContextManagerActor({ record, builder, rules: rules.context }),
      summarizer: createSummarizer({
        record,
        builder,
        prompt: rules.messages.summaryPrompt,
        summarize: options.model.summarize,
        windowTokens: rules.context.windowTokens,
      }),
      approver: createApprover({
        requestPath: runFile(options.runDir, 'approvalRequest'),
        answerPath: runFile(options.runDir, 'approvalAnswer'),
        sources: options.answerSources ?? [],
        headless: rules.approvals.headless,
        repository: run.workspace,
        ...(options.approvalPollMs ? { pollMs: options.approvalPollMs } : {}),
      }),
    },
  });
}
