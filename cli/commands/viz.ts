import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../../lib/errors.js';
import { parseCommand, stringFlag, type FlagSpec } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { exitSignal } from '../../visualizer/server/live-viz.js';
import { parsePort } from '../../visualizer/server/viz-flags.js';
import { renderReplayPage } from '../../visualizer/server/replay-page.js';
import { startVizServer } from '../../visualizer/server/viz-server.js';
import { createLiveFeed } from '../../visualizer/server/live-feed.js';
import { followTraceFile } from '../../visualizer/server/trace-follow.js';
import { readRunMeta, runFile } from '../../run/run-dir.js';

export const VIZ_USAGE = `rein viz <trace.jsonl | run-dir> [--port N] [--out FILE] [--no-follow]

Opens a run's trace in the visualizer: the statechart drawn from the run's
rules, a timeline scrubber that moves the highlight through it, every model
call, tool call, gate decision, stall nudge and context action, and gauges
for steps, time, context and tokens. Works on finished and killed runs, and
on a run still going: a trace with no end line yet is followed, its new
events appearing as the run writes them.

  --port N      serve on http://127.0.0.1:N/ (default: any free port)
  --out FILE    write one self-contained HTML file instead (opens from disk, no network)
  --no-follow   show the trace as it is now, even if its run has not ended`;

const VIZ_FLAGS: FlagSpec = { port: { type: 'string' }, out: { type: 'string' }, 'no-follow': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };

export async function vizCommand(argv: string[], io: Io, _env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommand('rein viz', argv, VIZ_FLAGS);
  if (parsed.values.help) { io.stdout.write(VIZ_USAGE + '\n'); return EXIT.done; }
  const [file, ...extra] = parsed.positionals;
  if (!file) throw new UsageError(`rein viz: expected <trace.jsonl>\n\n${VIZ_USAGE}`);
  if (extra.length > 0) throw new UsageError(`rein viz: unexpected argument "${extra[0]}"`);
  const path = traceIn(resolve(file), file);
  const port = parsePort('rein viz', '--port', stringFlag(parsed, 'port'));
  const out = stringFlag(parsed, 'out');
  const { html, trace, following } = await renderReplayPage(path, { follow: !out && parsed.values['no-follow'] !== true });
  for (const note of trace.notes) io.stderr.write(`rein viz: ${note.text}\n`);
  if (trace.lines.length === 0 && statSync(path).size > 0) throw new UsageError(`rein viz: ${file} holds no trace lines (none of it is JSON lines); nothing to show`);
  if (out) {
    writeFileSync(resolve(out), html);
    io.stderr.write(`rein viz: wrote ${out} (${trace.lines.length} events; open it in a browser, no server needed)\n`);
    return EXIT.done;
  }
  const feed = following ? createLiveFeed() : undefined;
  const stopFollowing = feed ? followTraceFile(path, trace.completeBytes, (line) => sayWhenEnded(feed.traceLine(line), io), {
    onReset: () => io.stderr.write('rein viz: the trace file got shorter (replaced?); no longer following it\n'),
  }) : undefined;
  const server = await startVizServer({ port, page: () => html, ...(feed ? { feed } : {}) });
  io.stderr.write(`rein viz: ${trace.lines.length} events from ${file}\n`);
  if (following) io.stderr.write('rein viz: the run has no end line yet: following the trace, new events appear as it is written (a killed run writes none; --no-follow turns this off)\n');
  io.stderr.write(`rein viz: open ${server.url}   (press Ctrl+C to exit)\n`);
  await exitSignal();
  stopFollowing?.();
  await server.close();
  return EXIT.done;
}

/** The trace file itself, or the trace of a run directory (as `rein resume` takes it). */
function traceIn(path: string, given: string): string {
  if (!existsSync(path)) throw new UsageError(`rein viz: trace not found: ${given}`);
  if (statSync(path).isFile()) return path;
  if (existsSync(runFile(path, 'meta'))) {
    try {
      const { tracePath } = readRunMeta(path);
      if (typeof tracePath === 'string' && existsSync(tracePath)) return tracePath;
    } catch {
      // a damaged run.json: the trace beside it may still be there
    }
  }
  const beside = runFile(path, 'trace');
  if (existsSync(beside)) return beside;
  throw new UsageError(`rein viz: ${given} is a directory without a trace (expected a trace.jsonl file or a run directory)`);
}

/** A followed run that ends is said so on the terminal too. */
function sayWhenEnded(line: Record<string, unknown> | null, io: Io): void {
  if (line?.kind === 'end') io.stderr.write(`rein viz: the run ended (${String(line.status)})\n`);
}
