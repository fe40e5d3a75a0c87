import type { z } from 'zod';
import type { ToolOutcome } from '../lib/tool-effect.js';
import type { CommandPolicy } from '../rules/command-policy.js';
import type { SyntaxChecker } from './edits/syntax-check.js';
import type { RunSandbox } from './sandbox/run-sandbox.js';

export type { JobEffect, TodoItem, ToolEffect, ToolOutcome } from '../lib/tool-effect.js';
export type { CommandPolicy } from '../rules/command-policy.js';

/** Limits on what one observation may put into the context (seed component 2). */
export interface ObservationLimits {
  /** Head+tail cap on `run` output, in characters. */
  outputChars: number;
  /** Lines shown by one `read_file` call. */
  viewLines: number;
  /** Most `grep` hits shown before asking for a narrower pattern. */
  maxHits: number;
}

/** Everything a tool may touch. Built once per run by the harness. */
export interface ToolContext {
  /** Absolute, symlink-resolved workspace root. */
  root: string;
  /** Aborted when the harness leaves the state that invoked the tool (time budget, shutdown). */
  signal: AbortSignal;
  limits: ObservationLimits;
  policy: CommandPolicy;
  /** More files the agent must not change (a `--config` rules file inside the workspace), absolute paths. */
  protectedFiles?: readonly string[];
  /** The run's warm syntax checker; without one, each Python check starts python3 for itself. */
  syntax?: SyntaxChecker;
  /**
   * The run's warm sandbox (commands and background jobs), created at run start and disposed at its end.
   * Without one, `run` starts a fresh sandbox per command and background jobs are refused.
   */
  sandbox?: RunSandbox;
  /** A person allowed this very call (terminal, page, rein approve, a remembered decision): the deny list's overridable built-ins let it run. */
  approvedByPerson?: boolean;
  /** The call being run: its id, and its place in the run (`step:index`), the same after a resume. */
  call?: { id: string; key: string };
  /** The run's children, when its rules declare agents and its depth allows more (tools/delegate.ts). */
  delegation?: DelegationPort;
}

/** One task handed to a named agent. */
export interface DelegatedTask {
  agent: string;
  task: string;
}

/** What the `delegate` tool asks of the run: start children (or, after a resume, continue them) and report. */
export interface DelegationPort {
  agents: ReadonlyArray<{ name: string; description: string; readOnly: boolean }>;
  maxParallel: number;
  run(tasks: readonly DelegatedTask[], call: { id: string; key: string }, signal: AbortSignal, mode: { resume: boolean }): Promise<ToolOutcome>;
}

/** A tool in the openai-agents `tool()` shape: a zod schema and an execute function. */
export interface Tool<Schema extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  parameters: Schema;
  execute(args: z.infer<Schema>, ctx: ToolContext): Promise<ToolOutcome>;
  /**
   * For a call that a stopped or killed run had started but not journaled:
   * the outcome to report instead of running it again (its effect is already
   * in place, or it may have partly happened), or null to run it again.
   */
  recover?(args: z.infer<Schema>, ctx: ToolContext): Promise<ToolOutcome | null>;
  /**
   * The phases the tool belongs in (`['fix']` for a linter that fixes): it is offered there only. The rules decide
   * over it: `tools.phases.<name>` places it elsewhere, and a phase whose `tools` names it offers it too.
   */
  phases?: readonly string[];
}

/** A tool with its argument type erased, as stored in a registry. */
export type AnyTool = Tool<z.ZodObject>;
