import type { McpHub } from '../../actors/mcp/hub.js';
import type { Rules } from '../../rules/schema.js';
import { createDelegateTool } from '../../tools/delegate.js';
import { looksLikePython } from '../../tools/edits/python-check.js';
import { resolvePython } from '../../tools/edits/python-interpreter.js';
import { createSyntaxChecker } from '../../tools/edits/syntax-check.js';
import { type FunctionToolSchema, toolSchemas } from '../../tools/index.js';
import { gitConfigPaths } from '../../tools/sandbox/plan/git-config-paths.js';
import type { RunSandbox } from '../../tools/sandbox/run-sandbox.js';
import { selectTools } from '../../tools/select-tools.js';
import type { AnyTool, DelegationPort, ToolContext } from '../../tools/types.js';
import type { ResourceStack } from '../resource-stack.js';
import type { RunOptions } from '../start-run.js';
import { policyOf } from './sandbox.js';

/** The tools of a run, in the order the model sees them, their schemas, and what every call gets. */
export interface Toolbox {
  /** rein's (and yours) the rules enable, then the MCP servers' tools; find_tools appends what it finds at the end. */
  tools: AnyTool[];
  schemas: FunctionToolSchema[];
  context: Omit<ToolContext, 'signal'>;
}

/**
 * The run's tools: the registry filtered by `tools.enabled`, the MCP servers' tools after them (or `find_tools` when
 * their definitions would take too much of the window), and the context each call runs in, with one warm syntax
 * checker for the run.
 *
 * @example const toolbox = assembleToolbox({ options, workspace, sandbox, mcp }, held);
 */
export function assembleToolbox(
  run: { options: RunOptions; workspace: string; sandbox: RunSandbox; mcp: McpHub | null; delegation?: DelegationPort | null },
  held: ResourceStack,
): Toolbox {
  const { rules } = run.options;
  const tools = selectTools(run.options.tools, rules.tools.enabled);
  // delegate comes after rein's own tools, when the rules declare agents and the depth allows a child (run/delegation/).
  if (run.delegation) tools.push(createDelegateTool(run.delegation));
  if (run.mcp)
    tools.push(
      ...run.mcp.tools(
        tools.map((tool) => tool.name),
        mcpToolBudget(rules),
      ),
    );
  const schemas = toolSchemas(tools);
  // find_tools appends definitions at the end of the list: the prefix the provider has cached stays as it was.
  run.mcp?.onAppend((added) => {
    tools.push(...added);
    schemas.push(...toolSchemas(added));
  });
  const context: Omit<ToolContext, 'signal'> = {
    root: run.workspace,
    limits: { outputChars: rules.tools.outputChars, viewLines: rules.tools.viewLines, maxHits: rules.tools.maxHits },
    policy: policyOf(rules),
    // The rules file this run was started with, wherever it lives: the agent must not rewrite what the next run imports.
    // And what the user's git configuration names in the workspace (husky's hooks): read-only in the sandbox as well.
    protectedFiles: [
      ...(run.options.configPath ? [run.options.configPath] : []),
      ...gitConfigPaths(run.workspace, run.options.env ?? process.env).map((entry) => entry.path),
    ],
    // Warm from the start in a Python workspace: the interpreter starts while the model thinks, not on the first edit;
    // and past a pyenv shim, whose bash scripts cost more than the interpreter's own start.
    syntax: held.own(
      'the syntax checker',
      createSyntaxChecker({ startPython: looksLikePython(run.workspace), python: resolvePython('python3', process.env, process.cwd()) }),
      (checker) => checker.close(),
    ),
    sandbox: run.sandbox,
    ...(run.delegation ? { delegation: run.delegation } : {}),
  };
  return { tools, schemas, context };
}

function mcpToolBudget(rules: Rules) {
  return { windowTokens: rules.context.windowTokens, charsPerToken: rules.context.charsPerToken, share: rules.mcp.toolSearchShare };
}
