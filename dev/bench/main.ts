import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { inCheckout } from './checkout.js';
import { type BenchSection, renderSection } from './section.js';
import { delegationSection } from './sections/delegation.js';
import { evalQueueSection } from './sections/eval-queue.js';
import { harnessOverheadSection } from './sections/harness-overhead.js';
import { mcpToolsSection } from './sections/mcp-tools.js';
import { memorySection } from './sections/memory.js';
import { otelOverheadSection } from './sections/otel-overhead.js';
import { promptCacheSection } from './sections/prompt-cache.js';
import { promptCacheEndToEndSection } from './sections/prompt-cache-end-to-end.js';
import { replayRealRunsSection } from './sections/replay-real-runs.js';
import { sandboxOverheadSection } from './sections/sandbox-overhead.js';
import { stallPrecisionSection } from './sections/stall-precision.js';
import { startupSection } from './sections/startup.js';
import { suiteTokensSection } from './sections/suite-tokens.js';
import { syntaxChecksSection } from './sections/syntax-checks.js';
import { viewConstructionSection } from './sections/view-construction.js';
import { wholeRunSection } from './sections/whole-run.js';
import { workspaceSnapshotsSection } from './sections/workspace-snapshots.js';
import { writeSections } from './write-figures.js';

/** The sections of `npm run bench`, in the order they run and are numbered. A new section is a file and a line here. */
const SECTIONS: readonly BenchSection[] = [
  harnessOverheadSection,
  viewConstructionSection,
  promptCacheSection,
  promptCacheEndToEndSection,
  suiteTokensSection,
  stallPrecisionSection,
  otelOverheadSection,
  syntaxChecksSection,
  memorySection,
  sandboxOverheadSection,
  evalQueueSection,
  startupSection,
  mcpToolsSection,
  replayRealRunsSection,
  delegationSection,
  wholeRunSection,
  workspaceSnapshotsSection,
];

const USAGE = `node --expose-gc dev/dist/bench/main.js [--only ID,…] [--skip ID,…] [--write]
  sections: ${SECTIONS.map((section) => section.id).join(', ')}
  --write   put the figures of the sections run into docs/benchmarks.md, each between its own markers`;

/**
 * `npm run bench`: every figure docs/benchmarks.md shows, measured side by side in
 * one process; compare ratios, not times. `--only`/`--skip` pick sections,
 * `--write` updates docs/benchmarks.md for the sections run.
 */
async function main(argv: readonly string[]): Promise<void> {
  const chosen = chooseSections(argv);
  if (!chosen) {
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const started = performance.now();
  const blocks: Array<{ id: string; text: string }> = [];
  for (const section of chosen) {
    const sectionStarted = performance.now();
    const result = await section.run({ parallel: 2 });
    const seconds = (performance.now() - sectionStarted) / 1000;
    // The load average says how far the absolute times can be trusted: on a shared machine other work slows every row alike.
    const provenance =
      `Printed by \`npm run bench\` (section \`${section.id}\`, ${seconds.toFixed(0)} s), node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ` +
      `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} CPUs at the end of the section.`;
    const text = renderSection(SECTIONS.indexOf(section) + 1, section, result, provenance);
    blocks.push({ id: section.id, text });
    process.stdout.write(`${text}\n\n`);
  }
  const total = `npm run bench: ${chosen.length} of ${SECTIONS.length} sections in ${((performance.now() - started) / 1000).toFixed(0)} s wall time.`;
  process.stdout.write(`${total}\n`);
  if (argv.includes('--write')) {
    if (chosen.length === SECTIONS.length) blocks.push({ id: 'total', text: `<!-- bench:total -->\n_${total}_\n<!-- /bench:total -->` });
    writeSections(pathToFileURL(inCheckout('docs', 'benchmarks.md')), blocks);
    process.stdout.write('docs/benchmarks.md: figures updated\n');
  }
}

/** The sections `--only`/`--skip` select, or null for an unknown id. */
function chooseSections(argv: readonly string[]): BenchSection[] | null {
  const ids = (flag: string) => {
    const index = argv.indexOf(flag);
    return index < 0 ? null : (argv[index + 1] ?? '').split(',').filter(Boolean);
  };
  const only = ids('--only');
  const skip = ids('--skip') ?? [];
  const known = new Set(SECTIONS.map((section) => section.id));
  if ([...(only ?? []), ...skip].some((id) => !known.has(id))) return null;
  return SECTIONS.filter((section) => (only === null || only.includes(section.id)) && !skip.includes(section.id));
}

await main(process.argv.slice(2));
