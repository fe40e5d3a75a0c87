import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import type { TraceRecord } from 'rein/formats';

/**
 * The ATIF `session_id` of a run: a UUID derived from its start line (when it
 * started, where its files went, the process and host that wrote it, the
 * task), so every run has its own even when run directories share a name
 * (Harbor's are all `/logs/agent/rein-run`), and exporting the same run again
 * gives the same id. A UUID because Harbor reuses a trajectory's session id
 * only when it is one (`BaseInstalledAgent._atif_session_id`). A trace cut
 * before its start line falls back to its first line and the path it was read from.
 *
 * @example sessionIdOf(lines, '/logs/agent/rein-run/trace.jsonl') // '3f1c…-…'
 */
export function sessionIdOf(lines: readonly TraceRecord[], tracePath: string): string {
  const start = lines.find((line) => line.kind === 'start');
  const identity = start
    ? [start.t, start.runDir, start.workspace, start.pid, start.host, start.task]
    : [tracePath, lines[0]?.t, lines[0]?.pid, lines[0]?.host];
  const hex = createHash('sha256').update(JSON.stringify(identity)).digest('hex');
  // RFC 9562's layout for a name-derived UUID: version nibble 8 (custom), variant bits 10.
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The session id of the run a trace file holds, from its start line (for a resumed run's live export, whose own
 * stream has no start line); undefined when there is no such file or line yet.
 *
 * @example sessionIdOfTrace('.rein/runs/20260101T000000Z-ab12/trace.jsonl')
 */
export function sessionIdOfTrace(tracePath: string): string | undefined {
  if (!existsSync(tracePath)) return undefined;
  // The start line is among the first lines (after the MCP servers' start): the head of the file is enough.
  const head = readHead(tracePath, 1 << 20);
  for (const text of head.split('\n')) {
    try {
      const line = JSON.parse(text) as TraceRecord;
      if (line.kind === 'start') return sessionIdOf([line], tracePath);
    } catch {
      // a cut or damaged line
    }
  }
  return undefined;
}

function readHead(path: string, bytes: number): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
