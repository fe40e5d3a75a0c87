import { z } from 'zod';
import type { AnyTool, DelegationPort, Tool, ToolContext, ToolOutcome } from './types.js';

/** Tasks one delegate call may hand out; more wait for a free place (`delegation.maxParallel` run at once). */
const MAX_TASKS = 8;

function parametersFor(names: readonly [string, ...string[]]) {
  return z
    .object({
      tasks: z
        .array(
          z
            .object({
              agent: z.enum(names).describe('Which agent'),
              task: z.string().min(1).max(20_000).describe('What it should do, with everything it needs to know: it sees nothing of this conversation'),
            })
            .strict(),
        )
        .min(1)
        .max(MAX_TASKS)
        .describe('One task per agent run; several run side by side'),
    })
    .strict();
}

/**
 * `delegate`: hands tasks to the agents the rules declare. Each runs as a child harness with its own chart and a budget
 * carved from what this run has left; every step and token it spends counts against this run's budget too. The result
 * is each child's report, or why it stopped (a budget it used up, with what it found). Built per run, since its
 * description lists the run's agents; offered only when the rules declare agents and the depth allows another level.
 *
 * @example createDelegateTool(port).execute({ tasks: [{ agent: 'explorer', task: 'Find where mean() is defined.' }] }, ctx)
 */
export function createDelegateTool(port: DelegationPort): AnyTool {
  const names = port.agents.map((agent) => agent.name);
  const [first, ...rest] = names;
  if (first === undefined) throw new Error('createDelegateTool: the rules declare no agents');
  const parameters = parametersFor([first, ...rest]);
  const list = port.agents.map((agent) => `- ${agent.name}${agent.readOnly ? ' (read-only)' : ''}: ${agent.description}`).join('\n');
  const tool: Tool<typeof parameters> = {
    name: 'delegate',
    description: `Hand tasks to other agents, each working on its own in the same workspace with a budget carved from yours (what they spend counts against your budget). Up to ${port.maxParallel} run at once. You get each one's report. Agents:\n${list}`,
    parameters,
    execute: (args, context) => runTasks(args.tasks, context, false),
    // A delegate call a killed run had started: its children continue from where they were saved, never from the start.
    recover: (args, context) => runTasks(args.tasks, context, true),
  };
  return tool as unknown as AnyTool;
}

async function runTasks(tasks: Array<{ agent: string; task: string }>, context: ToolContext, resume: boolean): Promise<ToolOutcome> {
  if (!context.delegation || !context.call) return { content: 'Tool error: delegation is not available in this run.', ok: false, effect: { kind: 'none' } };
  return context.delegation.run(tasks, context.call, context.signal, { resume });
}
