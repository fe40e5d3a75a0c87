import { accessSync, constants, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from 'rein/lib';
import { readRunMeta, runFile } from 'rein/run';
import { createAgentPages } from 'rein-visualizer/server/agent-pages.js';
import { followRun } from 'rein-visualizer/server/follow-run.js';
import { createLiveFeed } from 'rein-visualizer/server/live-feed.js';
import { exitSignal } from 'rein-visualizer/server/live-viz.js';
import { relatedRunPage } from 'rein-visualizer/server/related-runs.js';
import { renderReplayPage } from 'rein-visualizer/server/replay-page.js';
import { parsePort } from 'rein-visualizer/server/viz-flags.js';
import { startVizServer } from 'rein-visualizer/server/viz-server.js';
import { workspaceStepsOf } from 'rein-visualizer/server/workspace-steps.js';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

const VIZ_USAGE = `rein viz <trace.jsonl | run-dir> [--port N] [--out FILE] [--no-follow]

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
  if (parsed.values.help) {
    io.stdout.write(VIZ_USAGE + '\n');
    return EXIT.done;
  }
  const [file, ...extra] = parsed.positionals;
  if (!file) throw new UsageError(`rein viz: expected <trace.jsonl>\n\n${VIZ_USAGE}`);
  if (extra.length > 0) throw new UsageError(`rein viz: unexpected argument "${extra[0]}"`);
  const path = traceIn(resolve(file), file);
  const port = parsePort('rein viz', '--port', stringFlag(parsed, 'port'));
  const out = stringFlag(parsed, 'out');
  if (out !== undefined) checkWritable(out);
  const { html, trace, following } = await renderReplayPage(path, {
    follow: !out && parsed.values['no-follow'] !== true,
    // Served pages link to the run's delegated children (a --out file is one page: it has no server to ask).
    agentPages: out === undefined,
    check: (loaded) => {
      if (loaded.lines.length === 0)
        throw new UsageError(
          `rein viz: ${file} holds no trace lines (${statSync(path).size === 0 ? 'the file is empty' : 'none of it is JSON lines'}); nothing to show`,
        );
    },
  });
  for (const note of trace.notes) io.stderr.write(`rein viz: ${note.text}\n`);
  if (out !== undefined) {
    writeOut(out, html);
    io.stderr.write(`rein viz: wrote ${out} (${trace.lines.length} events; open it in a browser, no server needed)\n`);
    return EXIT.done;
  }
  const feed = following ? createLiveFeed() : undefined;
  const stopFollowing = feed ? followRun(path, { lines: trace.lines, from: trace.completeBytes, feed, say: (text) => io.stderr.write(text) }) : undefined;
  const agents = createAgentPages(runDirOf(trace.lines, path));
  const server = await startVizServer({
    port,
    page: () => html,
    agents,
    ...(feed ? { feed } : {}),
    workspace: () => workspaceStepsOf(dirname(path)),
    relatedPage: relatedRunPage(() => dirname(path)),
  });
  io.stderr.write(`rein viz: ${trace.lines.length} events from ${file}\n`);
  if (following)
    io.stderr.write(
      'rein viz: the run has no end line yet: following the trace, new events appear as it is written (a killed run writes none; --no-follow turns this off)\n',
    );
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

/** The run directory the trace's start line names (its children are under its `agents/`), else the trace's folder. */
function runDirOf(lines: unknown[], tracePath: string): string {
  const start = lines.find((line) => (line as { kind?: unknown } | null)?.kind === 'start') as { runDir?: unknown } | undefined;
  return typeof start?.runDir === 'string' && existsSync(start.runDir) ? start.runDir : dirname(tracePath);
}

/** `--out` must name a file in a directory that exists and can be written: checked before the page is built. */
function checkWritable(out: string): void {
  const path = resolve(out);
  if (out === '' || (existsSync(path) && statSync(path).isDirectory()))
    throw new UsageError(`rein viz: --out ${out} is a directory; give a file name, e.g. ${join(out || '.', 'run.html')}`);
  const dir = dirname(path);
  if (!existsSync(dir)) throw new UsageError(`rein viz: cannot write --out ${out}: the directory ${dir} does not exist`);
  try {
    accessSync(existsSync(path) ? path : dir, constants.W_OK);
  } catch {
    throw new UsageError(`rein viz: cannot write --out ${out}: ${existsSync(path) ? 'the file' : `the directory ${dir}`} is not writable`);
  }
}

function writeOut(out: string, html: string): void {
  try {
    writeFileSync(resolve(out), html);
  } catch (error) {
    throw new UsageError(`rein viz: cannot write --out ${out}: ${(error as Error).message}`);
  }
}
