import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve, sep } from 'node:path';
import type { TraceRecord as TraceLine } from 'rein/formats';
import { runFile } from 'rein/run';
import { str } from './line-fields.js';
import { parseTrace } from './trace-text.js';

/** A delegated child as its parent's `agent` line names it: what its spans carry of it and of its parent. */
export interface ChildLink {
  agent: string;
  /** The child's id in its parent: `<step>:<call>:<task>`. */
  child: string;
  /** The parent's `delegate` call that started it. */
  callId: string;
  depth: number;
  runDir: string;
}

/** The child an `agent` start or resume line names, or null for another line or one missing a field. */
export function childLinkOf(line: TraceLine): ChildLink | null {
  if (line.kind !== 'agent' || (line.event !== 'start' && line.event !== 'resume')) return null;
  const [agent, child, callId, runDir] = [str(line.agent), str(line.child), str(line.callId), str(line.runDir)];
  if (!agent || !child || !callId || !runDir) return null;
  return { agent, child, callId, runDir, depth: typeof line.depth === 'number' ? line.depth : 1 };
}

/**
 * A child's trace lines, read from its run directory; null when it has none. Only a directory under the parent's
 * own `agents/` folder is read (the parent's run directory when known, else any `…/agents/<dir>`), so a trace line
 * cannot make the export read another file.
 *
 * @example readChildTrace('/runs/r1', link)?.length // 24
 */
export function readChildTrace(parentRunDir: string | undefined, link: ChildLink, redact: (text: string) => string = (text) => text): TraceLine[] | null {
  const dir = resolve(link.runDir);
  const inside = parentRunDir ? dir.startsWith(`${resolve(parentRunDir, 'agents')}${sep}`) : basename(dirname(dir)) === 'agents';
  const path = runFile(dir, 'trace');
  if (!inside || !existsSync(path)) return null;
  // A cut last line of a killed child is skipped: the lines before it still map.
  return parseTrace(redact(readFileSync(path, 'utf8'))).lines;
}
