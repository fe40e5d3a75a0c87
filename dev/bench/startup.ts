import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { built, reinBin } from './checkout.js';

/** One way of starting a Node process: what the row measures. */
interface StartupCase {
  name: string;
  /** Node's arguments, or the command's when it has one. */
  args: string[];
  /** An executable that starts node itself (rein's launcher); node when absent. */
  command?: string;
}

/** Wall time from spawn to exit, and the child's own peak resident set, medians over the rounds. */
interface StartupFigures {
  name: string;
  wallMs: number;
  peakRssMb: number;
}

const dist = built;

/** What the section compares: a bare Node, loading rein, the CLI, runs, and every module rein ships loaded at once. */
export function startupCases(): StartupCase[] {
  const everything = [
    'index.js',
    ...['demo', 'eval', 'compare', 'worker', 'viz', 'trace', 'rules', 'run', 'resume'].map((name) => `cli/commands/${name}.js`),
    'eval/queue/coordinator.js',
    'eval/queue/queue-worker.js',
    'telemetry/otlp-exporter.js',
    'telemetry/export-trace.js',
    'visualizer/server/viz-server.js',
  ].map((path) => pathToFileURL(dist(path)).href);
  return [
    { name: "bare node -e ''", args: ['-e', ''] },
    {
      name: "import 'rein' (the library entry)",
      args: ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(dist('index.js')).href)});`],
    },
    { name: 'rein --help', command: reinBin(), args: ['--help'] },
    { name: 'a 10-step run in the process (instant model, no commands)', args: ['--expose-gc', dist('dev/bench/memory-child.js'), '10', 'now'] },
    { name: 'rein demo (a whole run: sandbox, 9 steps, two test runs)', command: reinBin(), args: ['demo'] },
    {
      name: 'rein demo from the compiled modules of cli/dist, not the bundle',
      args: [
        '--max-semi-space-size=2',
        '--input-type=module',
        '-e',
        `const { main } = await import(${JSON.stringify(pathToFileURL(dist('cli/main.js')).href)}); process.exitCode = await main(['demo']);`,
      ],
    },
    {
      name: 'every CLI command, the queue client, the exporter and the visualizer server imported at once (what loading on demand avoids)',
      args: ['--input-type=module', '-e', `await Promise.all(${JSON.stringify(everything)}.map((url) => import(url)));`],
    },
  ];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

function once(startupCase: StartupCase, reporter: string, rssFile: string): Promise<{ wallMs: number; peakRssMb: number }> {
  const { command, args } = startupCase;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // The reporter comes in through NODE_OPTIONS, so the launcher's own start of node gets it too; the launcher
    // execs the `node` on PATH, this one's.
    const child = spawn(command ?? process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        NODE_OPTIONS: `--import=${pathToFileURL(reporter).href}`,
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
        REIN_BENCH_RSS_FILE: rssFile,
        OPENAI_API_KEY: '',
        NO_COLOR: '1',
      },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve({ wallMs, peakRssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 });
    });
  });
}

/**
 * Each case in a fresh process, `rounds` times, taken in rotation so that a
 * slow moment of the machine falls on every case alike. A preload that every
 * case gets writes the process's peak RSS (`resourceUsage().maxRSS`) at exit.
 */
export async function measureStartup(cases: StartupCase[], rounds: number): Promise<StartupFigures[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rein-bench-startup-'));
  try {
    const reporter = join(dir, 'report-rss.mjs');
    writeFileSync(
      reporter,
      // Out of the environment at once, so the Node processes a run starts (demo's test runs) neither load it nor report.
      "import { writeFileSync } from 'node:fs';\nconst file = process.env.REIN_BENCH_RSS_FILE;\ndelete process.env.REIN_BENCH_RSS_FILE;\ndelete process.env.NODE_OPTIONS;\nprocess.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));\n",
    );
    const samples = cases.map(() => ({ wall: [] as number[], rss: [] as number[] }));
    for (let round = 0; round < rounds; round++) {
      for (const [index, startupCase] of cases.entries()) {
        const figures = await once(startupCase, reporter, join(dir, `rss-${index}`));
        samples[index]!.wall.push(figures.wallMs);
        samples[index]!.rss.push(figures.peakRssMb);
      }
    }
    return cases.map((startupCase, index) => ({ name: startupCase.name, wallMs: median(samples[index]!.wall), peakRssMb: median(samples[index]!.rss) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
