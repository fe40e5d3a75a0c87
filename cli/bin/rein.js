#!/bin/sh
':' //; f=--v8-pool-size=1; case " $NODE_OPTIONS " in *v8-pool-size*) f= ;; esac; case " $NODE_OPTIONS " in *semi-space-size*) ;; *) f="$f --max-semi-space-size=2" ;; esac; [ -n "${MALLOC_ARENA_MAX+x}" ] || { MALLOC_ARENA_MAX=2 REIN_MALLOC_ARENA=launcher; export MALLOC_ARENA_MAX REIN_MALLOC_ARENA; }; exec node $f "$0" "$@"
// The line above is for sh, which runs this file through the bin link. It starts node with a young generation of
// 2 MB semi-spaces (V8 reads the flag only at start-up), one V8 worker thread instead of four, and at most two malloc
// arenas (glibc's default grows with the threads, and each arena's freed memory stays in the RSS): together they hold
// a long run's peak RSS near what it keeps, at about the same CPU (docs/benchmarks.md, section 16, the `node rein.js`
// row). A semi-space or pool size in NODE_OPTIONS, or a MALLOC_ARENA_MAX of the user's, wins; the arena limit set
// here is not passed on.
// For node the line is a string and a comment; `node cli/bin/rein.js` runs with V8's defaults but for v8-tuning.js's.
// Thin launcher: the CLI is TypeScript compiled to dist/ by `npm ci` (prepare) or `npm run build`, and bundled with
// the core into dist/bundle/ (cli/scripts/bundle-cli.mjs), which starts in a fraction of the time of dist/'s modules.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { tuningToApply } from './v8-tuning.js';

for (const flag of tuningToApply(process.execArgv, process.env.NODE_OPTIONS)) v8.setFlagsFromString(flag);

const bundled = new URL('../dist/bundle/main.js', import.meta.url);
const entry = existsSync(fileURLToPath(bundled)) ? bundled : new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('rein: not built yet. Run `npm ci` (or `npm run build`) in the rein checkout first.');
  process.exit(2);
}
// The arena limit is for this process: the programs rein starts get the environment they would have had.
if (process.env.REIN_MALLOC_ARENA === 'launcher') {
  delete process.env.MALLOC_ARENA_MAX;
  delete process.env.REIN_MALLOC_ARENA;
}
// `rein rules graph | head` closes the pipe early: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => { if (error.code === 'EPIPE') process.exit(0); else throw error; });
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
