import type { StatechartGraph } from './graph-types.js';

/**
 * What the server hands the page, and what the page receives live. Types
 * only: the page's bundle imports this file too.
 */

/** Something the reader should know about the data: a cut line, rules that did not parse. */
export interface PageNote {
  level: 'info' | 'warn';
  text: string;
}

/** The budget figures the gauges compare against. */
export interface GaugeLimits {
  maxSteps: number;
  stepWarnAt: number;
  maxSeconds: number;
  warnAt: number;
  windowTokens: number;
  soft: number;
  hard: number;
  maxTokens: number | null;
  maxCostUsd: number | null;
}

export interface PageData {
  /** `follow`: a trace file that has no end line yet, its new lines streamed as they are written. */
  mode: 'replay' | 'live' | 'follow';
  /** The trace file (replay, follow) or the run (live). */
  source: string;
  graph: StatechartGraph;
  limits: GaugeLimits;
  /** Trace lines as parsed; live pages receive theirs over `eventsUrl`. */
  lines: unknown[];
  notes: PageNote[];
  eventsUrl: string | null;
  /** Live runs: where the page answers a waiting call (with the tab's session: page-access.ts). */
  approval?: { url: string };
  /** The server also serves the pages of the run's delegated children (`agents/<dir>/`): the page links to them and back. */
  agentPages?: boolean;
  /** A replayed run's workspace snapshots (rein rewind, rein fork): each step's diff and the commands for it. */
  workspace?: WorkspaceSteps;
  /** A running run's: where the page fetches them again as steps are kept (a `WorkspaceSteps`, or null before the first). */
  workspaceUrl?: string;
  /** The step to open the page at (a link to a fork's origin opens it at the fork point). */
  startStep?: number;
}

/** Paths a diff added, modified and deleted (the first of each, `more` saying how many were left out). */
export interface DiffView {
  added: string[];
  modified: string[];
  deleted: string[];
  more: number;
}

/** The workspace of each kept step, for the page's step panel. */
export interface WorkspaceSteps {
  runDir: string;
  model: string;
  /** A fork's origin: its run directory, the step it branched at, and the command that opens its page. */
  forkOf?: { runDir: string; step: number; command: string };
  /** The forks `rein fork` made of this run: each one's run directory and the step it branched at. */
  forks?: Array<{ runDir: string; step: number }>;
  steps: Record<number, { state: string; sincePrevious: DiffView; sinceStart: DiffView }>;
}

/** A small, serializable view of one XState inspection event (never the context). */
export type InspectMessage =
  | { kind: 'snapshot'; actor: string; name: string; root: boolean; status: string; state?: string; step?: number; t: number }
  | { kind: 'event'; actor: string; name: string; root: boolean; type: string; source?: string; t: number }
  | { kind: 'actor'; actor: string; name: string; root: boolean; src?: string; t: number };

/** One message on the live stream; `seq` orders them and lets a reconnecting page skip what it has. */
export type LiveMessage =
  | { seq: number; type: 'trace'; line: Record<string, unknown> }
  | { seq: number; type: 'inspect'; event: InspectMessage }
  | { seq: number; type: 'closing' }
  /** `rein viz` stopped following a trace file: its run's process is gone (or the file was replaced). */
  | { seq: number; type: 'follow_end'; text: string };

export { TRACE_KINDS } from 'rein/formats';
