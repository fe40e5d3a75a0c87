import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { didYouMean, indentedLines, ModelEndpointError, parseSchemasWithoutCompiling, ReinError, UsageError } from 'rein/lib';
import type { Io } from './execute-run.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { terminalSafeIo } from './safe-io.js';

const USAGE = `rein: an agent harness built as an explicit statechart

  rein demo                         offline demo: every phase on a small buggy repo, no API key
  rein run <repo> "<task>" --test-cmd "<cmd>" [--model M]   run against an OpenAI-compatible endpoint
  rein resume <run-dir>             continue a killed run from its last saved step
  rein rewind <run-dir> --to N      put the workspace and the chart back as they were after step N (--out DIR: elsewhere)
  rein fork <run-dir> --at N        branch a new run from step N (--model M, --config F, --base-url U)
  rein snapshots gc                 free the space of workspace snapshots no kept run needs (--keep-days N)
  rein approve <run-dir> [--deny]   answer the tool call a run is waiting on (--message M, --remember SCOPE)
  rein rules show|graph|coverage    the effective rules, the statechart they build, its transition coverage
  rein trust [<repo>]               after reviewing it: let rein load a repository's own rules file (--list, --revoke)
  rein viz <trace.jsonl>            replay a run in the visualizer (--out run.html for one offline file)
  rein trace export <trace.jsonl>   send a run's trace to an OpenTelemetry collector as GenAI spans
  rein eval <tasks> --preset A --preset B    run a task set under several configurations
  rein compare <A> <B>              paired comparison of two eval results (exact McNemar)
  rein replay <runs> [--rules F]    replay recorded agent runs through the stall rules (--compare F2 for a rules change)
  rein worker --queue redis://…     take eval jobs from a Redis queue (rein eval --queue) on this machine

Run \`rein <command> --help\` for a command's options.
${EXIT_CODES_HELP}`;

type Command = (argv: string[], io: Io, env: NodeJS.ProcessEnv) => Promise<number>;

// Loaded on demand: each command pulls in only what it uses, which keeps start-up fast.
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.js')).runCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  resume: async () => (await import('./commands/resume.js')).resumeCommand,
  rewind: async () => (await import('./commands/rewind.js')).rewindCommand,
  fork: async () => (await import('./commands/fork.js')).forkCommand,
  snapshots: async () => (await import('./commands/snapshots.js')).snapshotsCommand,
  viz: async () => (await import('./commands/viz.js')).vizCommand,
  trace: async () => (await import('./commands/trace.js')).traceCommand,
  eval: async () => (await import('./commands/eval.js')).evalCommand,
  compare: async () => (await import('./commands/compare.js')).compareCommand,
  replay: async () => (await import('./commands/replay.js')).replayCommand,
  worker: async () => (await import('./commands/worker.js')).workerCommand,
  rules: async () => (await import('./commands/rules.js')).rulesCommand,
  approve: async () => (await import('./commands/approve.js')).approveCommand,
  trust: async () => (await import('./commands/trust.js')).trustCommand,
};

/** The CLI entry: dispatches a command and maps errors to exit codes. Returns the exit code. */
export async function main(
  argv: string[],
  given: Io = { stdout: process.stdout, stderr: process.stderr },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  parseSchemasWithoutCompiling();
  // Every line any command prints passes through one filter: no escape sequence from outside reaches the terminal.
  const io = terminalSafeIo(given);
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(USAGE + '\n');
    return name ? EXIT.done : EXIT.usage;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(version() + '\n');
    return EXIT.done;
  }
  const load = COMMANDS[name];
  if (!load) {
    io.stderr.write(`rein: unknown command "${name}"${didYouMean(name, Object.keys(COMMANDS))}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  try {
    const command = await load();
    return await command(rest, io, env);
  } catch (error) {
    const code = error instanceof UsageError ? EXIT.usage : error instanceof ModelEndpointError ? EXIT.endpoint : EXIT.crashed;
    const message = error instanceof Error ? error.message : String(error);
    // A ReinError is a failure rein knows and words; anything else is a crash (a bug, or rules-file code that threw).
    const crashed = !(error instanceof ReinError);
    // Messages that already name their command ("rein run: …") get no second prefix.
    const text = /^rein( [a-z-]+)*:/.test(message) ? message : crashed ? `rein: ${name} crashed: ${message}` : `rein: ${message}`;
    // Endpoint errors and rules-file exceptions carry text rein did not write: no escape sequence reaches the terminal.
    io.stderr.write(`${indentedLines(text)}\n`);
    if (crashed) io.stderr.write(crashHint(error, env));
    // `--json` promises one JSON line at the end, also when the run never started.
    if (rest.includes('--json')) io.stdout.write(JSON.stringify({ status: 'error', exitCode: code, error: message }) + '\n');
    return code;
  }
}

/** A crash is a bug in rein or in code a rules file registered (a guard, tool or action that threw): where to look. */
function crashHint(error: unknown, env: NodeJS.ProcessEnv): string {
  if (env.REIN_DEBUG && error instanceof Error && error.stack) return `${error.stack}\n`;
  return 'rein: if a rules file registers guards, tools or actions, check them first; the trace ends with a crash line. Set REIN_DEBUG=1 for the stack.\n';
}

function version(): string {
  // By the package's own name, not a path: this module runs from dist/ and, bundled, from dist/bundle/.
  const pkg = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('rein-cli/package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
